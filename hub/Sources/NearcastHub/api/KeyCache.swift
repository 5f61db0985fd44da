import NIOConcurrencyHelpers

/// Keys recently checked, and what they grant, for a second: every request names its key, and
/// at a thousand reactions a second the key's lookup would be a thousand database reads; one a
/// second is nothing. A key rotation (`nearcast-hub project rotate-keys`) clears it on every
/// instance at once on PostgreSQL (NOTIFY); a hub on SQLite sees it within the second. Unknown
/// keys are cached too, so guessing costs no reads; the table is bounded.
package final class KeyCache: Sendable {
    static let maximumAgeMs: Int64 = 1_000
    static let maximumEntries = 10_000

    private let entries = NIOLockedValueBox([String: (access: Access?, readMs: Int64)]())

    /// The cached answer for a key's hash, if fresh: `.some(nil)` is "no project has it".
    func lookup(_ hash: String, nowMs: Int64) -> Access?? {
        entries.withLockedValue { table in
            guard let entry = table[hash], nowMs - entry.readMs < Self.maximumAgeMs else { return nil }
            return .some(entry.access)
        }
    }

    func store(_ hash: String, _ access: Access?, nowMs: Int64) {
        entries.withLockedValue { table in
            if table.count >= Self.maximumEntries {
                table = table.filter { nowMs - $0.value.readMs < Self.maximumAgeMs }
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
