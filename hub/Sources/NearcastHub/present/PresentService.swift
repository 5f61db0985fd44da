import Foundation
import Logging
import NIOCore
import ServiceLifecycle
import SQLKit

/// Present's background work, one loop per instance while it serves:
/// - every 150 ms, the reactions accepted since the last batch go out: counted on the show in the
///   database and sent to the presenters' streams (through NOTIFY on PostgreSQL, so a presenter
///   on another instance gets them too);
/// - every 2 s, this instance's follower counts go to the database when they changed (every 10 s
///   regardless) and presenters are told;
/// - every 15 s, a keep-alive on every show stream.
struct PresentService: Service {
    static let batchMilliseconds: Int64 = 150
    static let followersEveryMilliseconds: Int64 = 2_000
    static let followersRefreshMilliseconds: Int64 = 10_000
    static let keepAliveMilliseconds: Int64 = 15_000
    /// Reactions per NOTIFY: PostgreSQL's payload limit is 8,000 bytes.
    static let reactionsPerNotification = 50

    let hub: HubServices

    func run() async throws {
        var lastFollowers: Int64 = 0, lastKeepAlive = hub.clock.nowMs()
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            try? await Task.sleep(for: .milliseconds(Self.batchMilliseconds))
            let now = hub.clock.nowMs()
            await flushReactions()
            if now - lastFollowers >= Self.followersEveryMilliseconds {
                lastFollowers = now
                await reportFollowers(nowMs: now)
                await hub.present.reactionDesk.prune(nowMs: now)
            }
            if now - lastKeepAlive >= Self.keepAliveMilliseconds {
                lastKeepAlive = now
                hub.present.showFeed.keepAlive()
            }
        }
        hub.present.showFeed.finishAll()
    }

    func flushReactions() async {
        for (key, waiting) in await hub.present.reactionDesk.takeWaiting() {
            var added: [String: Int] = [:]
            for reaction in waiting { added[reaction.value, default: 0] += 1 }
            // Every reaction counts; the presenter's screen draws its fair share (`ReactionDesk.draw`).
            let drawn = await hub.present.reactionDesk.draw(waiting, of: key, nowMs: hub.clock.nowMs())
            let reactions = drawn.map { ReactionBatchJSON.Reaction(value: $0.value, time: $0.timeMs) }
            let isPostgres = hub.database.isPostgres
            do {
                let counts = try await hub.repositories.shows.addCounts(project: key.project, beaconName: key.beaconName, added) { db, counts in
                    guard isPostgres else { return }
                    for start in stride(from: 0, to: reactions.count, by: Self.reactionsPerNotification) {
                        let chunk = Array(reactions[start..<min(start + Self.reactionsPerNotification, reactions.count)])
                        let payload = ChangeFeed.payload(project: key.project, beaconName: key.beaconName) + "\n"
                            + String(decoding: try JSONText.encode(ReactionBatchJSON(reactions: chunk, counts: counts)), as: UTF8.self)
                        try await db.raw("SELECT pg_notify(\(bind: ChangeNotifier.reactionsChannel), \(bind: payload))").run()
                    }
                }
                guard let counts, !isPostgres else { continue }
                let batch = try JSONText.encode(ReactionBatchJSON(reactions: reactions, counts: counts))
                hub.present.showFeed.sendToPresenters(key, ShowFeed.event("reactions", json: batch))
            } catch {
                hub.logger.warning("reactions: a batch of \(waiting.count) for \(key.beaconName) was lost: \(HubDatabase.describe(error))")
            }
        }
    }

    /// A reaction batch NOTIFYed by any instance: to this instance's presenters of that show.
    static func deliver(reactionPayload payload: String, to feed: ShowFeed) {
        let parts = payload.split(separator: "\n", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count == 3 else { return }
        feed.sendToPresenters(ShowFeed.Key(project: String(parts[0]), beaconName: String(parts[1])),
                              ShowFeed.event("reactions", json: Data(parts[2].utf8)))
    }

    func reportFollowers(nowMs: Int64) async {
        let due = await hub.present.followerReports.due(hub.present.showFeed.followersByShow(), nowMs: nowMs,
                                               refreshMs: Self.followersRefreshMilliseconds)
        guard !due.isEmpty else { return }
        do {
            try await hub.repositories.shows.recordFollowers(instance: hub.instanceID,
                                                due.map { (project: $0.key.project, beaconName: $0.key.beaconName, followers: $0.value) })
            // Presenters everywhere see the new count: a show "change" that followers skip
            // (what they see did not change).
            for key in due.keys {
                if hub.database.isPostgres {
                    try await hub.database.read { db in
                        try await db.raw("""
                            SELECT pg_notify(\(bind: ChangeNotifier.showsChannel), \(bind: ChangeFeed.payload(project: key.project, beaconName: key.beaconName)))
                            """).run()
                    }
                } else {
                    hub.present.showFeed.changed(project: key.project, beaconName: key.beaconName)
                }
            }
        } catch {
            hub.logger.warning("shows: recording follower counts failed: \(HubDatabase.describe(error))")
        }
    }
}
