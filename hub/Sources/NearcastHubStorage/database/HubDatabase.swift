@preconcurrency import AsyncKit
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import NearcastHub
import PostgresKit
import SQLiteKit

/// The hub's database, SQLite or PostgreSQL behind one interface: every store runs the same SQL
/// through SQLKit (which writes each dialect's placeholders), inside `read` or `transaction`.
///
/// SQLite is one connection, and a gate lets one task use it at a time (SQLite serialises writers
/// anyway; this keeps one request's statements out of another's transaction). PostgreSQL is a
/// pool; each transaction holds one pooled connection from BEGIN to COMMIT.
public final class HubDatabase: Sendable {
    public let location: DatabaseLocation
    /// Moves after every transaction committed through this object that took the change counter
    /// (and, on PostgreSQL, at other instances' changes, through the hub's listener): see
    /// `ChangeSignal`.
    public let changes = ChangeSignal()
    let logger: Logger
    private let backend: Backend
    private let closed = NIOLockedValueBox(false)

    private enum Backend: Sendable {
        case sqlite(SQLiteConnection, SerialGate)
        case postgres(EventLoopGroupConnectionPool<PostgresConnectionSource>, PostgresConnection.Configuration)
    }

    public var isPostgres: Bool {
        if case .postgres = backend { return true }
        return false
    }

    private init(location: DatabaseLocation, logger: Logger, backend: Backend) {
        self.location = location
        self.logger = logger
        self.backend = backend
    }

    /// Opens (for SQLite, creates) the database and brings its schema up to date.
    public static func open(_ location: DatabaseLocation, logger: Logger) async throws -> HubDatabase {
        let database: HubDatabase
        switch location {
        case .sqlite(let path):
            let connection: SQLiteConnection
            do {
                connection = try await SQLiteConnection.open(
                    storage: .file(path: path), threadPool: .singleton, logger: logger,
                    on: MultiThreadedEventLoopGroup.singleton.any()).get()
            } catch {
                throw HubConfigurationError("cannot open the SQLite database \(path): \(error)")
            }
            database = HubDatabase(location: location, logger: logger, backend: .sqlite(connection, SerialGate()))
            // WAL: readers of the file (a backup, sqlite3) never block the hub; a crash mid-write
            // loses nothing committed. Foreign keys are off by default in SQLite.
            try await database.read { db in
                try await db.raw("PRAGMA journal_mode = WAL").run()
                try await db.raw("PRAGMA foreign_keys = ON").run()
                try await db.raw("PRAGMA synchronous = NORMAL").run()
            }
        case .postgres(let url):
            let configuration: SQLPostgresConfiguration
            do {
                configuration = try SQLPostgresConfiguration(url: url)
            } catch {
                throw HubConfigurationError("--db \(location): not a PostgreSQL URL this hub can use (\(error))")
            }
            let pool = EventLoopGroupConnectionPool(
                source: PostgresConnectionSource(sqlConfiguration: configuration),
                maxConnectionsPerEventLoop: 4, logger: logger, on: MultiThreadedEventLoopGroup.singleton)
            database = HubDatabase(location: location, logger: logger,
                                   backend: .postgres(pool, configuration.coreConfiguration))
            do {
                try await database.read { db in try await db.raw("SELECT 1").run() }
            } catch {
                await database.close()
                throw HubConfigurationError("cannot reach PostgreSQL at \(location): \(describe(error))")
            }
        }
        do {
            try await SchemaMigrations.apply(to: database)
        } catch let error as HubConfigurationError {
            await database.close()
            throw error
        } catch {
            await database.close()
            throw HubConfigurationError("cannot bring the database at \(location) up to date: \(describe(error))")
        }
        return database
    }

    /// An error's readable text. PostgresNIO hides the server's message from `description` (it
    /// may hold data); the hub's own logs and errors need it, so it is read from the reflection.
    public static func describe(_ error: any Error) -> String {
        if let error = error as? PSQLError {
            if let message = error.serverInfo?[.message] {
                let detail = error.serverInfo?[.detail].map { " (\($0))" } ?? ""
                return "PostgreSQL: \(message)\(detail)"
            }
            return "PostgreSQL: \(error.code)" + (error.underlying.map { ": \($0)" } ?? "")
        }
        return String(describing: error)
    }

    /// Runs `body` with the database; for SQLite, alone on its connection.
    public func read<R: Sendable>(_ body: @escaping @Sendable (any SQLDatabase) async throws -> R) async throws -> R {
        switch backend {
        case .sqlite(let connection, let gate):
            await gate.enter()
            do {
                let result = try await body(connection.sql())
                await gate.leave()
                return result
            } catch {
                await gate.leave()
                throw error
            }
        case .postgres(let pool, _):
            return try await body(pool.database(logger: logger).sql())
        }
    }

    /// Runs `body` in one transaction: all its writes land, or (on any error) none do.
    public func transaction<R: Sendable>(_ body: @escaping @Sendable (any SQLDatabase) async throws -> R) async throws -> R {
        let begin = isPostgres ? "BEGIN" : "BEGIN IMMEDIATE"
        let changes = self.changes
        let run: @Sendable (any SQLDatabase) async throws -> R = { db in
            try await db.raw(SQLQueryString(begin)).run()
            do {
                let marks = TransactionMarks()
                let result = try await TransactionMarks.$current.withValue(marks) { try await body(db) }
                try await db.raw("COMMIT").run()
                if marks.tookChangeCounter { changes.bump() }
                return result
            } catch {
                try? await db.raw("ROLLBACK").run()
                throw error
            }
        }
        switch backend {
        case .sqlite:
            return try await read(run)
        case .postgres(let pool, _):
            return try await pool.database(logger: logger).sql().withSession(run)
        }
    }

    /// A connection of its own for LISTEN (PostgreSQL only).
    func makeListenConnection() async throws -> PostgresConnection? {
        guard case .postgres(_, let configuration) = backend else { return nil }
        return try await PostgresConnection.connect(
            on: MultiThreadedEventLoopGroup.singleton.any(), configuration: configuration, id: 1, logger: logger).get()
    }

    /// Closes the connection or pool; a second call does nothing (closing an SQLite connection
    /// twice crashes sqlite-nio).
    public func close() async {
        let first = closed.withLockedValue { wasClosed in
            defer { wasClosed = true }
            return !wasClosed
        }
        guard first else { return }
        switch backend {
        case .sqlite(let connection, _):
            try? await connection.close().get()
        case .postgres(let pool, _):
            try? await pool.shutdownAsync()
        }
    }
}
