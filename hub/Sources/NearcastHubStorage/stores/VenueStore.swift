import NearcastHub
import SQLKit

/// The venue's counts in the database (`VenueRepository`; tables `hub_instances`, `show_phones`,
/// `code_passes`, `heard_boxes`, UNLOGGED on PostgreSQL): every instance on one database reads
/// and writes the same rows, so a rule counted here is the venue's. A pass for a code is
/// admitted under a transaction-scoped advisory lock on its show (on SQLite a write
/// transaction is alone anyway), so two instances at the cap cannot both give the last one.
struct VenueStore: Sendable {
    let database: HubDatabase

    /// Instances not heard from for this long are forgotten (the alive count looks back far less).
    static let forgetInstancesMilliseconds: Int64 = 60_000

    /// On SQLite, one instance's database (several processes on one file are not a venue's
    /// instances: tests run hubs of different settings so), the count is 1 and nothing is written;
    /// the old rows are still cleared.
    func heartbeat(instance: String, nowMs: Int64) async throws -> Int {
        let isPostgres = database.isPostgres
        return try await database.transaction { db in
            guard isPostgres else {
                try await Self.forgetOld(db, nowMs: nowMs)
                return 1
            }
            try await db.raw("""
                INSERT INTO hub_instances (instance, started_ms, seen_ms) VALUES (\(bind: instance), \(bind: nowMs), \(bind: nowMs))
                ON CONFLICT (instance) DO UPDATE SET seen_ms = excluded.seen_ms
                """).run()
            try await db.raw("DELETE FROM hub_instances WHERE seen_ms < \(bind: nowMs - Self.forgetInstancesMilliseconds)").run()
            try await Self.forgetOld(db, nowMs: nowMs)
            return try await db.raw("""
                SELECT COUNT(*) AS alive FROM hub_instances WHERE seen_ms >= \(bind: nowMs - VenueWindows.aliveMilliseconds)
                """).first()?.decode(column: "alive", as: Int.self) ?? 1
        }
    }

    /// Old counts go with the heartbeat: passes past their lifetime, phones past an id's, the
    /// receipts of taps counted more than ten minutes ago.
    private static func forgetOld(_ db: any SQLDatabase, nowMs: Int64) async throws {
        try await db.raw("DELETE FROM code_passes WHERE given_ms < \(bind: nowMs - VenueWindows.passMilliseconds)").run()
        try await db.raw("DELETE FROM show_phones WHERE recorded_ms < \(bind: nowMs - VenueWindows.phoneMilliseconds)").run()
        try await ReactionReceiptStore.forgetOld(db, nowMs: nowMs)
    }

    func leave(instance: String) async throws {
        try await database.read { db in try await db.raw("DELETE FROM hub_instances WHERE instance = \(bind: instance)").run() }
    }

    func recordHeardPhone(_ show: BeaconRef, startedMs: Int64, identity: String, nowMs: Int64) async throws {
        let (project, beaconName) = (show.project, show.beaconName)
        try await database.read { db in
            try await db.raw("""
                INSERT INTO show_phones (project, beacon_name, started_ms, identity, recorded_ms)
                VALUES (\(bind: project), \(bind: beaconName), \(bind: startedMs), \(bind: identity), \(bind: nowMs))
                ON CONFLICT (project, beacon_name, started_ms, identity) DO UPDATE SET recorded_ms = excluded.recorded_ms
                """).run()
        }
    }

    func heardPhones(_ show: BeaconRef, startedMs: Int64) async throws -> Int {
        let (project, beaconName) = (show.project, show.beaconName)
        return try await database.read { db in
            try await db.raw("""
                SELECT COUNT(*) AS phones FROM show_phones
                WHERE project = \(bind: project) AND beacon_name = \(bind: beaconName) AND started_ms = \(bind: startedMs)
                """).first()?.decode(column: "phones", as: Int.self) ?? 0
        }
    }

    func admitCodePass(_ show: BeaconRef, limit: Int, nowMs: Int64) async throws -> Bool {
        let (project, beaconName, isPostgres) = (show.project, show.beaconName, database.isPostgres)
        return try await database.transaction { db in
            if isPostgres {
                // Held to the end of the transaction: instances giving this show's passes take turns.
                try await db.raw("SELECT pg_advisory_xact_lock(hashtext(\(bind: "code_passes\n" + project + "\n" + beaconName)))").run()
            }
            let given = try await Self.passes(db, project: project, beaconName: beaconName, nowMs: nowMs)
            guard given < limit else { return false }
            try await db.raw("""
                INSERT INTO code_passes (project, beacon_name, given_ms) VALUES (\(bind: project), \(bind: beaconName), \(bind: nowMs))
                """).run()
            return true
        }
    }

    func codePasses(_ show: BeaconRef, nowMs: Int64) async throws -> Int {
        let (project, beaconName) = (show.project, show.beaconName)
        return try await database.read { db in try await Self.passes(db, project: project, beaconName: beaconName, nowMs: nowMs) }
    }

    private static func passes(_ db: any SQLDatabase, project: String, beaconName: String, nowMs: Int64) async throws -> Int {
        try await db.raw("""
            SELECT COUNT(*) AS given FROM code_passes
            WHERE project = \(bind: project) AND beacon_name = \(bind: beaconName) AND given_ms > \(bind: nowMs - VenueWindows.passMilliseconds)
            """).first()?.decode(column: "given", as: Int.self) ?? 0
    }

    func recordHeard(_ boxes: [BeaconRef: Int64]) async throws {
        // In key order: two instances writing the same rows lock them alike.
        let rows = boxes.sorted { ($0.key.project, $0.key.beaconName) < ($1.key.project, $1.key.beaconName) }
        try await database.transaction { db in
            for (box, heardMs) in rows {
                try await db.raw("""
                    INSERT INTO heard_boxes (project, beacon_name, heard_ms) VALUES (\(bind: box.project), \(bind: box.beaconName), \(bind: heardMs))
                    ON CONFLICT (project, beacon_name) DO UPDATE SET heard_ms =
                        CASE WHEN excluded.heard_ms > heard_boxes.heard_ms THEN excluded.heard_ms ELSE heard_boxes.heard_ms END
                    """).run()
            }
        }
    }

    func heard(sinceMs: Int64) async throws -> [BeaconRef: Int64] {
        try await database.read { db in
            var heard: [BeaconRef: Int64] = [:]
            for row in try await db.raw("SELECT project, beacon_name, heard_ms FROM heard_boxes WHERE heard_ms >= \(bind: sinceMs)").all() {
                heard[BeaconRef(project: try row.decode(column: "project", as: String.self),
                                beaconName: try row.decode(column: "beacon_name", as: String.self))] = try row.decode(column: "heard_ms", as: Int64.self)
            }
            return heard
        }
    }
}

extension VenueStore: VenueRepository {}
