import NearcastHub
import SQLKit

/// Registered beacons, always within one project: every query names the project, so a project
/// never sees another's beacons, even one advertising the same id.
struct BeaconStore: Sendable {
    let database: HubDatabase
    let notifier: ChangeNotifier

    /// Registers a beacon. An active beacon of the same name is a conflict; a deleted one is
    /// registered afresh (its old attachments went with it).
    func register(_ record: Beacon) async throws -> Beacon {
        try await database.transaction { db in
            // The counter first: it serialises writers, so two registrations of one name
            // cannot both see it free.
            var stored = record
            stored.changeSeq = try await ChangeCounter.next(db)
            let existing = try await db.raw("""
                SELECT status FROM beacons WHERE project = \(bind: record.project) AND beacon_name = \(bind: record.beaconName)
                """).first()
            if let existing, try existing.decode(column: "status", as: String.self) == "ACTIVE" {
                throw APIError(.conflict, "\(record.beaconName) is already registered in this project", field: "advertisedId")
            }
            if existing != nil {
                try await db.raw("DELETE FROM beacons WHERE project = \(bind: record.project) AND beacon_name = \(bind: record.beaconName)").run()
            }
            // A UID's key and clock columns stay NULL; so do the heartbeat's, until the box's first.
            let eid = stored.eidRegistration
            try await db.raw("""
                INSERT INTO beacons (\(unsafeRaw: Beacon.columns)) VALUES (
                    \(bind: stored.project), \(bind: stored.beaconName), \(bind: stored.kind.rawValue),
                    \(bind: stored.advertisedIDHex), \(bind: eid?.identityKeyHex), \(bind: eid?.beaconPublicKey),
                    \(bind: eid?.exponent), \(bind: eid?.clock.value), \(bind: eid?.clock.atMs),
                    \(bind: stored.description), 'ACTIVE', \(bind: stored.createdMs), NULL, NULL, \(bind: stored.changeSeq))
                """).run()
            try await notifier.announce(db, BeaconRef(project: stored.project, beaconName: stored.beaconName))
            return stored
        }
    }

    func list(project: String) async throws -> [Beacon] {
        try await database.read { db in
            try await db.raw("""
                SELECT \(unsafeRaw: Beacon.columns) FROM beacons
                WHERE project = \(bind: project) AND status = 'ACTIVE' ORDER BY created_ms, beacon_name
                """).all().map(Beacon.init(row:))
        }
    }

    func get(_ beacon: BeaconRef) async throws -> Beacon {
        let (project, beaconName) = (beacon.project, beacon.beaconName)
        let record = try await database.read { db in
            try await db.raw("""
                SELECT \(unsafeRaw: Beacon.columns) FROM beacons
                WHERE project = \(bind: project) AND beacon_name = \(bind: beaconName) AND status = 'ACTIVE'
                """).first().map(Beacon.init(row:))
        }
        guard let record else { throw APIError.notFound(beaconName) }
        return record
    }

    /// A UID or direct token the project registered, by its hex id.
    func find(project: String, kind: Beacon.Kind, idHex: String) async throws -> Beacon? {
        try await database.read { db in
            try await db.raw("""
                SELECT \(unsafeRaw: Beacon.columns) FROM beacons
                WHERE project = \(bind: project) AND advertised_type = \(bind: kind.rawValue)
                  AND advertised_id = \(bind: idHex) AND status = 'ACTIVE'
                """).first().map(Beacon.init(row:))
        }
    }

    /// Deletes a beacon and its attachments. The row stays, marked DELETED and without its
    /// identity key, so every instance's resolver cache learns of the deletion.
    func delete(_ beacon: BeaconRef) async throws {
        let (project, beaconName) = (beacon.project, beacon.beaconName)
        try await database.transaction { db in
            let seq = try await ChangeCounter.next(db)
            let found = try await db.raw("""
                SELECT status FROM beacons WHERE project = \(bind: project) AND beacon_name = \(bind: beaconName) AND status = 'ACTIVE'
                """).first()
            guard found != nil else { throw APIError.notFound(beaconName) }
            try await db.raw("DELETE FROM attachments WHERE project = \(bind: project) AND beacon_name = \(bind: beaconName)").run()
            try await db.raw("""
                UPDATE beacons SET status = 'DELETED', identity_key = NULL, change_seq = \(bind: seq)
                WHERE project = \(bind: project) AND beacon_name = \(bind: beaconName)
                """).run()
            try await notifier.announce(db, BeaconRef(project: project, beaconName: beaconName))
        }
        notifier.committed(BeaconRef(project: project, beaconName: beaconName))
    }

    /// Keeps what the box reported, and (for an EID with a clock value) re-anchors its clock.
    func recordHeartbeat(_ beacon: BeaconRef, heartbeatJSON: String, clockValue: UInt32?, boxName: String?,
                         atMs: Int64) async throws {
        let (project, beaconName) = (beacon.project, beacon.beaconName)
        try await database.transaction { db in
            let found = try await db.raw("""
                SELECT advertised_type, description FROM beacons WHERE project = \(bind: project) AND beacon_name = \(bind: beaconName) AND status = 'ACTIVE'
                """).first()
            guard let found else { throw APIError.notFound(beaconName) }
            if let clockValue, try found.decode(column: "advertised_type", as: String.self) == Beacon.Kind.eid.rawValue {
                let seq = try await ChangeCounter.next(db)
                try await db.raw("""
                    UPDATE beacons SET heartbeat = \(bind: heartbeatJSON), heartbeat_ms = \(bind: atMs),
                        clock_value = \(bind: Int64(clockValue)), clock_at_ms = \(bind: atMs), change_seq = \(bind: seq)
                    WHERE project = \(bind: project) AND beacon_name = \(bind: beaconName)
                    """).run()
            } else {
                try await db.raw("""
                    UPDATE beacons SET heartbeat = \(bind: heartbeatJSON), heartbeat_ms = \(bind: atMs)
                    WHERE project = \(bind: project) AND beacon_name = \(bind: beaconName)
                    """).run()
            }
            if let boxName, !boxName.isEmpty, try found.decode(column: "description", as: String?.self) != boxName {
                // The venue's name for the box (its room) is what operators and presenters see;
                // a new change number, so every instance's directory reads it again.
                let seq = try await ChangeCounter.next(db)
                try await db.raw("""
                    UPDATE beacons SET description = \(bind: boxName), change_seq = \(bind: seq)
                    WHERE project = \(bind: project) AND beacon_name = \(bind: beaconName)
                    """).run()
            }
        }
    }
}

extension BeaconStore: BeaconRepository {}
