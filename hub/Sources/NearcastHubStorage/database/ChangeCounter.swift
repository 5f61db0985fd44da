import NearcastHub
import SQLKit

/// The `changes` counter: every write that a resolver cache, the beacon directory or a watch
/// must see takes the next value inside its transaction (and, on PostgreSQL, tells the other
/// instances: `ChangeSignal`). The row lock serialises writers until they commit, so a reader
/// that has seen value N has seen every change numbered up to N.
enum ChangeCounter {
    /// PostgreSQL's channel for changes made through any instance.
    static let channel = "nearcast_counter"

    static func next(_ db: any SQLDatabase) async throws -> Int64 {
        guard let row = try await db.raw(
            "UPDATE hub_counters SET value = value + 1 WHERE name = 'changes' RETURNING value").first()
        else { throw HubConfigurationError("the database has no 'changes' counter: was its schema changed by hand?") }
        // This instance's in-memory views learn of it after the commit, every other
        // instance's by NOTIFY when (and only if) it commits.
        TransactionMarks.current?.tookChangeCounter = true
        if db.dialect.name == "postgresql" {
            try await db.raw("SELECT pg_notify(\(bind: channel), '')").run()
        }
        return try row.decode(column: "value", as: Int64.self)
    }
}
