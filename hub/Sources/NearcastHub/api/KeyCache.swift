import NIOConcurrencyHelpers

/// Keys recently checked, and what they grant, for a second: every request names its key, and
/// at a thousand reactions a second the key's lookup would be a thousand database reads; one a
/// second is nothing. A key rotation (`nearcast-hub project rotate-keys`) clears it on every
/// instance at once on PostgreSQL (NOTIFY); a hub on SQLite sees it within the second. Unknown
/// keys are cached too, so guessing costs no reads; the table is bounded.
///
/// When a key's second is up, the requests that name it at that moment (a room's phones all
/// following a show behind one NAT) share one read (`read`), and a key that was a project's
/// within the last minutes is read again without spending the address's key-lookup budget,
/// which is there for made-up keys: a room arriving together is never counted as keyless.
package final class KeyCache: Sendable {
    static let maximumAgeMs: Int64 = 1_000
    /// A key found to be a project's is re-read without spending the lookup budget for this long.
    static let knownForMs: Int64 = 10 * 60_000
    static let maximumEntries = 10_000

    /// What `read` found: the project's access (`nil`: no project has the key), or that the
    /// address's lookup budget was spent and the key was not looked up.
    enum Answer: Sendable {
        case read(Access?)
        case notLookedUp
    }

    private let entries = NIOLockedValueBox([String: (access: Access?, readMs: Int64)]())
    private let reading = NIOLockedValueBox([String: Task<Access?, any Error>]())

    /// The cached answer for a key's hash, if fresh: `.some(nil)` is "no project has it".
    func lookup(_ hash: String, nowMs: Int64) -> Access?? {
        entries.withLockedValue { table in
            guard let entry = table[hash], nowMs - entry.readMs < Self.maximumAgeMs else { return nil }
            return .some(entry.access)
        }
    }

    /// The key's answer from the database, read once for all the requests that ask while it is
    /// read. Only a request that starts a read of a key not known lately asks `admit` (the
    /// address's lookup budget); a database error is thrown to every request that shared the read.
    func read(_ hash: String, nowMs: Int64, admit: () -> Bool,
              from database: @escaping @Sendable () async throws -> Access?) async throws -> Answer {
        let known = entries.withLockedValue { table in
            table[hash].map { $0.access != nil && nowMs - $0.readMs < Self.knownForMs } ?? false
        }
        let shared: Task<Access?, any Error>? = reading.withLockedValue { $0[hash] }
        if let shared { return .read(try await shared.value) }
        guard known || admit() else { return .notLookedUp }
        let (task, started) = reading.withLockedValue { table -> (Task<Access?, any Error>, Bool) in
            if let running = table[hash] { return (running, false) }
            let task = Task { try await database() }
            table[hash] = task
            return (task, true)
        }
        guard started else { return .read(try await task.value) }
        defer { _ = reading.withLockedValue { $0.removeValue(forKey: hash) } }
        let access = try await task.value
        store(hash, access, nowMs: nowMs)
        return .read(access)
    }

    func store(_ hash: String, _ access: Access?, nowMs: Int64) {
        entries.withLockedValue { table in
            if table.count >= Self.maximumEntries {
                table = table.filter { nowMs - $0.value.readMs < ($0.value.access == nil ? Self.maximumAgeMs : Self.knownForMs) }
                if table.count >= Self.maximumEntries { table.removeAll(keepingCapacity: true) }
            }
            table[hash] = (access, nowMs)
        }
    }

    /// Forgets every key (a rotation).
    package func clear() {
        entries.withLockedValue { $0.removeAll(keepingCapacity: true) }
    }
}
