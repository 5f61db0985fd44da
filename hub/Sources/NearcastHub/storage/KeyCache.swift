import NIOConcurrencyHelpers

/// Keys recently checked, and what they grant, for a few seconds: every request names its key,
/// and at a thousand reactions a second the key's lookup would be a thousand database reads.
/// Keys are never changed in place (a project's keys are made once), so a short cache only
/// delays the refusal of a project deleted by hand. Unknown keys are cached too, so guessing
/// costs no reads; the table is bounded.
final class KeyCache: Sendable {
    static let maximumAgeMs: Int64 = 10_000
    static let maximumEntries = 10_000

    private let entries = NIOLockedValueBox([String: (access: ProjectStore.Access?, readMs: Int64)]())

    /// The cached answer for a key's hash, if fresh: `.some(nil)` is "no project has it".
    func lookup(_ hash: String, nowMs: Int64) -> ProjectStore.Access?? {
        entries.withLockedValue { table in
            guard let entry = table[hash], nowMs - entry.readMs < Self.maximumAgeMs else { return nil }
            return .some(entry.access)
        }
    }

    func store(_ hash: String, _ access: ProjectStore.Access?, nowMs: Int64) {
        entries.withLockedValue { table in
            if table.count >= Self.maximumEntries {
                table = table.filter { nowMs - $0.value.readMs < Self.maximumAgeMs }
                if table.count >= Self.maximumEntries { table.removeAll(keepingCapacity: true) }
            }
            table[hash] = (access, nowMs)
        }
    }
}
