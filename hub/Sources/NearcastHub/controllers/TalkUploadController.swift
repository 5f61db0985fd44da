import Foundation
import Hummingbird
import Logging
import NIOCore

/// A speaker's own address for their talk's deck (`uploadPath`, `/upload/TOKEN`, no key: the
/// token is the capability, `TalkUploads`): `GET` is a page to choose and send the PDF,
/// `POST` (the PDF as the body) stores it as the talk's deck. A deck may be replaced freely until
/// the talk starts; while it is on, one is taken only if the talk has none yet; after it ends,
/// none.
struct TalkUploadController: Sendable {
    let schedules: any ScheduleRepository
    let decks: any DeckRepository
    let renderer: DeckRenderer
    let uploads: TalkUploads
    let clock: HubClock
    let logger: Logger

    var endpoints: RouteCollection<HubRequestContext> {
        let routes = RouteCollection(context: HubRequestContext.self)
        routes.get("/upload/:token") { _, context in
            let (_, talk, deck) = try await talk(context)
            let page = TalkUploadPage.html(title: talk.title, persons: talk.persons, start: HubClock.timestamp(ms: talk.startMs),
                                           hasDeck: deck != nil)
            return Response(status: .ok, headers: [.contentType: "text/html; charset=utf-8", .cacheControl: "no-store"],
                            body: .init(byteBuffer: ByteBuffer(string: page)))
        }
        routes.get(RouterPath(TalkUploadPage.scriptPath)) { _, _ in
            Response(status: .ok, headers: [.contentType: "text/javascript; charset=utf-8", .cacheControl: "no-cache"],
                     body: .init(byteBuffer: ByteBuffer(string: TalkUploadPage.script)))
        }
        routes.post("/upload/:token") { request, context in
            let (project, talk, current) = try await talk(context)
            let now = clock.nowMs()
            guard now < talk.endMs else {
                throw APIError(.forbidden, "\(talk.title) has ended: its deck can no longer be uploaded")
            }
            if now >= talk.startMs && current != nil {
                throw APIError(.conflict, "\(talk.title) is on now with its deck: a deck is replaced only before the talk starts")
            }
            guard let type = request.headers[.contentType], type.lowercased().hasPrefix("application/pdf") else {
                throw APIError(.unsupportedMediaType, "send the deck as Content-Type: application/pdf, the PDF file as the body",
                               field: "Content-Type")
            }
            let limit = renderer.limits.maximumBytes
            let body: ByteBuffer
            do {
                body = try await request.body.collect(upTo: limit)
            } catch is NIOTooManyBytesError {
                throw APIError(.contentTooLarge, "the PDF is larger than \(limit / 1024 / 1024) MB, the limit for a deck", field: "(body)")
            }
            let pdf = [UInt8](body.readableBytesView)
            try await decks.checkRoom(project: project)
            let rendered = try await DeckController.renderUnlessAbandoned(pdf, renderer, closed: context.clientGone())
            let deck = try await decks.add(project: project, title: String(talk.title.prefix(200)), sourceBytes: pdf.count,
                                           rendered: rendered)
            try await schedules.setTalkDeck(project: project, guid: talk.guid, deckID: deck.deckID)
            logger.info("schedule: \(project) talk \(talk.guid) got deck \(deck.deckID) (\(deck.pages) pages)")
            return EditedResponse(status: .created, response: TalkDeckJSON(deck: deck.deckID, pages: deck.pages, talk: talk.title))
        }
        return routes
    }

    /// The talk the address names, and its deck now; a 404 for an address this hub did not make
    /// or a talk no longer in the schedule.
    private func talk(_ context: HubRequestContext) async throws -> (project: String, talk: ScheduledTalk, deck: String?) {
        guard let token = context.parameters.get("token"), let (project, guid) = uploads.talk(token: token) else {
            throw APIError(.notFound, "this upload address is not one of this hub's: ask the venue for your talk's address")
        }
        let inForce = try await schedules.inForce(project: project)
        guard let talk = inForce.schedule.talk(guid: guid) else {
            throw APIError(.notFound, "this talk is no longer in the schedule")
        }
        return (project, talk, try await schedules.talkDecks(project: project)[guid])
    }
}
