import Foundation
import Hummingbird
import Logging
import NIOCore

/// A speaker's own address for their talk's deck (`uploadPath`, `/upload/TOKEN`, no key: the
/// token is the capability, `TalkUploads`): `GET` is a page to choose and send the PDF,
/// `POST` (the PDF as the body) stores it as the talk's deck. A deck may be replaced freely until
/// the talk starts; while it is on, one is taken only if the talk has none yet; after it ends,
/// none. From the talk's start the page shows its reactions (`TalkFiguresController` serves them
/// as CSV and JSON).
struct TalkUploadController: Sendable {
    let schedules: any ScheduleRepository
    let decks: any DeckRepository
    let renderer: DeckRenderer
    let uploads: TalkUploads
    let figures: TalkFigureReader
    let clock: HubClock
    let logger: Logger

    var endpoints: RouteCollection<HubRequestContext> {
        let routes = RouteCollection(context: HubRequestContext.self)
        routes.get("/upload/:token") { _, context in
            let speaker = try await speakerTalk(context)
            let (talk, reactions) = (speaker.talk, try await figures.figures(of: speaker, nowMs: clock.nowMs()))
            let page = TalkUploadPage.html(title: talk.title, persons: talk.persons, start: HubClock.timestamp(ms: talk.startMs),
                                           upload: .init(state: reactions.state, hasDeck: speaker.deck != nil),
                                           figures: TalkFiguresSection.html(reactions, token: speaker.token))
            return Response(status: .ok, headers: [.contentType: "text/html; charset=utf-8", .cacheControl: "no-store"],
                            body: .init(byteBuffer: ByteBuffer(string: page)))
        }
        routes.get(RouterPath(TalkUploadPage.scriptPath)) { _, _ in
            Response(status: .ok, headers: [.contentType: "text/javascript; charset=utf-8", .cacheControl: "no-cache"],
                     body: .init(byteBuffer: ByteBuffer(string: TalkUploadPage.script)))
        }
        routes.post("/upload/:token") { request, context in
            let speaker = try await speakerTalk(context)
            let (project, talk, current) = (speaker.project, speaker.talk, speaker.deck)
            let now = clock.nowMs()
            guard now < talk.endMs else {
                throw APIError(.forbidden, "\(talk.title) has ended: its deck can no longer be uploaded")
            }
            if now >= talk.startMs && current != nil {
                throw APIError(.conflict, "\(talk.title) is on now with its deck: a deck is replaced only before the talk starts")
            }
            let pdf = try await DeckController.pdfBody(request, limit: renderer.limits.maximumBytes)
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

    private func speakerTalk(_ context: HubRequestContext) async throws -> SpeakerTalk {
        try await SpeakerTalk.find(token: context.parameters.get("token"), uploads: uploads, schedules: schedules)
    }
}
