import Crypto
import Foundation
import NearcastCore
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

    /// What a key grants.
    enum Access: Equatable, Sendable {
        case read(project: String)
        case manage(project: String)
        /// A pass (`Presence.Pass`): reads like the public key, and proves its holder was in the
        /// room of its beacon lately, for as long as its show stands by it.
        case pass(Presence.Pass)

        var project: String {
            switch self {
            case .read(let project), .manage(let project): return project
            case .pass(let pass): return pass.project
            }
        }
        var canManage: Bool { if case .manage = self { return true } else { return false } }
        /// Which key it is, in words.
        var kindName: String {
            switch self {
            case .read: return "public"
            case .manage: return "secret"
            case .pass: return "pass"
            }
        }
        /// What the limits count this caller's requests and streams under: its project's key
        /// of this kind (every pass of a project together).
        var limitKey: String { project + "\n" + kindName }
    }

    /// Lowercase letters, digits and dashes, starting with a letter, at most 63: it is the
    /// namespace in every `NAME/TYPE`, so it may not hold a slash.
    static func validate(name: String) throws(APIError) {
        let bytes = Array(name.utf8)
        guard (1...63).contains(bytes.count), let first = bytes.first, (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(first),
              bytes.allSatisfy({ (UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || $0 == UInt8(ascii: "-") })
        else {
            throw APIError.invalid("project", "'\(name)' must be 1-63 lowercase letters, digits or dashes, starting with a letter")
        }
    }

    /// Creates a project and returns its keys: the only time they are ever shown.
    public func create(name: String) async throws -> CreatedProject {
        let created = try Self.newKeys(for: name)
        let apiHash = Self.hash(created.apiKey), secretHash = Self.hash(created.secretKey)
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

    /// Which of a project's keys a rotation replaces.
    public enum Rotation: String, Sendable, CaseIterable {
        case both, `public`, secret
    }

    /// PostgreSQL's channel on which a rotation tells every instance to forget the keys it
    /// checked lately (`KeyCache`), so the old keys stop working at once.
    static let keysChannel = "nearcast_keys"

    /// Replaces a project's keys (both, or the public or secret one) with new random ones and
    /// returns them: the old ones are refused from now on (every instance on PostgreSQL at once;
    /// a hub on the same SQLite file within `KeyCache.maximumAgeMs`). Shown only now, like
    /// `create`'s; the key not rotated is not shown (it is stored only as a hash).
    public func rotate(name: String, _ rotation: Rotation) async throws -> RotatedKeys {
        try Self.validate(name: name)
        let apiKey = rotation == .secret ? nil : "ncpub_" + Self.randomKey()
        let secretKey = rotation == .public ? nil : "ncsec_" + Self.randomKey()
        try await database.transaction { db in
            guard try await db.raw("SELECT name FROM projects WHERE name = \(bind: name)").first() != nil else {
                throw APIError.notFound("project \(name)")
            }
            if let apiKey {
                try await db.raw("UPDATE projects SET api_key_hash = \(bind: Self.hash(apiKey)) WHERE name = \(bind: name)").run()
            }
            if let secretKey {
                try await db.raw("UPDATE projects SET secret_key_hash = \(bind: Self.hash(secretKey)) WHERE name = \(bind: name)").run()
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
        try await access(forHash: Self.hash(key))
    }

    /// Who the key with this SHA-256 hash belongs to.
    func access(forHash hash: String) async throws -> Access? {
        try await database.read { db in
            guard let row = try await db.raw("""
                SELECT name, api_key_hash, secret_key_hash FROM projects
                WHERE api_key_hash = \(bind: hash) OR secret_key_hash = \(bind: hash)
                """).first() else { return nil }
            let name = try row.decode(column: "name", as: String.self)
            return try row.decode(column: "secret_key_hash", as: String.self) == hash ? .manage(project: name) : .read(project: name)
        }
    }

    static func hash(_ key: String) -> String {
        // Every request's key is hashed: the core's hex, not 32 String(format:) calls.
        Hex.format(SHA256.hash(data: Data(key.utf8)))
    }

    /// A checked name and new random keys for it (`ncpub_` public, `ncsec_` secret).
    static func newKeys(for name: String) throws(APIError) -> CreatedProject {
        try validate(name: name)
        return CreatedProject(project: name, apiKey: "ncpub_" + randomKey(), secretKey: "ncsec_" + randomKey())
    }

    private static func randomKey() -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<24).map { _ in UInt8.random(in: 0...255, using: &generator) }
        return Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
    }
}
