import NIOConcurrencyHelpers

/// The passes given for each show's code in the last pass lifetime, in memory
/// (`MemoryVenueRepository`; the database keeps the venue's in `code_passes`): what the
/// presenter's cap on joining by code counts, apart from the phones that heard the box (which
/// need no pass).
final class CodePassLedger: Sendable {
    /// Passes given by code at least this many, whatever the share: the first phones of a show
    /// that cannot hear it may always join.
    static let floor = 5

    private let issued = NIOLockedValueBox([BeaconRef: [Int64]]())

    /// Records a pass for `key` at `nowMs` if fewer than `limit` were given in the last pass
    /// lifetime; false (nothing recorded) at the cap.
    func admit(_ key: BeaconRef, limit: Int, nowMs: Int64) -> Bool {
        issued.withLockedValue { table in
            var times = table[key, default: []].filter { nowMs - $0 < Presence.passMilliseconds }
            guard times.count < limit else {
                table[key] = times
                return false
            }
            times.append(nowMs)
            table[key] = times
            return true
        }
    }

    /// Passes given for `key`'s code in the last pass lifetime.
    func count(_ key: BeaconRef, nowMs: Int64) -> Int {
        issued.withLockedValue { $0[key, default: []].filter { nowMs - $0 < Presence.passMilliseconds }.count }
    }

    /// The cap for a show followed by `followers` phones that lets `share` % of them join by code.
    static func limit(followers: Int, share: Int) -> Int { floor + followers * share / 100 }
}
