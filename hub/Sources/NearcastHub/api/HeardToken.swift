import NearcastCore

/// A token a listener heard, resolved to the caller's beacon: getforobserved's lookup, and the
/// proof of presence a reaction carries.
enum HeardToken {
    /// What a heard token resolved to. `epochsBehind` is how many rotation periods the heard EID
    /// is behind the beacon's current one (0 for the current period, 1 for the one before; always
    /// 0 for a UID, which does not rotate); `epochsAhead` how many ahead of it (a box whose
    /// clock ran a little fast since its last heartbeat is 1 ahead at most).
    struct Resolution: Sendable {
        var beaconName: String
        var kind: Beacon.Kind
        var epochsBehind: Int64
        var epochsAhead: Int64 = 0
    }
}
