import NearcastHub
import SQLKit

/// The rooms' reach in the database (`ReachRepository`, table `reach_counts`): a row per project,
/// day, box, kind of phone and way in, its counts added to by an upsert per row a report touches
/// (one, or two when the visit moved: its new row and the one its earlier report counted in).
struct ReachStore: Sendable {
    let database: HubDatabase

    private static let keyColumns = "project, day, beacon_name, browser, platform, joined_by"
    private static let countColumns = ReachCounts.columns.joined(separator: ", ")

    func add(project: String, box: String?, _ rows: [ReachRow]) async throws {
        try await database.transaction { db in
            try await ActiveBeacon.require(db, project: project, beaconName: box)
            // In key order (ReachRow.merged): two instances adding to the same rows lock them alike.
            for row in rows {
                let key = row.key
                let values = row.counts.values.map { SQLQueryString("\(bind: $0)") }
                let sums = ReachCounts.columns.map { "\($0) = reach_counts.\($0) + excluded.\($0)" }.joined(separator: ", ")
                try await db.raw("""
                    INSERT INTO reach_counts (\(unsafeRaw: Self.keyColumns), \(unsafeRaw: Self.countColumns))
                    VALUES (\(bind: project), \(bind: key.day), \(bind: key.beaconName), \(bind: key.browser), \(bind: key.platform), \
                    \(bind: key.joinedBy.rawValue), \(values.joined(separator: ", ")))
                    ON CONFLICT (\(unsafeRaw: Self.keyColumns)) DO UPDATE SET \(unsafeRaw: sums)
                    """).run()
            }
        }
    }

    func rows(project: String, fromDay: Int64) async throws -> [ReachRow] {
        try await database.read { db in
            try await db.raw("""
                SELECT day, beacon_name, browser, platform, joined_by, \(unsafeRaw: Self.countColumns) FROM reach_counts
                WHERE project = \(bind: project) AND day >= \(bind: fromDay)
                """).all().compactMap(Self.row(_:))
        }
    }

    func deleteDays(before day: Int64) async throws -> Int {
        try await database.transaction { db in
            let old = try await db.raw("SELECT COUNT(*) AS n FROM reach_counts WHERE day < \(bind: day)").first()
            try await db.raw("DELETE FROM reach_counts WHERE day < \(bind: day)").run()
            return try old?.decode(column: "n", as: Int.self) ?? 0
        }
    }

    /// A row as stored; nil for a way in this hub does not know (a newer hub's, on a shared database).
    private static func row(_ row: any SQLRow) throws -> ReachRow? {
        guard let joined = ReachJoin(rawValue: try row.decode(column: "joined_by", as: String.self)),
              let counts = ReachCounts(values: try ReachCounts.columns.map { try row.decode(column: $0, as: Int64.self) })
        else { return nil }
        let key = ReachRowKey(beaconName: try row.decode(column: "beacon_name", as: String.self), day: try row.decode(column: "day", as: Int64.self),
                              platform: try row.decode(column: "platform", as: String.self),
                              browser: try row.decode(column: "browser", as: String.self), joinedBy: joined)
        return ReachRow(key: key, counts: counts)
    }
}

extension ReachStore: ReachRepository {}
