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
        let key = beacon, id = UUID()
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

    package func publish(_ beacon: BeaconRef) {
        advance()
        let waiting = subscribers.withLockedValue { Array(($0[beacon] ?? [:]).values) }
        for continuation in waiting { continuation.yield() }
    }

    /// After a gap in notifications (the LISTEN connection was lost): every watcher re-reads.
    package func publishAll() {
        advance()
        let waiting = subscribers.withLockedValue { $0.values.flatMap { $0.values } }
        for continuation in waiting { continuation.yield() }
    }

    /// Ends every watch (shutdown).
    package func finishAll() {
        let waiting = subscribers.withLockedValue { $0.values.flatMap { $0.values } }
        for continuation in waiting { continuation.finish() }
    }
}
