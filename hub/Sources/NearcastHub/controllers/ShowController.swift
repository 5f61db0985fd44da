import Foundation
import HTTPTypes
import Hummingbird
import Logging
import Metrics
import NIOCore
import ServiceLifecycle

/// Shows: start or move (`PUT`), read, end, follow (`/events`, Server-Sent Events) and the join
/// address as a QR code.
struct ShowController: Sendable {
    let shows: any ShowRepository
    let views: ShowViews
    /// Forgotten at each write here, so this instance's next check sees it at once (the other
    /// instances forget it when the change's notification reaches them).
    let showCache: ShowCache
    let grant: BeaconReadGrant
    let limiter: HubLimiter
    let logger: Logger
    let keys: KeyChecker

    var endpoints: RouteCollection<HubRequestContext> {
        let routes = RouteCollection(context: HubRequestContext.self)
        let readers = keys.group(routes, .read), managers = keys.group(routes, .manage)
        let followersGauge = Gauge(label: "nearcast_hub_show_followers")
        managers.put("/v1/shows/:beacon") { request, context in
            let beacon = try context.beacon()
            let body = try await request.decode(as: ShowUpdate.self, context: context)
            guard body.deck.count == 16, body.deck.allSatisfy({ $0.isHexDigit && !$0.isUppercase }) else {
                throw APIError.invalid("deck", "'\(body.deck)' is not a deck id (16 lowercase hex digits)")
            }
            let show = try await shows.put(beacon,  deckID: body.deck, page: body.page ?? 1)
            showCache.forget(BeaconRef(show))
            return try await views.json(show, presenter: true)
        }
        managers.delete("/v1/shows/:beacon") { _, context in
            let access = try context.caller()
            let beacon = try context.beacon(), name = beacon.beaconName
            defer { showCache.forget(beacon) }
            guard try await shows.delete(beacon) else {
                throw APIError.notFound("a show on \(name)")
            }
            logger.info("shows: \(access.project) ended the show on \(name)")
            return EmptyJSON()
        }
        managers.put("/v1/shows/:beacon/code") { request, context in
            let access = try context.caller()
            let beacon = try context.beacon(), name = beacon.beaconName
            let body = try await request.decode(as: CodeUpdate.self, context: context)
            if let share = body.maxShare, !(0...100).contains(share) {
                throw APIError.invalid("maxShare", "\(share) is not a share of the followers: give 0 to 100 (%)")
            }
            guard try await shows.setCode(beacon,  joining: body.joining,
                                              share: body.maxShare, rotate: body.rotate ?? false) else {
                throw APIError.notFound("a show on \(name)")
            }
            showCache.forget(beacon)
            guard let show = try await shows.get(beacon) else { throw APIError.notFound("a show on \(name)") }
            let change = "\(body.joining.map { $0 ? "on" : "off" } ?? "unchanged")" + (body.rotate == true ? ", new code" : "")
                + (body.maxShare.map { ", at most \($0) %" } ?? "")
            logger.info("shows: \(access.project) set joining by code on \(name): \(change)")
            return try await views.json(show, presenter: true)
        }
        managers.get("/v1/shows/:beacon/qr.svg") { request, context in
            let beacon = try context.beacon(), name = beacon.beaconName
            guard let show = try await shows.get(beacon) else {
                throw APIError.notFound("a show on \(name)")
            }
            let json = try await views.json(show, presenter: true)
            guard let joinPath = json.presenter?.joinPath else {
                throw APIError(.conflict, "\(name) is not an EID beacon, so its show has no sight code to join by")
            }
            let base = try Self.joinBase(request, context: context)
            guard let svg = QRCodeSVG.svg(for: base + joinPath) else {
                throw APIError.invalid("base", "the join address is too long for a QR code")
            }
            return Response(status: .ok, headers: [.contentType: "image/svg+xml", .cacheControl: "no-store"],
                            body: .init(byteBuffer: ByteBuffer(string: svg)))
        }
        readers.get("/v1/shows/:beacon") { request, context in
            let access = try context.caller()
            let beacon = try context.beacon(), name = beacon.beaconName
            try await grant.check(access, beaconName: name, request: request)
            guard let show = try await shows.get(beacon) else {
                throw APIError.notFound("a show on \(name)")
            }
            return try await views.json(show, presenter: access.canManage)
        }
        readers.get("/v1/shows/:beacon/events") { request, context in
            let access = try context.caller()
            let beacon = try context.beacon(), name = beacon.beaconName
            let expiresMs = try await grant.check(access, beaconName: name, request: request)
            let slot = try limiter.openStream(address: context.remoteAddress, key: access.limitKey)
            let key = beacon
            let role: ShowFeed.Role = access.canManage ? .presenter : .follower
            // Subscribe before the first read, so no change falls between the two.
            let pass: Presence.Pass? = if case .pass(let pass) = access { pass } else { nil }
            let subscription = views.showFeed.subscribe(key, role: role, pass: pass, expiresMs: expiresMs)
            let (events, continuation) = (subscription.events, subscription.continuation)
            guard let show = try await shows.get(beacon) else {
                continuation.finish()
                throw APIError.notFound("a show on \(name)")
            }
            views.showFeed.sendFirst(subscription,
                                     ShowFeed.event("show", json: try JSONText.encode(try await views.json(show, presenter: access.canManage))))
            followersGauge.record(views.showFeed.followerCount)
            // A follower gone ends the stream now, not at the next event.
            context.channelClosed.whenComplete { _ in continuation.finish() }
            return Response(status: .ok,
                            headers: [.contentType: "text/event-stream; charset=utf-8", .cacheControl: "no-cache",
                                      HTTPField.Name("X-Accel-Buffering")!: "no"],
                            body: ResponseBody { writer in
                                // Ends at the server's graceful shutdown, like an attachment watch (the
                                // server waits for open streams before the services behind it stop).
                                // A handler, not cancelOnGracefulShutdown(): that merges two sequences
                                // with child tasks, whose stacks cost ~10 KB more per phone following.
                                defer { slot?.release() }
                                try await withGracefulShutdownHandler {
                                    for await buffer in events { try await writer.write(buffer) }
                                    try await writer.finish(nil)
                                } onGracefulShutdown: {
                                    continuation.finish()
                                }
                            })
        }
        return routes
    }

    /// Where phones reach this hub: `?base=` (the presenter page's own origin), else the
    /// request's Host, over https unless a trusted proxy said otherwise (`X-Forwarded-Proto`,
    /// `ClientAddressMiddleware`).
    static func joinBase(_ request: Request, context: HubRequestContext) throws(APIError) -> String {
        if let base = request.uri.queryParameters["base"].map(String.init), !base.isEmpty {
            guard base.count <= 200, base.hasPrefix("https://") || base.hasPrefix("http://"),
                  !base.contains(where: { $0.isWhitespace || $0 == "#" || $0 == "?" })
            else { throw APIError.invalid("base", "'\(base)' must be an http:// or https:// address without a query") }
            return base.hasSuffix("/") ? String(base.dropLast()) : base
        }
        let host = request.head.authority ?? "localhost"
        let scheme = context.forwardedScheme ?? request.head.scheme ?? "http"
        return "\(scheme)://\(host)"
    }
}
