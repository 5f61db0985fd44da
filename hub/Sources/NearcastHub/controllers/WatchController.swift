import Foundation
import HTTPTypes
import Hummingbird
import Logging
import Metrics
import NIOConcurrencyHelpers
import ServiceLifecycle

/// `GET /v1beta1/beacons/{id}/attachments:watch`: Server-Sent Events with the beacon's
/// attachments, sent at once and again whenever they change (the presenter's current slide).
///
/// Each event is `event: attachments` with the same JSON as the list call; a comment line every
/// 15 s keeps proxies from closing an idle stream; `event: deleted` ends it if the beacon goes.
/// Reads with the public API key and the `watchToken` getforobserved answered (a listener
/// watches what it heard: `BeaconReadGrant`), a pass for the beacon, or the secret key.
struct WatchController: Sendable {
    static let keepAliveSeconds: UInt64 = 15

    let attachments: any AttachmentRepository
    /// How a failed read reads in the log.
    let storage: any StorageHealth
    let feed: ChangeFeed
    let grant: BeaconReadGrant
    let limiter: HubLimiter
    let logger: Logger
    let keys: KeyChecker

    var endpoints: RouteCollection<HubRequestContext> {
        let routes = RouteCollection(context: HubRequestContext.self)
        let router = keys.group(routes, .read)
        let watches = Gauge(label: "nearcast_hub_watches")
        // Reads of attachments for watchers: one per change per beacon and filter, however many watch.
        let reads = Counter(label: "nearcast_hub_watch_reads_total")
        router.get("/v1beta1/beacons/:beacon/attachments:watch") { request, context in
            let access = try context.caller()
            let beacon = try context.beacon(), name = beacon.beaconName
            // A watch opened with a pass or a watch token ends when it expires (the page goes on
            // with the newer one its resolves since gave it).
            let expiresMs = try await grant.check(access, beaconName: name, request: request)
            let filter = try AttachmentController.filter(request)
            let slot = try limiter.openStream(address: context.remoteAddress, key: access.limitKey)
            // Subscribe before the first read, so no change falls between the two.
            let signals = feed.subscribe(beacon)
            let key = WatchEvents.Key(beacon: beacon,
                                      filter: request.uri.queryParameters["namespacedType"].map(String.init) ?? "")
            // One read and one encoding per change for all of this beacon's watchers.
            let read: @Sendable () async throws -> WatchEvents.Event = {
                reads.increment()
                do {
                    return .attachments(Self.event(try await attachments.list(beacon,  filter: filter)))
                } catch let error as APIError where error.status == .notFound {
                    return .deleted
                }
            }
            guard case .attachments(let first) = try await feed.events.event(key, generation: feed.generation, read: read) else {
                throw APIError.notFound(name)
            }

            // Pulled, not pushed: the writer reads the beacon's attachments when it can write
            // again, so a watcher that never reads holds one pending flag, not a copy of the
            // list per change (300 such sockets once took the hub to 1.75 GB).
            let pending = PendingWatchEvents()
            context.channelClosed.whenComplete { _ in pending.finish() }
            let forwarder = Task {
                for await _ in signals { pending.mark(change: true) }
                pending.finish()
            }
            let ticker = Task {
                while !Task.isCancelled {
                    try? await Task.sleep(nanoseconds: Self.keepAliveSeconds * 1_000_000_000)
                    pending.mark(change: false)
                }
            }
            watches.record(feed.watchCount)
            return Response(status: .ok,
                            headers: [.contentType: "text/event-stream; charset=utf-8", .cacheControl: "no-cache",
                                      HTTPField.Name("X-Accel-Buffering")!: "no"],
                            body: ResponseBody { writer in
                                defer {
                                    slot?.release()
                                    forwarder.cancel()
                                    ticker.cancel()
                                    watches.record(feed.watchCount)
                                }
                                // Ends at the server's graceful shutdown too, so a SIGTERM is not
                                // held up by open watches.
                                try await withGracefulShutdownHandler {
                                    try await writer.write(first)
                                    // What this watcher was last sent: a signal that changes nothing
                                    // (PostgreSQL's NOTIFY of a change made before the watch opened,
                                    // arriving after its first read; a re-read after a lost LISTEN)
                                    // sends nothing. The buffers are shared, so the bytes are compared
                                    // only when the lengths match.
                                    var last = first
                                    for await wake in pending.wakes {
                                        guard wake.change else {
                                            if let expiresMs, grant.clock.nowMs() >= expiresMs {
                                                try await writer.write(Self.revokedEvent)
                                                break
                                            }
                                            try await writer.write(ByteBuffer(string: ": keep-alive\n\n"))
                                            continue
                                        }
                                        let now: ByteBuffer
                                        do {
                                            let change = try await feed.events.event(key, generation: feed.generation, read: read)
                                            guard case .attachments(let bytes) = change else {
                                                try await writer.write(ByteBuffer(string: "event: deleted\ndata: {}\n\n"))
                                                break
                                            }
                                            now = bytes
                                        } catch {
                                            // The database away for a moment: the next change tries again.
                                            logger.warning("watch: reading \(name)'s attachments failed: \(storage.describe(error))")
                                            continue
                                        }
                                        if now.readableBytes == last.readableBytes && now == last { continue }
                                        // A client gone makes this throw, which ends the watch.
                                        try await writer.write(now)
                                        last = now
                                    }
                                    try await writer.finish(nil)
                                } onGracefulShutdown: {
                                    pending.finish()
                                }
                            })
        }
        return routes
    }

    /// Sent as a watch whose grant expired ends.
    static let revokedEvent = ByteBuffer(string: "event: revoked\ndata: {\"message\":\"the watch token (or pass) this watch was opened with has expired: "
                                                 + "resolve the beacon again for a new one\"}\n\n")

    private static func event(_ attachments: [Attachment]) -> ByteBuffer {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let json = (try? encoder.encode(AttachmentListJSON(attachments: attachments.map(\.json)))) ?? Data("{}".utf8)
        return ByteBuffer(string: "event: attachments\ndata: " + String(decoding: json, as: UTF8.self) + "\n\n")
    }
}

/// What a watch has to send next: whether the attachments changed and whether a keep-alive is
/// due, coalesced while the writer is busy (a slow reader gets the newest state once, not every
/// state), and a wake-up stream of at most one element.
final class PendingWatchEvents: Sendable {
    struct Wake: Sendable {
        var change: Bool
    }

    private let state = NIOLockedValueBox((change: false, keepAlive: false))
    private let stream: AsyncStream<Void>
    private let continuation: AsyncStream<Void>.Continuation

    init() {
        (stream, continuation) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
    }

    func mark(change: Bool) {
        state.withLockedValue { if change { $0.change = true } else { $0.keepAlive = true } }
        continuation.yield()
    }

    func finish() { continuation.finish() }

    /// One wake per batch of marks: a change if any came in (it stands for a keep-alive too),
    /// else a keep-alive.
    var wakes: AsyncCompactMapSequence<AsyncStream<Void>, Wake> {
        stream.compactMap { [state] in
            state.withLockedValue { marks -> Wake? in
                defer { marks = (false, false) }
                if marks.change { return Wake(change: true) }
                return marks.keepAlive ? Wake(change: false) : nil
            }
        }
    }
}
