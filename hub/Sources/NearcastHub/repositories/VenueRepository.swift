/// What the room's rules count for the venue as a whole, not for one instance: which instances
/// are alive (each allows its share of the rates: `VenueShare`), the phones that earned an id by
/// hearing each show (the code's cap is a share of them), the passes given for each show's code,
/// and when each box was last heard (the presenter's hint). In the database every instance
/// shares them (on PostgreSQL in UNLOGGED tables: minutes' worth of counts that a crash of the
/// server may empty, and then they start again from none); in memory they are one instance's.
package protocol VenueRepository: Sendable {
    /// `instance` is alive at `nowMs`: answers how many instances are (seen within
    /// `VenueShare.aliveMilliseconds`, this one included).
    func heartbeat(instance: String, nowMs: Int64) async throws -> Int
    /// `instance` stops serving: the others stop counting it at once.
    func leave(instance: String) async throws
    /// `identity` (`PhoneIDs.Phone.identity`) earned an id by hearing the show on `show` started
    /// at `startedMs`.
    func recordHeardPhone(_ show: BeaconRef, startedMs: Int64, identity: String, nowMs: Int64) async throws
    /// The phones that earned an id by hearing that show.
    func heardPhones(_ show: BeaconRef, startedMs: Int64) async throws -> Int
    /// Records a pass for `show`'s code at `nowMs` if fewer than `limit` were given in the last
    /// pass lifetime (`Presence.passMilliseconds`); false, and nothing recorded, at the cap.
    func admitCodePass(_ show: BeaconRef, limit: Int, nowMs: Int64) async throws -> Bool
    /// The passes given for `show`'s code in the last pass lifetime.
    func codePasses(_ show: BeaconRef, nowMs: Int64) async throws -> Int
    /// When this instance's phones last heard each of `boxes`.
    func recordHeard(_ boxes: [BeaconRef: Int64]) async throws
    /// When any instance's phones last heard each box, of those heard since `sinceMs`.
    func heard(sinceMs: Int64) async throws -> [BeaconRef: Int64]
}

/// The venue's counts in memory: one instance's (router tests, the fuzzer).
struct MemoryVenueRepository: VenueRepository {
    let phones = ShowPhones()
    let passes = CodePassLedger()

    func heartbeat(instance: String, nowMs: Int64) async throws -> Int { 1 }
    func leave(instance: String) async throws {}
    func recordHeardPhone(_ show: BeaconRef, startedMs: Int64, identity: String, nowMs: Int64) async throws {
        phones.record(show, startedMs: startedMs, identity: identity)
    }
    func heardPhones(_ show: BeaconRef, startedMs: Int64) async throws -> Int { phones.heard(show, startedMs: startedMs) }
    func admitCodePass(_ show: BeaconRef, limit: Int, nowMs: Int64) async throws -> Bool { passes.admit(show, limit: limit, nowMs: nowMs) }
    func codePasses(_ show: BeaconRef, nowMs: Int64) async throws -> Int { passes.count(show, nowMs: nowMs) }
    // The instance's own `HeardBoxes` is all there is.
    func recordHeard(_ boxes: [BeaconRef: Int64]) async throws {}
    func heard(sinceMs: Int64) async throws -> [BeaconRef: Int64] { [:] }
}

/// How long the venue's counts matter, for the stores that keep them.
package enum VenueWindows {
    /// An instance counts as alive this long after its last heartbeat.
    package static var aliveMilliseconds: Int64 { VenueShare.aliveMilliseconds }
    /// A pass given for a code counts toward the cap this long.
    package static var passMilliseconds: Int64 { Presence.passMilliseconds }
    /// A phone that earned an id counts this long at most (the id's lifetime).
    package static var phoneMilliseconds: Int64 { PhoneIDs.challengeMilliseconds + PhoneIDs.idMilliseconds }
}
