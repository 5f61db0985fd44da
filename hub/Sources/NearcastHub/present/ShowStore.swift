import Foundation
import SQLKit

/// Shows: a deck on a beacon (the room's box), one per beacon. The live page and the furthest
/// page shown are kept here, so a reloaded or second presenter screen resumes at the same page
/// and every hub instance serves the same show.
struct ShowStore: Sendable {
    /// One show.
    struct Show: Sendable, Equatable {
        var project: String
        var beaconName: String
        var deckID: String
        /// The live page, on the projected screen since `updatedMs`.
        var page: Int
        /// The pages before it that stayed on the screen long enough to count as shown.
        var shown: ShownPages
        var startedMs: Int64
        var updatedMs: Int64
        var counts: [String: Int]

        /// What the audience may open: the pages shown and the live one.
        var openPages: ShownPages {
            var open = shown
            open.insert(page)
            return open
        }

        /// The furthest page the audience may open (the API's `shownUpTo`).
        var shownUpTo: Int { max(shown.highest ?? page, page) }

        /// Moves the show to `page` at `nowMs`: the page it leaves counts as shown if it stayed
        /// on the screen for the dwell.
        mutating func move(to page: Int, nowMs: Int64) {
            guard page != self.page else { return }
            if nowMs - updatedMs >= ShownPages.dwellMs { shown.insert(self.page) }
            self.page = page
            updatedMs = nowMs
        }
    }

    /// A show's beacon as the sight code needs it: the show's code settings.
    struct LiveBeacon: Sendable {
        var project: String
        var beaconName: String
        /// The beacon's EID rotation exponent (a new EID every 2^exponent s).
        var exponent: Int
        var codeSalt: String
        var codeJoining: Bool
        /// The share of the show's followers (%) that may hold passes from the code.
        var codeShare: Int
    }

    let database: HubDatabase
    let notifier: ChangeNotifier
    let clock: HubClock

    /// Starts a show of `deckID` on the beacon at `page`, or moves the running show to `page`.
    /// A different deck switches the running show to it: the show goes on (its start, its
    /// reaction counts, its followers and their passes carry over) and only the pages shown
    /// start again, from the new deck's `page`.
    func put(project: String, beaconName: String, deckID: String, page: Int) async throws -> Show {
        let now = clock.nowMs()
        let show = try await database.transaction { db -> Show in
            guard try await db.raw("""
                SELECT beacon_name FROM beacons WHERE project = \(bind: project) AND beacon_name = \(bind: beaconName) AND status = 'ACTIVE'
                """).first() != nil else { throw APIError.notFound(beaconName) }
            guard let deck = try await db.raw("SELECT pages FROM decks WHERE project = \(bind: project) AND deck_id = \(bind: deckID)").first()
            else { throw APIError(.notFound, "deck \(deckID) not found", field: "deck") }
            let pages = try deck.decode(column: "pages", as: Int.self)
            guard (1...pages).contains(page) else {
                throw APIError.invalid("page", "\(page) is not a page of deck \(deckID) (1-\(pages))")
            }
            let existing = try await db.raw("""
                SELECT \(unsafeRaw: Self.columns) FROM shows WHERE project = \(bind: project) AND beacon_name = \(bind: beaconName)
                """).first().map(Self.show(row:))
            var show: Show
            if var running = existing {
                if running.deckID == deckID {
                    running.move(to: page, nowMs: now)
                } else {
                    running.deckID = deckID
                    running.page = page
                    running.shown = ShownPages()
                    running.updatedMs = now
                }
                show = running
                try await db.raw("""
                    UPDATE shows SET deck_id = \(bind: show.deckID), page = \(bind: show.page), shown_up_to = \(bind: show.shownUpTo),
                        shown = \(bind: show.shown.text), updated_ms = \(bind: show.updatedMs)
                    WHERE project = \(bind: project) AND beacon_name = \(bind: beaconName)
                    """).run()
            } else {
                show = Show(project: project, beaconName: beaconName, deckID: deckID, page: page, shown: ShownPages(),
                            startedMs: now, updatedMs: now, counts: [:])
                try await db.raw("""
                    INSERT INTO shows (\(unsafeRaw: Self.columns), code_salt) VALUES (\(bind: project), \(bind: beaconName), \(bind: deckID),
                        \(bind: page), \(bind: page), \(bind: now), \(bind: now), '{}', '', \(bind: Self.newSalt()))
                    """).run()
            }
            try await notifier.announce(db, project: project, beaconName: beaconName)
            return show
        }
        notifier.committed(project: project, beaconName: beaconName)
        return show
    }

    func get(project: String, beaconName: String) async throws -> Show? {
        try await database.read { db in
            try await db.raw("""
                SELECT \(unsafeRaw: Self.columns) FROM shows WHERE project = \(bind: project) AND beacon_name = \(bind: beaconName)
                """).first().map(Self.show(row:))
        }
    }

    /// Ends the beacon's show; false when it had none.
    func delete(project: String, beaconName: String) async throws -> Bool {
        let deleted = try await database.transaction { db -> Bool in
            guard try await db.raw("SELECT beacon_name FROM shows WHERE project = \(bind: project) AND beacon_name = \(bind: beaconName)")
                .first() != nil else { return false }
            try await db.raw("DELETE FROM shows WHERE project = \(bind: project) AND beacon_name = \(bind: beaconName)").run()
            try await notifier.announce(db, project: project, beaconName: beaconName)
            return true
        }
        if deleted { notifier.committed(project: project, beaconName: beaconName) }
        return deleted
    }

    /// Adds a batch of reactions to the show's counts and returns the new counts (nil when the
    /// show ended meanwhile). `inTransaction` runs in the same transaction (the batch's NOTIFY).
    func addCounts(project: String, beaconName: String, _ added: [String: Int],
                   inTransaction: @escaping @Sendable (any SQLDatabase, [String: Int]) async throws -> Void) async throws -> [String: Int]? {
        try await database.transaction { db -> [String: Int]? in
            guard let row = try await db.raw("""
                SELECT counts FROM shows WHERE project = \(bind: project) AND beacon_name = \(bind: beaconName)
                """).first() else { return nil }
            var counts = Self.decodeCounts(try row.decode(column: "counts", as: String.self))
            for (value, count) in added { counts[value, default: 0] += count }
            try await db.raw("""
                UPDATE shows SET counts = \(bind: Self.encodeCounts(counts)) WHERE project = \(bind: project) AND beacon_name = \(bind: beaconName)
                """).run()
            try await inTransaction(db, counts)
            return counts
        }
    }

    /// Every show's beacon with its EID identity and clock (the shows with a UID beacon have no
    /// sight code).
    func liveBeacons() async throws -> [LiveBeacon] {
        try await database.read { db in
            try await db.raw("""
                SELECT s.project AS project, s.beacon_name AS beacon_name, b.exponent AS exponent, s.code_salt AS code_salt,
                       s.code_joining AS code_joining, s.code_share AS code_share
                FROM shows s JOIN beacons b ON b.project = s.project AND b.beacon_name = s.beacon_name
                WHERE b.status = 'ACTIVE' AND b.identity_key IS NOT NULL
                """).all().map { row in
                    LiveBeacon(project: try row.decode(column: "project", as: String.self),
                               beaconName: try row.decode(column: "beacon_name", as: String.self),
                               exponent: try row.decode(column: "exponent", as: Int.self),
                               codeSalt: try row.decode(column: "code_salt", as: String.self),
                               codeJoining: try row.decode(column: "code_joining", as: Int.self) != 0,
                               codeShare: try row.decode(column: "code_share", as: Int.self))
                }
        }
    }

    /// Changes how phones may join the beacon's show by its code: on or off, the share of its
    /// followers that may hold passes from the code, a new code at once (a new salt: every code
    /// shown so far stops working). False when the beacon has no show.
    func setCode(project: String, beaconName: String, joining: Bool?, share: Int?, rotate: Bool) async throws -> Bool {
        let changed = try await database.transaction { db -> Bool in
            guard try await db.raw("SELECT beacon_name FROM shows WHERE project = \(bind: project) AND beacon_name = \(bind: beaconName)")
                .first() != nil else { return false }
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
            if rotate {
                try await db.raw("""
                    UPDATE shows SET code_salt = \(bind: Self.newSalt()) WHERE project = \(bind: project) AND beacon_name = \(bind: beaconName)
                    """).run()
            }
            try await notifier.announce(db, project: project, beaconName: beaconName)
            return true
        }
        if changed { notifier.committed(project: project, beaconName: beaconName) }
        return changed
    }

    static func newSalt() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<16).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &generator)) }.joined()
    }

    /// One show's beacon, as `liveBeacons` lists them.
    func liveBeacon(project: String, beaconName: String) async throws -> LiveBeacon? {
        try await liveBeacons().first { $0.project == project && $0.beaconName == beaconName }
    }

    /// A show's box as the presenter sees it: the name the venue gave it (its description) and
    /// its last contact (heartbeat or registration), nil when the beacon is gone.
    func box(project: String, beaconName: String) async throws -> (name: String, lastSeenMs: Int64?)? {
        try await database.read { db in
            guard let row = try await db.raw("""
                SELECT description, heartbeat_ms, created_ms FROM beacons WHERE project = \(bind: project) AND beacon_name = \(bind: beaconName)
                """).first() else { return nil }
            let description = try row.decode(column: "description", as: String?.self)
            let heartbeat = try row.decode(column: "heartbeat_ms", as: Int64?.self)
            let registered = try row.decode(column: "created_ms", as: Int64.self)
            let name = description.flatMap { $0.isEmpty ? nil : $0 } ?? beaconName
            return (name, max(heartbeat ?? registered, registered))
        }
    }

    /// Records this instance's follower counts (and keeps them fresh).
    func recordFollowers(instance: String, _ counts: [(project: String, beaconName: String, followers: Int)]) async throws {
        let now = clock.nowMs()
        try await database.transaction { db in
            for entry in counts {
                try await db.raw("""
                    INSERT INTO show_followers (instance, project, beacon_name, followers, updated_ms)
                    VALUES (\(bind: instance), \(bind: entry.project), \(bind: entry.beaconName), \(bind: entry.followers), \(bind: now))
                    ON CONFLICT (instance, project, beacon_name) DO UPDATE SET followers = excluded.followers, updated_ms = excluded.updated_ms
                    """).run()
            }
            // Rows of instances gone quiet (stopped or crashed) stop counting, then go.
            try await db.raw("DELETE FROM show_followers WHERE updated_ms < \(bind: now - 5 * 60_000)").run()
        }
    }

    /// The phones following a show across every instance that reported lately. (PostgreSQL's
    /// SUM of a BIGINT is a NUMERIC, hence the cast back.)
    func followers(project: String, beaconName: String) async throws -> Int {
        let since = clock.nowMs() - Self.followersFreshMs
        return try await database.read { db in
            try await db.raw("""
                SELECT CAST(COALESCE(SUM(followers), 0) AS BIGINT) AS total FROM show_followers
                WHERE project = \(bind: project) AND beacon_name = \(bind: beaconName) AND updated_ms >= \(bind: since)
                """).first()?.decode(column: "total", as: Int.self) ?? 0
        }
    }

    /// An instance's follower counts older than this are not counted (it refreshes every 10 s).
    static let followersFreshMs: Int64 = 30_000

    private static let columns = "project, beacon_name, deck_id, page, shown_up_to, started_ms, updated_ms, counts, shown"

    private static func show(row: any SQLRow) throws -> Show {
        Show(project: try row.decode(column: "project", as: String.self),
             beaconName: try row.decode(column: "beacon_name", as: String.self),
             deckID: try row.decode(column: "deck_id", as: String.self),
             page: try row.decode(column: "page", as: Int.self), shown: ShownPages(text: try row.decode(column: "shown", as: String.self)),
             startedMs: try row.decode(column: "started_ms", as: Int64.self),
             updatedMs: try row.decode(column: "updated_ms", as: Int64.self),
             counts: decodeCounts(try row.decode(column: "counts", as: String.self)))
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

extension ShowStore {
    /// Tells the show's streams (every instance's, on PostgreSQL) that it changed or ended
    /// outside one of this store's transactions (its deck was deleted).
    func announce(project: String, beaconName: String) async throws {
        try await notifier.announceOutsideTransaction(database, project: project, beaconName: beaconName)
    }
}
