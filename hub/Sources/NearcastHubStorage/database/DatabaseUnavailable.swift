@preconcurrency import AsyncKit
import NearcastHub
import PostgresKit
import SQLiteKit

extension HubDatabase {
    /// Whether `error` means the database cannot answer now but may soon (PostgreSQL stopped,
    /// restarting or refusing connections; a pooled connection closed under the query; no
    /// connection free in time; SQLite busy or locked by another process), as opposed to a
    /// fault in the request or the hub. Such a request is answered 503 with Retry-After, which
    /// clients retry, rather than 500, which says the hub is broken.
    public static func isUnavailable(_ error: any Error) -> Bool {
        if let error = error as? PSQLError {
            switch error.code {
            case .connectionError, .serverClosedConnection, .clientClosedConnection, .uncleanShutdown, .poolClosed:
                return true
            case .server:
                // SQLSTATE classes 08 (connection exception), 53 (insufficient resources: too
                // many connections) and 57 (operator intervention: shutting down, starting up).
                let state = error.serverInfo?[.sqlState] ?? ""
                return state.hasPrefix("08") || state.hasPrefix("53") || state.hasPrefix("57")
            default:
                return false
            }
        }
        if error is ConnectionPoolTimeoutError || error is ConnectionPoolError { return true }
        if let error = error as? SQLiteError {
            switch error.reason {
            case .busy, .locked, .busyTimeout, .busyInRecovery, .busyInSnapshot, .lockedBySharedCache: return true
            default: return false
            }
        }
        return false
    }
}
