import NIOConcurrencyHelpers
import NIOCore

/// One read and one encoding per change of a beacon's attachments, shared by every watcher of
/// it: the first watcher woken by a change starts the read, the others wait for the same one.
/// (2,000 watchers once made one change cost 2,000 reads through the one SQLite connection:
/// 1.5 s to deliver, and every resolve waited behind them.)
///
/// An entry is good for the feed generation it was started at and before: a watcher woken by a
/// newer change starts a new read. The entries of a beacon go when its last watcher does.
final class WatchEvents: Sendable {
    /// What a watcher sends next.
    enum Event: Sendable {
        case attachments(ByteBuffer)
        /// The beacon is gone.
        case deleted
    }

    struct Key: Hashable, Sendable {
        var beacon: BeaconRef
        /// The watch's `namespacedType` filter as given ("" for all).
        var filter: String
    }

    private let entries = NIOLockedValueBox([Key: (generation: UInt64, task: Task<Event, any Error>)]())

    /// The event for `key` as of `generation` or later, read by `read` only if no watcher has
    /// started a read that recent.
    func event(_ key: Key, generation: UInt64, read: @escaping @Sendable () async throws -> Event) async throws -> Event {
        let task = entries.withLockedValue { table in
            if let entry = table[key], entry.generation >= generation { return entry.task }
            let task = Task { try await read() }
            table[key] = (generation, task)
            return task
        }
        do {
            return try await task.value
        } catch {
            // A failed read is not kept: the next change (or watcher) tries again.
            entries.withLockedValue { table in
                if let entry = table[key], entry.generation == generation { table[key] = nil }
            }
            throw error
        }
    }

    /// The beacon has no watchers left: its entries go.
    func forget(_ beacon: BeaconRef) {
        entries.withLockedValue { table in
            table = table.filter { $0.key.beacon != beacon }
        }
    }

    /// Entries kept (for tests).
    var count: Int { entries.withLockedValue { $0.count } }
}
