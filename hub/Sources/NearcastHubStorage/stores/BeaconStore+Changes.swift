import NearcastHub
import SQLKit

/// The database's side of `BeaconChanges`: the rows whose `change_seq` is past a number, read
/// when the database's `ChangeSignal` moved.
extension BeaconStore: BeaconChanges {
    var signal: ChangeSignal { database.changes }

    func changed(after seq: Int64) async throws -> ChangedBeacons {
        try await database.read { db in
            let beacons = try await db.raw("""
                SELECT \(unsafeRaw: Beacon.columns) FROM beacons WHERE change_seq > \(bind: seq) ORDER BY change_seq
                """).all().map(Beacon.init(row:))
            guard !beacons.isEmpty else { return ChangedBeacons(beacons: [], attachments: [:]) }
            var attachments: [String: [Attachment]] = [:]
            let rows = try await db.raw("""
                SELECT a.project AS project, a.beacon_name AS beacon_name, a.attachment_id AS attachment_id,
                       a.namespaced_type AS namespaced_type, a.data AS data, a.created_ms AS created_ms
                FROM attachments a JOIN beacons b ON a.project = b.project AND a.beacon_name = b.beacon_name
                WHERE b.change_seq > \(bind: seq) AND b.status = 'ACTIVE'
                ORDER BY a.change_seq
                """).all()
            for row in rows {
                let project = try row.decode(column: "project", as: String.self)
                let record = try AttachmentStore.record(row: row)
                attachments[ChangedBeacons.key(project, record.beaconName), default: []].append(record)
            }
            return ChangedBeacons(beacons: beacons, attachments: attachments)
        }
    }
}
