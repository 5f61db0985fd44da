import Foundation
import NearcastHub
import SQLKit

/// Each project's reaction choices in the database (`ReactionChoicesRepository`): a row per
/// project that set its own, the emoji and images as JSON text.
struct ReactionChoicesStore: Sendable {
    let database: HubDatabase

    func get(project: String) async throws -> ReactionChoices {
        try await database.read { db in
            guard let row = try await db.raw("SELECT enabled, emoji, images FROM reaction_choices WHERE project = \(bind: project)").first()
            else { return .defaults }
            let emoji = (try? JSONDecoder().decode([String].self, from: Data(try row.decode(column: "emoji", as: String.self).utf8))) ?? []
            let images = (try? JSONDecoder().decode([String: String].self, from: Data(try row.decode(column: "images", as: String.self).utf8))) ?? [:]
            return ReactionChoices(enabled: try row.decode(column: "enabled", as: Int.self) != 0, emoji: emoji,
                                   images: images.compactMapValues { Data(base64Encoded: $0).map { [UInt8]($0) } })
        }
    }

    func set(project: String, _ choices: ReactionChoices) async throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let emoji = String(decoding: try encoder.encode(choices.emoji), as: UTF8.self)
        let images = String(decoding: try encoder.encode(choices.images.mapValues { Data($0).base64EncodedString() }), as: UTF8.self)
        try await database.transaction { db in
            try await db.raw("""
                INSERT INTO reaction_choices (project, enabled, emoji, images)
                VALUES (\(bind: project), \(bind: choices.enabled ? 1 : 0), \(bind: emoji), \(bind: images))
                ON CONFLICT (project) DO UPDATE SET enabled = excluded.enabled, emoji = excluded.emoji, images = excluded.images
                """).run()
        }
    }
}

extension ReactionChoicesStore: ReactionChoicesRepository {}
