import Crypto
import Foundation
import NearcastCore
import NearcastHub
import SQLKit

/// Projects and their keys. A project owns the namespace of its name; its public API key reads
/// (getforobserved, watches), its secret key manages. Keys are random and stored only as SHA-256
/// hashes: they carry 192 bits of entropy, so a plain hash is as good as a slow one here.
public struct ProjectStore: Sendable {
    let database: HubDatabase
    let clock: HubClock

    public init(database: HubDatabase, clock: HubClock = .system) {
        self.database = database
        self.clock = clock
    }

    /// Creates a project and returns its keys: the only time they are ever shown.
    public func create(name: String) async throws -> CreatedProject {
        let created = try ProjectKeys.newKeys(for: name)
        let apiHash = ProjectKeys.hash(created.apiKey), secretHash = ProjectKeys.hash(created.secretKey)
        try await database.transaction { db in
            let existing = try await db.raw("SELECT name FROM projects WHERE name = \(bind: name)").first()
            guard existing == nil else { throw APIError(.conflict, "project \(name) already exists", field: "project") }
            try await db.raw("""
                INSERT INTO projects (name, api_key_hash, secret_key_hash, created_ms)
                VALUES (\(bind: name), \(bind: apiHash), \(bind: secretHash), \(bind: clock.nowMs()))
                """).run()
        }
        return created
    }

    /// PostgreSQL's channel on which a rotation tells every instance to forget the keys it
    /// checked lately (`KeyCache`), so the old keys stop working at once.
    static let keysChannel = "nearcast_keys"

    /// Replaces a project's keys (both, or the public or secret one) with new random ones and
    /// returns them: the old ones are refused from now on (every instance on PostgreSQL at once;
    /// a hub on the same SQLite file within `KeyCache.maximumAgeMs`). Shown only now, like
    /// `create`'s; the key not rotated is not shown (it is stored only as a hash).
    public func rotate(name: String, _ rotation: ProjectKeys.Rotation) async throws -> RotatedKeys {
        try ProjectKeys.validate(name: name)
        let apiKey = rotation == .secret ? nil : "ncpub_" + ProjectKeys.randomKey()
        let secretKey = rotation == .public ? nil : "ncsec_" + ProjectKeys.randomKey()
        try await database.transaction { db in
            guard try await db.raw("SELECT name FROM projects WHERE name = \(bind: name)").first() != nil else {
                throw APIError.notFound("project \(name)")
            }
            if let apiKey {
                try await db.raw("UPDATE projects SET api_key_hash = \(bind: ProjectKeys.hash(apiKey)) WHERE name = \(bind: name)").run()
            }
            if let secretKey {
                try await db.raw("UPDATE projects SET secret_key_hash = \(bind: ProjectKeys.hash(secretKey)) WHERE name = \(bind: name)").run()
            }
            if database.isPostgres {
                try await db.raw("SELECT pg_notify(\(bind: Self.keysChannel), \(bind: name))").run()
            }
        }
        return RotatedKeys(project: name, apiKey: apiKey, secretKey: secretKey)
    }

    /// The project names, oldest first.
    public func names() async throws -> [String] {
        try await database.read { db in
            try await db.raw("SELECT name FROM projects ORDER BY created_ms, name").all()
                .map { try $0.decode(column: "name", as: String.self) }
        }
    }

    /// Who a key belongs to, and what it may do; nil for a key no project has.
    func access(forKey key: String) async throws -> Access? {
        try await access(forHash: ProjectKeys.hash(key))
    }

    /// Who the key with this SHA-256 hash belongs to.
    package func access(forHash hash: String) async throws -> Access? {
        try await database.read { db in
            guard let row = try await db.raw("""
                SELECT name, api_key_hash, secret_key_hash FROM projects
                WHERE api_key_hash = \(bind: hash) OR secret_key_hash = \(bind: hash)
                """).first() else { return nil }
            let name = try row.decode(column: "name", as: String.self)
            return try row.decode(column: "secret_key_hash", as: String.self) == hash ? .manage(project: name) : .read(project: name)
        }
    }
}

extension ProjectStore: ProjectRepository {}
