/// One beacon of one project: how every part of the hub names a beacon (the repositories, the
/// show and watch feeds, the caches, the resolvers), so a beacon travels as one value, never as
/// a project and a name side by side.
package struct BeaconRef: Hashable, Sendable {
    package var project: String
    /// `beacons/3!HEX` or `beacons/4!HEX`.
    package var beaconName: String

    package init(project: String, beaconName: String) {
        self.project = project
        self.beaconName = beaconName
    }
}
