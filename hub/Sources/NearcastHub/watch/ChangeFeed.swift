import Foundation
import NIOConcurrencyHelpers

/// Tells this instance's watchers that a beacon's attachments changed.
///
/// Watchers subscribe per beacon and receive a bare "changed" signal; they re-read the beacon's
/// attachments from the database, once for all of them (`WatchEvents`, keyed by the feed's
/// generation, which every signal advances), so a burst of changes costs one read and nothing is
/// ever shown that was not committed. On SQLite (one instance) the writer signals after commit; on
/// PostgreSQL every instance, the writer included, is signalled by LISTEN/NOTIFY
/// (`PostgresChangeListener`), so a change made through any hub reaches every follower.
public final class ChangeFeed: Sendable {

    private let subscribers = NIOLockedValueBox([BeaconRef: [UUID: AsyncStream<Void>.Continuation]]())
    private let generations = NIOLockedValueBox(UInt64(0))
    /// The encoded attachments shared by the watchers of each beacon.
    let events = WatchEvents()

    public init() {}

    /// Advanced before every signal: a watcher woken by a signal reads at least this.
    var generation: UInt64 { generations.withLockedValue { $0 } }

    private func advance() { generations.withLockedValue { $0 += 1 } }

    /// The number of open watches (the status page and metrics show it).
    public var watchCount: Int { subscribers.withLockedValue { $0.values.reduce(0) { $0 + $1.count } } }

    /// A stream that yields whenever the beacon's attachments may have changed; it ends when the
    /// consumer stops iterating.
    func subscribe(_ beacon: BeaconRef) -> AsyncStream<Void> {
        let (project, beaconName) = (beacon.project, beacon.beaconName)
        let key = BeaconRef(project: project, beaconName: beaconName), id = UUID()
        // Only the latest signal matters: a watcher that is slow to read skips to the newest state.
        let (stream, continuation) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        subscribers.withLockedValue { $0[key, default: [:]][id] = continuation }
        continuation.onTermination = { [weak self] _ in
            let last = self?.subscribers.withLockedValue { table in
                table[key]?[id] = nil
                if table[key]?.isEmpty == true { table[key] = nil; return true }
                return false
            }
            if last == true { self?.events.forget(key) }
        }
        return stream
    }

    func publish(_ beacon: BeaconRef) {
        let (project, beaconName) = (beacon.project, beacon.beaconName)
        advance()
        let waiting = subscribers.withLockedValue { Array(($0[BeaconRef(project: project, beaconName: beaconName)] ?? [:]).values) }
        for continuation in waiting { continuation.yield() }
    }

    /// After a gap in notifications (the LISTEN connection was lost): every watcher re-reads.
    func publishAll() {
        advance()
        let waiting = subscribers.withLockedValue { $0.values.flatMap { $0.values } }
        for continuation in waiting { continuation.yield() }
    }

    /// Ends every watch (shutdown).
    func finishAll() {
        let waiting = subscribers.withLockedValue { $0.values.flatMap { $0.values } }
        for continuation in waiting { continuation.finish() }
    }

    /// The NOTIFY payload for a beacon, and back.
    static func payload(_ beacon: BeaconRef) -> String { beacon.project + "\n" + beacon.beaconName }
    static func parse(payload: String) -> (project: String, beaconName: String)? {
        let parts = payload.split(separator: "\n", maxSplits: 1)
        return parts.count == 2 ? (String(parts[0]), String(parts[1])) : nil
    }
}
