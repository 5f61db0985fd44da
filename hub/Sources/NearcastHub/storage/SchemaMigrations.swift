import SQLKit

/// The hub's one schema, for SQLite and PostgreSQL alike, reached by numbered migrations.
///
/// `hub_migrations` records what has been applied. Each migration runs in a transaction; on
/// PostgreSQL an advisory lock makes hub instances starting together take turns, so exactly one
/// applies each step. A database migrated by a newer hub is refused rather than guessed at.
///
/// Every value is TEXT or BIGINT: keys, ids and data are hex or base64 text, times are
/// milliseconds since 1970. The same statements then mean the same thing in both dialects.
enum SchemaMigrations {
    struct Migration {
        let version: Int
        let summary: String
        let statements: [String]
    }

    static let all: [Migration] = [
        Migration(version: 1, summary: "projects, beacons, attachments, settings, change counter", statements: [
            """
            CREATE TABLE hub_settings (
                name TEXT PRIMARY KEY,
                value TEXT NOT NULL)
            """,
            // One row, 'changes': bumped by every write a resolver cache or a watch must see,
            // inside the writing transaction, so its order is the commit order.
            """
            CREATE TABLE hub_counters (
                name TEXT PRIMARY KEY,
                value BIGINT NOT NULL)
            """,
            "INSERT INTO hub_counters (name, value) VALUES ('changes', 0)",
            """
            CREATE TABLE projects (
                name TEXT PRIMARY KEY,
                api_key_hash TEXT NOT NULL UNIQUE,
                secret_key_hash TEXT NOT NULL UNIQUE,
                created_ms BIGINT NOT NULL)
            """,
            """
            CREATE TABLE beacons (
                project TEXT NOT NULL REFERENCES projects (name),
                beacon_name TEXT NOT NULL,
                advertised_type TEXT NOT NULL,
                advertised_id TEXT NOT NULL,
                identity_key TEXT,
                beacon_public_key TEXT,
                exponent BIGINT,
                clock_value BIGINT,
                clock_at_ms BIGINT,
                description TEXT,
                status TEXT NOT NULL,
                created_ms BIGINT NOT NULL,
                heartbeat_ms BIGINT,
                heartbeat TEXT,
                change_seq BIGINT NOT NULL,
                PRIMARY KEY (project, beacon_name))
            """,
            "CREATE INDEX beacons_by_change ON beacons (change_seq)",
            "CREATE INDEX beacons_by_advertised_id ON beacons (project, advertised_type, advertised_id)",
            """
            CREATE TABLE attachments (
                project TEXT NOT NULL,
                beacon_name TEXT NOT NULL,
                attachment_id TEXT NOT NULL,
                namespaced_type TEXT NOT NULL,
                data TEXT NOT NULL,
                created_ms BIGINT NOT NULL,
                change_seq BIGINT NOT NULL,
                PRIMARY KEY (project, beacon_name, attachment_id),
                FOREIGN KEY (project, beacon_name) REFERENCES beacons (project, beacon_name))
            """,
        ]),
    ]

    static var latestVersion: Int { all.last?.version ?? 0 }

    static func apply(to database: HubDatabase) async throws {
        let isPostgres = database.isPostgres
        let logger = database.logger
        try await database.transaction { db in
            if isPostgres {
                // Held to the end of this transaction: other instances wait here.
                try await db.raw("SELECT pg_advisory_xact_lock(7270001)").run()
            }
            try await db.raw("""
                CREATE TABLE IF NOT EXISTS hub_migrations (
                    version BIGINT PRIMARY KEY,
                    summary TEXT NOT NULL,
                    applied_ms BIGINT NOT NULL)
                """).run()
            let rows = try await db.raw("SELECT version FROM hub_migrations").all()
            let applied = Set(try rows.map { try $0.decode(column: "version", as: Int.self) })
            if let newest = applied.max(), newest > latestVersion {
                throw HubConfigurationError(
                    "the database is at schema version \(newest), made by a newer nearcast-hub; this one knows up to \(latestVersion)")
            }
            for migration in all where !applied.contains(migration.version) {
                for statement in migration.statements {
                    try await db.raw(SQLQueryString(statement)).run()
                }
                try await db.raw("""
                    INSERT INTO hub_migrations (version, summary, applied_ms)
                    VALUES (\(bind: migration.version), \(bind: migration.summary), \(bind: HubClock.nowMs()))
                    """).run()
                logger.info("database: applied migration \(migration.version) (\(migration.summary))")
            }
        }
    }
}
