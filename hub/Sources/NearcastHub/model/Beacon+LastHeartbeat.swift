extension Beacon {
    /// The box's last heartbeat: what it reported, as the JSON the API shows back, and when the
    /// hub received it. Always set together: each heartbeat replaces both.
    package struct LastHeartbeat: Sendable, Equatable {
        /// The `Heartbeat` as received, encoded again with sorted keys.
        package var json: String
        package var atMs: Int64

        package init(json: String, atMs: Int64) {
            self.json = json
            self.atMs = atMs
        }
    }
}
