import Logging
import NearcastHub
import SQLKit

/// Bringing a database up to date: ``SchemaMigrations``' steps applied in order, each in its
/// own transaction, on PostgreSQL one instance at a time. Apart from the list of steps, so that
/// the schema knows nothing of the database that runs it.
extension SchemaMigrations {
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
                    // UNLOGGED (not written to PostgreSQL's log: faster, emptied by a crash) is
                    // PostgreSQL's word; SQLite's tables are all alike.
                    let sql = isPostgres ? statement : statement.replacingOccurrences(of: "CREATE UNLOGGED TABLE", with: "CREATE TABLE")
                    try await db.raw(SQLQueryString(sql)).run()
                }
                try await db.raw("""
                    INSERT INTO hub_migrations (version, summary, applied_ms)
                    VALUES (\(bind: migration.version), \(bind: migration.summary), \(bind: HubClock.system.nowMs()))
                    """).run()
                logger.info("database: applied migration \(migration.version) (\(migration.summary))")
            }
        }
    }
}
