import Foundation
import NearcastCore
import NearcastHub
import SQLKit

/// A project's decks and their rendered pages in the database (`DeckRepository`), so every hub
/// instance on one PostgreSQL serves the same deck. A deck never changes: a new upload is a new
/// deck.
struct DeckStore: Sendable {
    let database: HubDatabase
    let clock: HubClock
    /// Tells the streams of the shows a deleted deck ends (`nearcast_shows`).
    let notifier: ChangeNotifier
    /// The page images one project's decks may hold, in bytes as stored (`decks.storagePerProjectMB`).
    var quotaBytes = DeckLimits().storagePerProjectBytes

    /// In one transaction: all of it, or (on any error, the quota's refusal included) nothing.
    func add(project: String, title: String, sourceBytes: Int, rendered: DeckRenderer.Rendered) async throws -> Deck {
        let adding = DeckQuota.storedBytes(rendered)
        let quota = quotaBytes, isPostgres = database.isPostgres
        let deck = Deck(title: title, sourceBytes: sourceBytes, rendered: rendered, createdMs: clock.nowMs())
        try await database.transaction { db in
            // Two uploads to one project through two instances: one after the other, so they
            // cannot both fit the quota's last megabytes. (SQLite's writers are serial already.)
            if isPostgres {
                try await db.raw("SELECT pg_advisory_xact_lock(hashtext(\(bind: "nearcast-decks:" + project)))").run()
            }
            try await Self.checkQuota(db, project: project, adding: adding, quota: quota)
            try await db.raw("""
                INSERT INTO decks (project, deck_id, title, pages, bytes, width, height, created_ms)
                VALUES (\(bind: project), \(bind: deck.deckID), \(bind: deck.title), \(bind: deck.pages), \(bind: deck.bytes),
                        \(bind: deck.width), \(bind: deck.height), \(bind: deck.createdMs))
                """).run()
            for (index, page) in rendered.pages.enumerated() {
                try await db.raw("""
                    INSERT INTO deck_pages (project, deck_id, page, full_image, thumb_image)
                    VALUES (\(bind: project), \(bind: deck.deckID), \(bind: index + 1),
                            \(bind: Data(page.full).base64EncodedString()), \(bind: Data(page.thumbnail).base64EncodedString()))
                    """).run()
            }
        }
        return deck
    }

    func checkRoom(project: String) async throws {
        let quota = quotaBytes
        try await database.read { db in try await Self.checkQuota(db, project: project, adding: 0, quota: quota) }
    }

    /// The page images the project's decks hold, in bytes as stored.
    func storedImageBytes(project: String) async throws -> Int {
        try await database.read { db in try await Self.storedImageBytes(db, project: project) }
    }

    private static func storedImageBytes(_ db: any SQLDatabase, project: String) async throws -> Int {
        // octet_length: SQLite and PostgreSQL both answer it from the value's header, without
        // reading the images themselves.
        try await db.raw("""
            SELECT COALESCE(SUM(octet_length(full_image) + octet_length(thumb_image)), 0) AS used
            FROM deck_pages WHERE project = \(bind: project)
            """).first()?.decode(column: "used", as: Int.self) ?? 0
    }

    private static func checkQuota(_ db: any SQLDatabase, project: String, adding: Int, quota: Int) async throws {
        try DeckQuota.check(used: try await storedImageBytes(db, project: project), adding: adding, quota: quota)
    }

    func list(project: String) async throws -> [Deck] {
        try await database.read { db in
            try await db.raw("""
                SELECT \(unsafeRaw: Self.columns) FROM decks WHERE project = \(bind: project) ORDER BY created_ms DESC, deck_id
                """).all().map(Self.deck(row:))
        }
    }

    func get(project: String, deckID: String) async throws -> Deck {
        let found = try await database.read { db in
            try await db.raw("""
                SELECT \(unsafeRaw: Self.columns) FROM decks WHERE project = \(bind: project) AND deck_id = \(bind: deckID)
                """).first().map(Self.deck(row:))
        }
        guard let found else { throw APIError.notFound("deck \(deckID)") }
        return found
    }

    func delete(project: String, deckID: String) async throws -> [String] {
        let ended = try await database.transaction { db in
            guard try await db.raw("SELECT deck_id FROM decks WHERE project = \(bind: project) AND deck_id = \(bind: deckID)").first() != nil
            else { throw APIError.notFound("deck \(deckID)") }
            let shows = try await db.raw("SELECT beacon_name FROM shows WHERE project = \(bind: project) AND deck_id = \(bind: deckID)")
                .all().map { try $0.decode(column: "beacon_name", as: String.self) }
            try await db.raw("DELETE FROM shows WHERE project = \(bind: project) AND deck_id = \(bind: deckID)").run()
            try await db.raw("DELETE FROM deck_pages WHERE project = \(bind: project) AND deck_id = \(bind: deckID)").run()
            try await db.raw("DELETE FROM decks WHERE project = \(bind: project) AND deck_id = \(bind: deckID)").run()
            for beacon in shows { try await notifier.announce(db, BeaconRef(project: project, beaconName: beacon)) }
            return shows
        }
        for beacon in ended { notifier.committed(BeaconRef(project: project, beaconName: beacon)) }
        return ended
    }

    func image(project: String, deckID: String, page: Int, size: Deck.ImageSize) async throws -> [UInt8]? {
        let column = size == .full ? "full_image" : "thumb_image"
        let text = try await database.read { db in
            try await db.raw("""
                SELECT \(unsafeRaw: column) AS image FROM deck_pages
                WHERE project = \(bind: project) AND deck_id = \(bind: deckID) AND page = \(bind: page)
                """).first().map { try $0.decode(column: "image", as: String.self) }
        }
        return text.flatMap { Data(base64Encoded: $0) }.map { [UInt8]($0) }
    }

    func pageWasShown(project: String, deckID: String, page: Int) async throws -> Bool {
        try await database.read { db in
            try await db.raw("""
                SELECT page, shown FROM shows
                WHERE project = \(bind: project) AND deck_id = \(bind: deckID) AND shown_up_to >= \(bind: page)
                """).all().contains { row in
                    try row.decode(column: "page", as: Int.self) == page
                        || ShownPages(text: try row.decode(column: "shown", as: String.self)).contains(page)
                }
        }
    }

    private static let columns = "deck_id, title, pages, bytes, width, height, created_ms"

    private static func deck(row: any SQLRow) throws -> Deck {
        Deck(deckID: try row.decode(column: "deck_id", as: String.self), title: try row.decode(column: "title", as: String.self),
             pages: try row.decode(column: "pages", as: Int.self), bytes: try row.decode(column: "bytes", as: Int.self),
             width: try row.decode(column: "width", as: Int.self), height: try row.decode(column: "height", as: Int.self),
             createdMs: try row.decode(column: "created_ms", as: Int64.self))
    }
}

extension DeckStore: DeckRepository {}
