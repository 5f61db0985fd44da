import NearcastHub
import SQLKit

/// The shows' reactions by slide and minute in the database (`ReactionTallyRepository`, table
/// `reaction_tallies`). `ShowStore.addReactions` adds each batch inside its own transaction, so a
/// batch counts in the show's totals and here, or in neither.
struct ReactionTallyStore: Sendable {
    /// Rows per INSERT: a batch is a handful of rows, but a statement's parameters stay well under
    /// SQLite's limit (32,766) however many there are.
    static let rowsPerStatement = 200

    let database: HubDatabase

    /// Adds `tallied` to the show's rows: one upsert per `rowsPerStatement` rows, never one per
    /// reaction. The rows come in key order (`ReactionTally.tallied`), which two instances adding
    /// to the same rows at once on PostgreSQL then lock in the same order.
    static func add(_ db: any SQLDatabase, _ show: BeaconRef, _ tallied: [ReactionTally]) async throws {
        for start in stride(from: 0, to: tallied.count, by: rowsPerStatement) {
            let rows = tallied[start..<min(start + rowsPerStatement, tallied.count)].map { tally -> SQLQueryString in
                """
                (\(bind: show.project), \(bind: show.beaconName), \(bind: tally.minuteMs), \(bind: tally.slide.deckID), \
                \(bind: tally.slide.page), \(bind: tally.value), \(bind: tally.count))
                """
            }
            try await db.raw("""
                INSERT INTO reaction_tallies (project, beacon_name, minute_ms, deck_id, page, value, count)
                VALUES \(rows.joined(separator: ", "))
                ON CONFLICT (project, beacon_name, minute_ms, deck_id, page, value)
                DO UPDATE SET count = reaction_tallies.count + excluded.count
                """).run()
        }
    }

    func tallies(project: String, deckID: String, fromMs: Int64, untilMs: Int64) async throws -> [ReactionTally] {
        try await database.read { db in
            try await db.raw("""
                SELECT \(unsafeRaw: Self.columns) FROM reaction_tallies
                WHERE project = \(bind: project) AND deck_id = \(bind: deckID) AND minute_ms >= \(bind: fromMs) AND minute_ms < \(bind: untilMs)
                """).all().map(Self.tally(row:))
        }
    }

    func tallies(_ beacon: BeaconRef, fromMs: Int64, untilMs: Int64) async throws -> [ReactionTally] {
        try await database.read { db in
            try await db.raw("""
                SELECT \(unsafeRaw: Self.columns) FROM reaction_tallies
                WHERE project = \(bind: beacon.project) AND beacon_name = \(bind: beacon.beaconName)
                  AND minute_ms >= \(bind: fromMs) AND minute_ms < \(bind: untilMs)
                """).all().map(Self.tally(row:))
        }
    }

    private static let columns = "minute_ms, deck_id, page, value, count"

    private static func tally(row: any SQLRow) throws -> ReactionTally {
        ReactionTally(slide: .init(deckID: try row.decode(column: "deck_id", as: String.self), page: try row.decode(column: "page", as: Int.self)),
                      minuteMs: try row.decode(column: "minute_ms", as: Int64.self), value: try row.decode(column: "value", as: String.self),
                      count: try row.decode(column: "count", as: Int.self))
    }
}

extension ReactionTallyStore: ReactionTallyRepository {}
