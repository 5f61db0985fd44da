import Foundation
import NearcastCore
import NearcastHub
import SQLKit

/// Attachments `{namespacedType, data}` on a project's beacons.
struct AttachmentStore: Sendable {
    let database: HubDatabase
    let notifier: ChangeNotifier
    let clock: HubClock

    func add(_ beacon: BeaconRef, namespacedType: String, data: String) async throws -> Attachment {
        let (project, beaconName) = (beacon.project, beacon.beaconName)
        var generator = SystemRandomNumberGenerator()
        let id = Hex.format(UInt64.random(in: 0...UInt64.max, using: &generator), byteCount: 8)
        let record = Attachment(beaconName: beaconName, attachmentID: id, namespacedType: namespacedType, data: data,
                            createdMs: clock.nowMs())
        try await database.transaction { db in
            // The counter first: its row lock orders this after any delete of the beacon that
            // is committing, so the check below sees it.
            let seq = try await ChangeCounter.next(db)
            try await Self.requireBeacon(db, project: project, beaconName: beaconName)
            try await Self.touchBeacon(db, project: project, beaconName: beaconName, seq: seq)
            try await db.raw("""
                INSERT INTO attachments (project, beacon_name, attachment_id, namespaced_type, data, created_ms, change_seq)
                VALUES (\(bind: project), \(bind: beaconName), \(bind: id), \(bind: namespacedType), \(bind: data),
                        \(bind: record.createdMs), \(bind: seq))
                """).run()
            try await notifier.announce(db, BeaconRef(project: project, beaconName: beaconName))
        }
        notifier.committed(BeaconRef(project: project, beaconName: beaconName))
        return record
    }

    /// The beacon's attachments, oldest first, those matching `filter` only.
    func list(_ beacon: BeaconRef, filter: NamespacedTypeFilter) async throws -> [Attachment] {
        let (project, beaconName) = (beacon.project, beacon.beaconName)
        return try await database.read { db in
            try await Self.requireBeacon(db, project: project, beaconName: beaconName)
            return try await db.raw("""
                SELECT beacon_name, attachment_id, namespaced_type, data, created_ms FROM attachments
                WHERE project = \(bind: project) AND beacon_name = \(bind: beaconName)
                ORDER BY change_seq
                """).all().map(Self.record(row:)).filter { filter.matches($0.namespacedType) }
        }
    }

    /// Deletes one attachment, or (with no id) all of the beacon's that match `filter`; returns
    /// how many went.
    func delete(_ beacon: BeaconRef, attachmentID: String?, filter: NamespacedTypeFilter) async throws -> Int {
        let (project, beaconName) = (beacon.project, beacon.beaconName)
        let deleted = try await database.transaction { db in
            let seq = try await ChangeCounter.next(db)
            try await Self.requireBeacon(db, project: project, beaconName: beaconName)
            let rows = try await db.raw("""
                SELECT attachment_id, namespaced_type FROM attachments WHERE project = \(bind: project) AND beacon_name = \(bind: beaconName)
                """).all()
            var doomed: [String] = []
            for row in rows {
                let id = try row.decode(column: "attachment_id", as: String.self)
                let type = try row.decode(column: "namespaced_type", as: String.self)
                let chosen = attachmentID.map { $0 == id } ?? filter.matches(type)
                if chosen { doomed.append(id) }
            }
            if let attachmentID, doomed.isEmpty {
                throw APIError.notFound("\(beaconName)/attachments/\(attachmentID)")
            }
            guard !doomed.isEmpty else { return 0 }
            try await Self.touchBeacon(db, project: project, beaconName: beaconName, seq: seq)
            for id in doomed {
                try await db.raw("""
                    DELETE FROM attachments WHERE project = \(bind: project) AND beacon_name = \(bind: beaconName) AND attachment_id = \(bind: id)
                    """).run()
            }
            try await notifier.announce(db, BeaconRef(project: project, beaconName: beaconName))
            return doomed.count
        }
        if deleted > 0 { notifier.committed(BeaconRef(project: project, beaconName: beaconName)) }
        return deleted
    }

    /// The beacon's row takes the change's number too: the beacon directory reads "beacons
    /// changed since N", and a deleted attachment leaves no row of its own to be found by.
    private static func touchBeacon(_ db: any SQLDatabase, project: String, beaconName: String, seq: Int64) async throws {
        try await db.raw("""
            UPDATE beacons SET change_seq = \(bind: seq) WHERE project = \(bind: project) AND beacon_name = \(bind: beaconName)
            """).run()
    }

    private static func requireBeacon(_ db: any SQLDatabase, project: String, beaconName: String) async throws {
        let found = try await db.raw("""
            SELECT beacon_name FROM beacons WHERE project = \(bind: project) AND beacon_name = \(bind: beaconName) AND status = 'ACTIVE'
            """).first()
        guard found != nil else { throw APIError.notFound(beaconName) }
    }

    /// An attachment row (`beacon_name, attachment_id, namespaced_type, data, created_ms`).
    static func record(row: any SQLRow) throws -> Attachment {
        Attachment(beaconName: try row.decode(column: "beacon_name", as: String.self),
               attachmentID: try row.decode(column: "attachment_id", as: String.self),
               namespacedType: try row.decode(column: "namespaced_type", as: String.self),
               data: try row.decode(column: "data", as: String.self),
               createdMs: try row.decode(column: "created_ms", as: Int64.self))
    }
}

extension AttachmentStore: AttachmentRepository {}
