/// One beacon of one project: how every part of the hub names a beacon (the repositories, the
/// show and watch feeds, the caches, the resolvers), so a beacon travels as one value, never as
/// a project and a name side by side.
struct BeaconRef: Hashable, Sendable {
    var project: String
    /// `beacons/3!HEX` or `beacons/4!HEX`.
    var beaconName: String
}
