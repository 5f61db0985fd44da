import Foundation
import NearcastHub
import SQLKit

/// Shows in the database (`ShowRepository`): one row per beacon, so a reloaded or second
/// presenter screen resumes at the same page and every hub instance serves the same show. Its
/// writes NOTIFY inside their transaction on PostgreSQL (every instance's streams hear of them
/// when, and only if, they commit) and signal this instance's streams after commit on SQLite.
struct ShowStore: Sendable {
    let database: HubDatabase
    /// Shows' changes (`nearcast_shows`).
    let notifier: ChangeNotifier
    /// Reaction batches for the presenters (`nearcast_reactions`).
    let reactions: ReactionNotifier
    let clock: HubClock

    func put(_ beacon: BeaconRef, deckID: String, page: Int) async throws -> Show {
        let (project, beaconName) = (beacon.project, beacon.beaconName)
        let now = clock.nowMs()
        let show = try await database.transaction { db -> Show in
            guard try await db.raw("""
                SELECT beacon_name FROM beacons WHERE project = \(bind: project) AND beacon_name = \(bind: beaconName) AND status = 'ACTIVE'
                """).first() != nil else { throw APIError.notFound(beaconName) }
            guard let deck = try await db.raw("SELECT pages FROM decks WHERE project = \(bind: project) AND deck_id = \(bind: deckID)").first()
            else { throw APIError(.notFound, "deck \(deckID) not found", field: "deck") }
            try Show.check(page: page, of: deckID, pages: try deck.decode(column: "pages", as: Int.self))
            var show = Show(project: project, beaconName: beaconName, deckID: deckID, page: page, nowMs: now)
            if var running = try await get(db, project: project, beaconName: beaconName) {
                running.go(deckID: deckID, page: page, nowMs: now)
                show = running
                try await db.raw("""
                    UPDATE shows SET deck_id = \(bind: show.deckID), page = \(bind: show.page), shown_up_to = \(bind: show.shownUpTo),
                        shown = \(bind: show.shown.text), updated_ms = \(bind: show.updatedMs)
                    WHERE project = \(bind: project) AND beacon_name = \(bind: beaconName)
                    """).run()
            } else {
                try await db.raw("""
                    INSERT INTO shows (\(unsafeRaw: Self.columns))
                    VALUES (\(bind: project), \(bind: beaconName), \(bind: deckID), \(bind: page), \(bind: page), \(bind: now), \(bind: now),
                            '{}', '', \(bind: show.sightCode.salt), \(bind: show.sightCode.joining ? 1 : 0), \(bind: show.sightCode.share))
                    """).run()
            }
            try await notifier.announce(db, BeaconRef(project: project, beaconName: beaconName))
            return show
        }
        notifier.committed(BeaconRef(project: project, beaconName: beaconName))
        return show
    }

    func get(_ beacon: BeaconRef) async throws -> Show? {
        let (project, beaconName) = (beacon.project, beacon.beaconName)
        return try await database.read { db in try await get(db, project: project, beaconName: beaconName) }
    }

    private func get(_ db: any SQLDatabase, project: String, beaconName: String) async throws -> Show? {
        try await db.raw("""
            SELECT \(unsafeRaw: Self.columns) FROM shows WHERE project = \(bind: project) AND beacon_name = \(bind: beaconName)
            """).first().map(Self.show(row:))
    }

    func delete(_ beacon: BeaconRef) async throws -> Bool {
        let (project, beaconName) = (beacon.project, beacon.beaconName)
        return try await write(project: project, beaconName: beaconName) { db in
            try await db.raw("DELETE FROM shows WHERE project = \(bind: project) AND beacon_name = \(bind: beaconName)").run()
        }
    }

    func addReactions(_ beacon: BeaconRef, _ batch: ReactionBatch) async throws -> [String: Int]? {
        let (project, beaconName) = (beacon.project, beacon.beaconName)
        let key = BeaconRef(project: project, beaconName: beaconName)
        // The counts are read, added to and written back: on PostgreSQL the read takes the row's
        // lock (READ COMMITTED lets two instances read the same counts, and the second write
        // would drop the first's reactions, each already answered 202). SQLite's BEGIN
        // IMMEDIATE already gives one writer at a time. The receipts are recorded under the
        // same lock, so a tap sent to two instances at once is counted by one of them.
        let lock: SQLQueryString = database.isPostgres ? " FOR UPDATE" : ""
        let written = try await database.transaction { db -> ReactionBatchJSON? in
            guard let row = try await db.raw("""
                SELECT counts FROM shows WHERE project = \(bind: project) AND beacon_name = \(bind: beaconName)\(lock)
                """).first() else { return nil }
            let fresh = try await ReactionReceiptStore.record(db, batch.receipts, atMs: batch.latestMs)
            let (tallied, drawn) = batch.counting(fresh: fresh)
            var counts = Self.decodeCounts(try row.decode(column: "counts", as: String.self))
            for (value, count) in ReactionTally.totals(tallied) { counts[value, default: 0] += count }
            try await db.raw("""
                UPDATE shows SET counts = \(bind: Self.encodeCounts(counts)) WHERE project = \(bind: project) AND beacon_name = \(bind: beaconName)
                """).run()
            try await ReactionTallyStore.add(db, key, tallied)
            let sent = ReactionBatchJSON(reactions: drawn, counts: counts)
            try await reactions.announce(db, key, sent)
            return sent
        }
        if let written { try reactions.committed(key, written) }
        return written?.counts
    }

    func liveBeacons() async throws -> [Show.LiveBeacon] {
        try await database.read { db in
            try await db.raw("""
                SELECT s.project AS project, s.beacon_name AS beacon_name, b.exponent AS exponent, s.code_salt AS code_salt,
                       s.code_joining AS code_joining, s.code_share AS code_share
                FROM shows s JOIN beacons b ON b.project = s.project AND b.beacon_name = s.beacon_name
                WHERE b.status = 'ACTIVE' AND b.identity_key IS NOT NULL
                """).all().map { row in
                    Show.LiveBeacon(project: try row.decode(column: "project", as: String.self),
                               beaconName: try row.decode(column: "beacon_name", as: String.self),
                               exponent: try row.decode(column: "exponent", as: Int.self),
                               codeSalt: try row.decode(column: "code_salt", as: String.self),
                               codeJoining: try row.decode(column: "code_joining", as: Int.self) != 0,
                               codeShare: try row.decode(column: "code_share", as: Int.self))
                }
        }
    }

    func setCode(_ beacon: BeaconRef, joining: Bool?, share: Int?, rotate: Bool) async throws -> Bool {
        let (project, beaconName) = (beacon.project, beacon.beaconName)
        return try await write(project: project, beaconName: beaconName) { db in
            if let joining {
                try await db.raw("""
                    UPDATE shows SET code_joining = \(bind: joining ? 1 : 0) WHERE project = \(bind: project) AND beacon_name = \(bind: beaconName)
                    """).run()
            }
            if let share {
                try await db.raw("""
                    UPDATE shows SET code_share = \(bind: share) WHERE project = \(bind: project) AND beacon_name = \(bind: beaconName)
                    """).run()
            }
            if Show.SightCode.needsNewSalt(joining: joining, rotate: rotate) {
                try await db.raw("""
                    UPDATE shows SET code_salt = \(bind: Show.newSalt()) WHERE project = \(bind: project) AND beacon_name = \(bind: beaconName)
                    """).run()
            }
        }
    }

    /// Runs `change` on the beacon's show in a transaction that tells its streams; false (and
    /// nothing run) when the beacon has no show.
    private func write(project: String, beaconName: String,
                       _ change: @escaping @Sendable (any SQLDatabase) async throws -> Void) async throws -> Bool {
        let done = try await database.transaction { db -> Bool in
            guard try await db.raw("SELECT beacon_name FROM shows WHERE project = \(bind: project) AND beacon_name = \(bind: beaconName)")
                .first() != nil else { return false }
            try await change(db)
            try await notifier.announce(db, BeaconRef(project: project, beaconName: beaconName))
            return true
        }
        if done { notifier.committed(BeaconRef(project: project, beaconName: beaconName)) }
        return done
    }

    func box(_ beacon: BeaconRef) async throws -> Show.Box? {
        let (project, beaconName) = (beacon.project, beacon.beaconName)
        // Any status: a deleted beacon's row stays, and its show with it.
        return try await database.read { db in
            guard let row = try await db.raw("""
                SELECT description, heartbeat_ms, created_ms FROM beacons WHERE project = \(bind: project) AND beacon_name = \(bind: beaconName)
                """).first() else { return nil }
            return Show.box(beaconName: beaconName, description: try row.decode(column: "description", as: String?.self),
                            heartbeatMs: try row.decode(column: "heartbeat_ms", as: Int64?.self),
                            createdMs: try row.decode(column: "created_ms", as: Int64.self))
        }
    }

    func recordFollowers(instance: String, _ counts: [BeaconRef: Int]) async throws {
        let now = clock.nowMs()
        try await database.transaction { db in
            for (key, followers) in counts {
                try await db.raw("""
                    INSERT INTO show_followers (instance, project, beacon_name, followers, updated_ms)
                    VALUES (\(bind: instance), \(bind: key.project), \(bind: key.beaconName), \(bind: followers), \(bind: now))
                    ON CONFLICT (instance, project, beacon_name) DO UPDATE SET followers = excluded.followers, updated_ms = excluded.updated_ms
                    """).run()
                // Presenters everywhere see the new count: a show "change" that followers skip
                // (what they see did not change).
                try await notifier.announce(db, key)
            }
            try await db.raw("DELETE FROM show_followers WHERE updated_ms < \(bind: now - Show.followersKeptMs)").run()
        }
        for key in counts.keys { notifier.committed(key) }
    }

    /// (PostgreSQL's SUM of a BIGINT is a NUMERIC, hence the cast back.)
    func followers(_ beacon: BeaconRef) async throws -> Int {
        let (project, beaconName) = (beacon.project, beacon.beaconName)
        let since = clock.nowMs() - Show.followersFreshMs
        return try await database.read { db in
            try await db.raw("""
                SELECT CAST(COALESCE(SUM(followers), 0) AS BIGINT) AS total FROM show_followers
                WHERE project = \(bind: project) AND beacon_name = \(bind: beaconName) AND updated_ms >= \(bind: since)
                """).first()?.decode(column: "total", as: Int.self) ?? 0
        }
    }

    private static let columns = "project, beacon_name, deck_id, page, shown_up_to, started_ms, updated_ms, counts, shown, "
        + "code_salt, code_joining, code_share"

    private static func show(row: any SQLRow) throws -> Show {
        Show(project: try row.decode(column: "project", as: String.self),
             beaconName: try row.decode(column: "beacon_name", as: String.self),
             deckID: try row.decode(column: "deck_id", as: String.self),
             page: try row.decode(column: "page", as: Int.self), shown: ShownPages(text: try row.decode(column: "shown", as: String.self)),
             startedMs: try row.decode(column: "started_ms", as: Int64.self),
             updatedMs: try row.decode(column: "updated_ms", as: Int64.self),
             counts: decodeCounts(try row.decode(column: "counts", as: String.self)),
             sightCode: Show.SightCode(salt: try row.decode(column: "code_salt", as: String.self),
                                  joining: try row.decode(column: "code_joining", as: Int.self) != 0,
                                  share: try row.decode(column: "code_share", as: Int.self)))
    }

    static func decodeCounts(_ text: String) -> [String: Int] {
        (try? JSONDecoder().decode([String: Int].self, from: Data(text.utf8))) ?? [:]
    }

    static func encodeCounts(_ counts: [String: Int]) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return (try? encoder.encode(counts)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }
}

extension ShowStore: ShowRepository {}
