import NearcastHub
import SQLKit

/// The box an anonymous report names (a field check's result, a visit's reach report) must be one
/// of the project's active beacons, read inside the report's own transaction.
enum ActiveBeacon {
    /// Nothing for no box; the 404 naming `beaconName` (`ReportFields.unknownBeacon`) for a box that
    /// is not one of the project's active beacons.
    static func require(_ db: any SQLDatabase, project: String, beaconName: String?) async throws {
        guard let beaconName else { return }
        let found = try await db.raw("""
            SELECT beacon_name FROM beacons
            WHERE project = \(bind: project) AND beacon_name = \(bind: beaconName) AND status = 'ACTIVE'
            """).first()
        guard found != nil else { throw ReportFields.unknownBeacon(beaconName) }
    }
}
