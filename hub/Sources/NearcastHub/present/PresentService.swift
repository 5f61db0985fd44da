import Logging
import ServiceLifecycle

/// Present's background work, one loop per instance while it serves:
/// - every 150 ms, the reactions accepted since the last batch go out: counted on the show (and
///   by slide and minute, for the speakers' figures), their requests answered 202 once counted,
///   and sent to its presenters' streams
///   (`ShowRepository.addReactions`: through NOTIFY on PostgreSQL, so a presenter on another
///   instance gets them too);
/// - every 2 s, this instance's follower counts are recorded when they changed (every 10 s
///   regardless) and presenters are told (`ShowRepository.recordFollowers`);
/// - every 15 s, a keep-alive on every show stream.
struct PresentService: Service {
    static let batchMilliseconds: Int64 = 150
    static let followersEveryMilliseconds: Int64 = 2_000
    static let followersRefreshMilliseconds: Int64 = 10_000
    static let keepAliveMilliseconds: Int64 = 15_000

    let hub: HubServices

    func run() async throws {
        var lastFollowers: Int64 = 0, lastKeepAlive = hub.clock.nowMs()
        await hub.present.reactionDesk.writerStarted()
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
                hub.present.showFeed.keepAlive(nowMs: now)
            }
        }
        // The reactions admitted since the last batch are counted before the streams end (their
        // requests wait for it).
        await flushReactions()
        await hub.present.reactionDesk.writerStopped()
        hub.present.showFeed.finishAll()
    }

    func flushReactions() async {
        let desk = hub.present.reactionDesk
        let (batch, number) = await desk.takeBatch()
        for (key, waiting) in batch {
            let written: Bool
            // Every reaction counts, by its slide and minute, once a tap (`ReactionBatch`); the
            // presenter's screen draws its fair share (`ReactionDesk.draw`).
            let drawn = await hub.present.reactionDesk.draw(waiting, of: key, nowMs: hub.clock.nowMs())
            do {
                _ = try await hub.repositories.shows.addReactions(key, ReactionBatch(reactions: waiting.map(\.batchReaction),
                                                                                     drawn: drawn.map(\.batchReaction)))
                written = true
            } catch {
                // Each of them is answered 503, not 202: the phone may send it again.
                hub.logger.warning("reactions: a batch of \(waiting.count) for \(key.beaconName) was not counted: \(hub.backend.describe(error))")
                written = false
            }
            await desk.finished(.init(batch: number, show: key), written: written)
        }
    }

    func reportFollowers(nowMs: Int64) async {
        let due = await hub.present.followerReports.due(hub.present.showFeed.followersByShow(), nowMs: nowMs,
                                               refreshMs: Self.followersRefreshMilliseconds)
        guard !due.isEmpty else { return }
        do {
            try await hub.repositories.shows.recordFollowers(instance: hub.instanceID, due)
        } catch {
            hub.logger.warning("shows: recording follower counts failed: \(hub.backend.describe(error))")
        }
    }
}
