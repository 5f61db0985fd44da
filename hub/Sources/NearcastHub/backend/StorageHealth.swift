/// Whether the storage answers, and how its errors read: what `/healthz`, the error middleware
/// and the background tasks' logs ask of it.
package protocol StorageHealth: Sendable {
    /// "sqlite", "postgres" or "memory".
    var kindName: String { get }
    /// Throws when the storage does not answer.
    func ping() async throws
    /// Whether `error` means the storage cannot answer now but may soon (a database restarting,
    /// busy or out of connections), as opposed to a fault in the request or the hub: such a
    /// request is answered 503 with Retry-After, not 500.
    func isUnavailable(_ error: any Error) -> Bool
    /// `error`'s readable text for the hub's own log (a database's message included).
    func describe(_ error: any Error) -> String
}
