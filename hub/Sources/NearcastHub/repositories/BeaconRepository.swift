/// A project's registered beacons as the beacon API sees them. `BeaconStore` keeps them in the
/// database (where the resolvers read them too); `MemoryBeaconRepository` in memory, for router
/// tests. Every call names the project: another project's beacon is a 404.
package protocol BeaconRepository: Sendable {
    /// Registers one; 409 while an active beacon has its name.
    func register(_ record: Beacon) async throws -> Beacon
    /// The project's active beacons, oldest first.
    func list(project: String) async throws -> [Beacon]
    func get(_ beacon: BeaconRef) async throws -> Beacon
    /// Deletes it and its attachments.
    func delete(_ beacon: BeaconRef) async throws
    /// Keeps what the box reported; for an EID with a clock value, re-anchors its clock.
    func recordHeartbeat(_ beacon: BeaconRef, heartbeatJSON: String, clockValue: UInt32?, boxName: String?,
                         atMs: Int64) async throws
}
