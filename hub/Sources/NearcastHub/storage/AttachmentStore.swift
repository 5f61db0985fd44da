import Foundation
import NearcastCore
import SQLKit

/// Attachments `{namespacedType, data}` on a project's beacons.
struct AttachmentStore: Sendable {
    /// Nearby's limit on a message's content.
    static let maximumDataBytes = 100 * 1024

    struct Record: Sendable {
        var beaconName: String
        var attachmentID: String
        var namespacedType: String
        var data: String
        var createdMs: Int64

        var json: AttachmentJSON {
            AttachmentJSON(attachmentName: "\(beaconName)/attachments/\(attachmentID)", namespacedType: namespacedType,
                           data: data, creationTimeMs: HubClock.timestamp(ms: createdMs))
        }
    }

    let database: HubDatabase
    let notifier: ChangeNotifier
    let clock: HubClock

    func add(project: String, beaconName: String, namespacedType: String, data: String) async throws -> Record {
        var generator = SystemRandomNumberGenerator()
        let id = Hex.format(UInt64.random(in: 0...UInt64.max, using: &generator), byteCount: 8)
        let record = Record(beaconName: beaconName, attachmentID: id, namespacedType: namespacedType, data: data,
                            createdMs: clock.nowMs())
        try await database.transaction { db in
            // The counter first: its row lock orders this after any delete of the beacon that
            // is committing, so the check below sees it.
            let seq = try await ChangeCounter.next(db)
            try await Self.requireBeacon(db, project: project, beaconName: beaconName)
            try await db.raw("""
                INSERT INTO attachments (project, beacon_name, attachment_id, namespaced_type, data, created_ms, change_seq)
                VALUES (\(bind: project), \(bind: beaconName), \(bind: id), \(bind: namespacedType), \(bind: data),
                        \(bind: record.createdMs), \(bind: seq))
                """).run()
            try await notifier.announce(db, project: project, beaconName: beaconName)
        }
        notifier.committed(project: project, beaconName: beaconName)
        return record
    }

    /// The beacon's attachments, oldest first, those matching `filter` only.
    func list(project: String, beaconName: String, filter: NamespacedTypeFilter = .all) async throws -> [Record] {
        try await database.read { db in
            try await Self.requireBeacon(db, project: project, beaconName: beaconName)
            return try await db.raw("""
                SELECT beacon_name, attachment_id, namespaced_type, data, created_ms FROM attachments
                WHERE project = \(bind: project) AND beacon_name = \(bind: beaconName)
                ORDER BY change_seq
                """).all().map(Self.record(row:)).filter { filter.matches($0.namespacedType) }
        }
    }

    /// An active beacon's description and its attachments matching `filter`, in one query (the
    /// hot path of getforobserved); nil when the beacon is not there.
    func beaconWithAttachments(project: String, beaconName: String, filter: NamespacedTypeFilter)
        async throws -> (description: String?, attachments: [Record])? {
        let rows = try await database.read { db in
            try await db.raw("""
                SELECT b.description AS description, a.attachment_id AS attachment_id,
                       a.namespaced_type AS namespaced_type, a.data AS data, a.created_ms AS created_ms
                FROM beacons b LEFT JOIN attachments a ON a.project = b.project AND a.beacon_name = b.beacon_name
                WHERE b.project = \(bind: project) AND b.beacon_name = \(bind: beaconName) AND b.status = 'ACTIVE'
                ORDER BY a.change_seq
                """).all()
        }
        guard let first = rows.first else { return nil }
        let description = try first.decode(column: "description", as: String?.self)
        var attachments: [Record] = []
        for row in rows {
            guard let id = try row.decode(column: "attachment_id", as: String?.self) else { continue }
            let type = try row.decode(column: "namespaced_type", as: String.self)
            guard filter.matches(type) else { continue }
            attachments.append(Record(beaconName: beaconName, attachmentID: id, namespacedType: type,
                                      data: try row.decode(column: "data", as: String.self),
                                      createdMs: try row.decode(column: "created_ms", as: Int64.self)))
        }
        return (description, attachments)
    }

    /// Deletes one attachment, or (with no id) all of the beacon's that match `filter`; returns
    /// how many went.
    func delete(project: String, beaconName: String, attachmentID: String?, filter: NamespacedTypeFilter = .all) async throws -> Int {
        let deleted = try await database.transaction { db in
            _ = try await ChangeCounter.next(db)
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
            for id in doomed {
                try await db.raw("""
                    DELETE FROM attachments WHERE project = \(bind: project) AND beacon_name = \(bind: beaconName) AND attachment_id = \(bind: id)
                    """).run()
            }
            try await notifier.announce(db, project: project, beaconName: beaconName)
            return doomed.count
        }
        if deleted > 0 { notifier.committed(project: project, beaconName: beaconName) }
        return deleted
    }

    private static func requireBeacon(_ db: any SQLDatabase, project: String, beaconName: String) async throws {
        let found = try await db.raw("""
            SELECT beacon_name FROM beacons WHERE project = \(bind: project) AND beacon_name = \(bind: beaconName) AND status = 'ACTIVE'
            """).first()
        guard found != nil else { throw APIError.notFound(beaconName) }
    }

    private static func record(row: any SQLRow) throws -> Record {
        Record(beaconName: try row.decode(column: "beacon_name", as: String.self),
               attachmentID: try row.decode(column: "attachment_id", as: String.self),
               namespacedType: try row.decode(column: "namespaced_type", as: String.self),
               data: try row.decode(column: "data", as: String.self),
               createdMs: try row.decode(column: "created_ms", as: Int64.self))
    }
}
