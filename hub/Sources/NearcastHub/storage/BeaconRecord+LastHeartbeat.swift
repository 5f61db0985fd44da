import SQLKit

extension BeaconRecord {
    /// The box's last heartbeat: what it reported, as the JSON the API shows back, and when the
    /// hub received it. Always set together: each heartbeat replaces both.
    struct LastHeartbeat: Sendable, Equatable {
        /// The `Heartbeat` as received, encoded again with sorted keys.
        var json: String
        var atMs: Int64
    }
}

extension BeaconRecord.LastHeartbeat {
    /// The heartbeat in `heartbeat` and `heartbeat_ms`; nil before the first.
    init?(row: any SQLRow) throws {
        guard let atMs = try row.decode(column: "heartbeat_ms", as: Int64?.self) else { return nil }
        // A time without text (the hub writes both) still says when the box was last heard, as
        // before; the empty text decodes to no heartbeat in the API's view.
        self.init(json: try row.decode(column: "heartbeat", as: String?.self) ?? "", atMs: atMs)
    }
}
