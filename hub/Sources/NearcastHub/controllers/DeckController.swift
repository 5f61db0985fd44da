import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOConcurrencyHelpers
import NIOCore

/// Decks: upload (a PDF body), list, read, delete (the secret key), and page images (any key;
/// a pass, or the public key with a watch token, only the pages the show of the box it reads has
/// shown: `BeaconReadGrant.checkDeck`).
struct DeckController: Sendable {
    let decks: any DeckRepository
    let renderer: DeckRenderer
    let images: DeckImageCache
    let grant: BeaconReadGrant
    let logger: Logger
    let keys: KeyChecker

    var endpoints: RouteCollection<HubRequestContext> {
        let routes = RouteCollection(context: HubRequestContext.self)
        let readers = keys.group(routes, .read), managers = keys.group(routes, .manage)
        managers.post("/v1/decks") { request, context in
            let access = try context.caller()
            let title = try Self.title(request)
            let pdf = try await Self.pdfBody(request, limit: renderer.limits.maximumBytes)
            // A project whose decks fill its quota is refused before the render, not after.
            try await decks.checkRoom(project: access.project)
            let started = ContinuousClock.now
            let rendered = try await Self.renderUnlessAbandoned(pdf, renderer, closed: context.clientGone())
            let deck = try await decks.add(project: access.project, title: title ?? "Deck", sourceBytes: pdf.count, rendered: rendered)
            logger.info("decks: \(access.project) added \(deck.deckID) (\(deck.pages) pages, \(pdf.count) bytes, rendered in \(ContinuousClock.now - started))")
            return EditedResponse(status: .created, response: CreatedDeckJSON(deck: deck.deckID, pages: deck.pages))
        }
        managers.get("/v1/decks") { _, context in
            DeckListJSON(decks: try await decks.list(project: try context.caller().project).map(\.json))
        }
        managers.get("/v1/decks/:deck") { _, context in
            try await decks.get(project: try context.caller().project, deckID: try Self.deckID(context)).json
        }
        managers.delete("/v1/decks/:deck") { _, context in
            let project = try context.caller().project, id = try Self.deckID(context)
            // Its shows end with it, and their streams are told (every instance's, on PostgreSQL).
            _ = try await decks.delete(project: project, deckID: id)
            await images.remove(project: project, deckID: id)
            logger.info("decks: \(project) deleted \(id)")
            return EmptyJSON()
        }
        readers.get("/v1/decks/:deck/pages/:page") { request, context in
            let access = try context.caller()
            let id = try Self.deckID(context)
            guard let page = context.parameters.get("page", as: Int.self), page >= 1 else {
                throw APIError.invalid("page", "'\(context.parameters.get("page") ?? "")' is not a page number (1, 2, ...)")
            }
            let size: Deck.ImageSize
            switch request.uri.queryParameters["size"].map(String.init) {
            case nil, "full": size = .full
            case "thumb": size = .thumb
            case let other?: throw APIError.invalid("size", "'\(other)' must be full or thumb")
            }
            if !access.canManage {
                // The audience sees a page only of the deck on the show it follows, and only
                // once the presenter has shown it.
                try await grant.checkDeck(access, deckID: id, request: request)
                guard try await decks.pageWasShown(project: access.project, deckID: id, page: page) else {
                    throw APIError(.forbidden, "page \(page) of deck \(id) has not been shown yet")
                }
            }
            let key = DeckImageCache.Key(project: access.project, deckID: id, page: page, size: size)
            guard let image = try await images.image(key, load: {
                try await decks.image(project: access.project, deckID: id, page: page, size: size)
            }) else { throw APIError.notFound("page \(page) of deck \(id)") }
            let etag = "\"\(id)-\(page)-\(size.rawValue)\""
            var headers: HTTPFields = [.contentType: "image/jpeg", .eTag: etag,
                                       // A deck never changes (a new upload is a new id).
                                       .cacheControl: "private, max-age=31536000, immutable",
                                       HTTPField.Name("Cross-Origin-Resource-Policy")!: "same-site"]
            if request.headers[.ifNoneMatch] == etag {
                return Response(status: .notModified, headers: headers)
            }
            headers[.contentLength] = String(image.count)
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: image)))
        }
        return routes
    }

    /// Renders `pdf`, cancelling the render (which kills its processes) when the client goes
    /// first: an uploader who gave up must not keep the renderer busy for minutes. Hummingbird
    /// does not cancel a handler whose client left, so `ClientGoneHandler` watches for it.
    static func renderUnlessAbandoned(_ pdf: [UInt8], _ renderer: DeckRenderer, closed: EventLoopFuture<Void>)
        async throws -> DeckRenderer.Rendered {
        // A Task (not a detached one) keeps the task-locals, among them the graceful shutdown
        // that cancels a render at SIGTERM.
        let render = Task { try await renderer.render(pdf) }
        // The box lets the close callback, which lives as long as the connection, drop the task
        // (and the images it holds) once the render is over.
        let running = NIOLockedValueBox<Task<DeckRenderer.Rendered, any Error>?>(render)
        closed.whenComplete { _ in running.withLockedValue { $0?.cancel() } }
        defer { running.withLockedValue { $0 = nil } }
        return try await withTaskCancellationHandler { try await render.value } onCancel: { render.cancel() }
    }

    /// A deck upload's body: a PDF sent as `application/pdf` (else 415), at most `limit` bytes
    /// (else 413, the rest never read).
    static func pdfBody(_ request: Request, limit: Int) async throws -> [UInt8] {
        guard let type = request.headers[.contentType], type.lowercased().hasPrefix("application/pdf") else {
            throw APIError(.unsupportedMediaType, "send the deck as Content-Type: application/pdf, the PDF file as the body",
                           field: "Content-Type")
        }
        do {
            return [UInt8](try await request.body.collect(upTo: limit).readableBytesView)
        } catch is NIOTooManyBytesError {
            throw APIError(.contentTooLarge, "the PDF is larger than \(limit / 1024 / 1024) MB, the limit for a deck", field: "(body)")
        }
    }

    static func deckID(_ context: HubRequestContext) throws(APIError) -> String {
        let id = context.parameters.get("deck") ?? ""
        guard id.count == 16, id.allSatisfy({ $0.isHexDigit && !$0.isUppercase }) else {
            throw APIError.invalid("deck", "'\(id)' is not a deck id (16 lowercase hex digits)")
        }
        return id
    }

    private static func title(_ request: Request) throws(APIError) -> String? {
        guard let title = request.uri.queryParameters["title"].map(String.init), !title.isEmpty else { return nil }
        try RequestSupport.checkFreeText(title, field: "title", characters: 200)
        return title
    }
}
