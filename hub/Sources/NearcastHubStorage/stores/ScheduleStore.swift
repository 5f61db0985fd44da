import Foundation
import NearcastHub
import SQLKit

/// Each project's schedule in force in the database (`ScheduleRepository`): one row of
/// `schedules` holding a `ScheduleDocument`, replaced whole by an import; and `room_boxes`, the
/// rooms given a box by hand.
struct ScheduleStore: Sendable {
    let database: HubDatabase
    let clock: HubClock

    func inForce(project: String) async throws -> ScheduleInForce {
        try await database.read { db in try await Self.read(db, project: project) }
    }

    func replace<Answer: Sendable>(project: String,
                                   _ body: @escaping @Sendable (ScheduleInForce) -> (ScheduleInForce, Answer)) async throws -> Answer {
        let isPostgres = database.isPostgres, nowMs = clock.nowMs()
        return try await database.transaction { db in
            // Two imports of one project through two instances: one after the other, each
            // compared with the schedule the other left. (SQLite's writers are serial already.)
            if isPostgres {
                try await db.raw("SELECT pg_advisory_xact_lock(hashtext(\(bind: "nearcast-schedule:" + project)))").run()
            }
            let (next, answer) = body(try await Self.read(db, project: project))
            let document = String(decoding: try JSONText.encode(ScheduleDocument(next)), as: UTF8.self)
            try await db.raw("""
                INSERT INTO schedules (project, document, imported_ms) VALUES (\(bind: project), \(bind: document), \(bind: nowMs))
                ON CONFLICT (project) DO UPDATE SET document = excluded.document, imported_ms = excluded.imported_ms
                """).run()
            return answer
        }
    }

    func scheduledProjects() async throws -> [String] {
        try await database.read { db in
            try await db.raw("SELECT project FROM schedules ORDER BY project").all().map { try $0.decode(column: "project", as: String.self) }
        }
    }

    func talkDecks(project: String) async throws -> [String: String] {
        try await database.read { db in
            var decks: [String: String] = [:]
            for row in try await db.raw("SELECT guid, deck_id FROM talk_decks WHERE project = \(bind: project)").all() {
                decks[try row.decode(column: "guid", as: String.self)] = try row.decode(column: "deck_id", as: String.self)
            }
            return decks
        }
    }

    func setTalkDeck(project: String, guid: String, deckID: String) async throws {
        let nowMs = clock.nowMs()
        try await database.transaction { db in
            try await db.raw("""
                INSERT INTO talk_decks (project, guid, deck_id, uploaded_ms) VALUES (\(bind: project), \(bind: guid), \(bind: deckID), \(bind: nowMs))
                ON CONFLICT (project, guid) DO UPDATE SET deck_id = excluded.deck_id, uploaded_ms = excluded.uploaded_ms
                """).run()
        }
    }

    func roomBoxes(project: String) async throws -> [String: String] {
        try await database.read { db in
            var boxes: [String: String] = [:]
            for row in try await db.raw("SELECT room, beacon_name FROM room_boxes WHERE project = \(bind: project)").all() {
                boxes[try row.decode(column: "room", as: String.self)] = try row.decode(column: "beacon_name", as: String.self)
            }
            return boxes
        }
    }

    func setRoomBox(project: String, room: String, beaconName: String?) async throws {
        try await database.transaction { db in
            if let beaconName {
                try await db.raw("""
                    INSERT INTO room_boxes (project, room, beacon_name) VALUES (\(bind: project), \(bind: room), \(bind: beaconName))
                    ON CONFLICT (project, room) DO UPDATE SET beacon_name = excluded.beacon_name
                    """).run()
            } else {
                try await db.raw("DELETE FROM room_boxes WHERE project = \(bind: project) AND room = \(bind: room)").run()
            }
        }
    }

    private static func read(_ db: any SQLDatabase, project: String) async throws -> ScheduleInForce {
        guard let row = try await db.raw("SELECT document FROM schedules WHERE project = \(bind: project)").first() else {
            return .none
        }
        let text = try row.decode(column: "document", as: String.self)
        do {
            return try JSONDecoder().decode(ScheduleDocument.self, from: Data(text.utf8)).inForce
        } catch {
            throw HubConfigurationError("project \(project)'s schedule in the database cannot be read (\(error)): import it again")
        }
    }
}

extension ScheduleStore: ScheduleRepository {}
