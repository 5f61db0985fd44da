extension Beacon {
    /// The box's last heartbeat: what it reported, as the JSON the API shows back, and when the
    /// hub received it. Always set together: each heartbeat replaces both.
    struct LastHeartbeat: Sendable, Equatable {
        /// The `Heartbeat` as received, encoded again with sorted keys.
        var json: String
        var atMs: Int64
    }
}
