import Foundation
import HTTPTypes
import Hummingbird
import Metrics
import ServiceLifecycle

/// `GET /v1beta1/beacons/{id}/attachments:watch`: Server-Sent Events with the beacon's
/// attachments, sent at once and again whenever they change (the presenter's current slide).
///
/// Each event is `event: attachments` with the same JSON as the list call; a comment line every
/// 15 s keeps proxies from closing an idle stream; `event: deleted` ends it if the beacon goes.
/// Reads with the public API key, like getforobserved (a listener watches what it heard).
enum WatchRoutes {
    static let keepAliveSeconds: UInt64 = 15

    static func add(to router: RouterGroup<HubRequestContext>, _ hub: HubServices) {
        let watches = Gauge(label: "nearcast_hub_watches")
        router.get("/v1beta1/beacons/:beacon/attachments:watch") { request, context in
            let access = try context.caller()
            let name = try RequestSupport.beaconName(context)
            let filter = try AttachmentRoutes.filter(request)
            // Subscribe before the first read, so no change falls between the two.
            let signals = hub.feed.subscribe(project: access.project, beaconName: name)
            let first = try await hub.attachments.list(project: access.project, beaconName: name, filter: filter)

            let (events, continuation) = AsyncStream<ByteBuffer>.makeStream()
            continuation.yield(event(first))
            let producer = Task {
                watches.record(hub.feed.watchCount)
                await withTaskGroup(of: Void.self) { group in
                    group.addTask {
                        // Ends at the server's graceful shutdown too, so a SIGTERM is not held
                        // up by open watches.
                        for await _ in signals.cancelOnGracefulShutdown() {
                            do {
                                let now = try await hub.attachments.list(project: access.project, beaconName: name, filter: filter)
                                continuation.yield(event(now))
                            } catch let error as APIError where error.status == .notFound {
                                continuation.yield(ByteBuffer(string: "event: deleted\ndata: {}\n\n"))
                                break
                            } catch {
                                hub.logger.warning("watch: reading \(name)'s attachments failed: \(error)")
                            }
                        }
                        continuation.finish()
                    }
                    group.addTask {
                        while !Task.isCancelled {
                            try? await Task.sleep(nanoseconds: keepAliveSeconds * 1_000_000_000)
                            continuation.yield(ByteBuffer(string: ": keep-alive\n\n"))
                        }
                    }
                    await group.next()
                    group.cancelAll()
                }
            }
            continuation.onTermination = { _ in
                producer.cancel()
                watches.record(hub.feed.watchCount)
            }
            return Response(status: .ok,
                            headers: [.contentType: "text/event-stream; charset=utf-8", .cacheControl: "no-cache",
                                      HTTPField.Name("X-Accel-Buffering")!: "no"],
                            body: ResponseBody(asyncSequence: events))
        }
    }

    private static func event(_ attachments: [AttachmentStore.Record]) -> ByteBuffer {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let json = (try? encoder.encode(AttachmentListJSON(attachments: attachments.map(\.json)))) ?? Data("{}".utf8)
        return ByteBuffer(string: "event: attachments\ndata: " + String(decoding: json, as: UTF8.self) + "\n\n")
    }
}
