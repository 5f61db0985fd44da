import NearcastHub
import SQLKit

/// A beacon as a row of `beacons`: the table keeps the grouped parts as separate columns.
extension Beacon {
    static let columns = """
        project, beacon_name, advertised_type, advertised_id, identity_key, beacon_public_key, exponent,
        clock_value, clock_at_ms, description, status, created_ms, heartbeat_ms, heartbeat, change_seq
        """

    init(row: any SQLRow) throws {
        let beaconName = try row.decode(column: "beacon_name", as: String.self)
        let type = try row.decode(column: "advertised_type", as: String.self)
        guard let kind = Kind(rawValue: type) else {
            throw HubConfigurationError("beacon \(beaconName) has an unknown advertised type \(type) in the database")
        }
        self.init(project: try row.decode(column: "project", as: String.self), beaconName: beaconName, kind: kind,
                  advertisedIDHex: try row.decode(column: "advertised_id", as: String.self),
                  // Only an EID row's key columns mean anything; the hub writes none for a UID.
                  eidRegistration: kind == .eid ? try EIDRegistration(row: row) : nil,
                  description: try row.decode(column: "description", as: String?.self),
                  active: try row.decode(column: "status", as: String.self) == "ACTIVE",
                  createdMs: try row.decode(column: "created_ms", as: Int64.self),
                  lastHeartbeat: try LastHeartbeat(row: row),
                  changeSeq: try row.decode(column: "change_seq", as: Int64.self))
    }
}

extension Beacon.EIDRegistration {
    /// The registration in an EID row's columns; nil when any column but the identity key is
    /// empty (the hub writes them all), so the resolvers log and skip such a row, as before.
    init?(row: any SQLRow) throws {
        guard let beaconPublicKey = try row.decode(column: "beacon_public_key", as: String?.self),
              let exponent = try row.decode(column: "exponent", as: Int?.self),
              let clock = try Beacon.ClockReading(row: row) else { return nil }
        self.init(identityKeyHex: try row.decode(column: "identity_key", as: String?.self),
                  beaconPublicKey: beaconPublicKey, exponent: exponent, clock: clock)
    }
}

extension Beacon.ClockReading {
    /// The reading in `clock_value` and `clock_at_ms`; nil when either is empty.
    init?(row: any SQLRow) throws {
        guard let value = try row.decode(column: "clock_value", as: Int64?.self),
              let atMs = try row.decode(column: "clock_at_ms", as: Int64?.self) else { return nil }
        self.init(value: value, atMs: atMs)
    }
}

extension Beacon.LastHeartbeat {
    /// The heartbeat in `heartbeat` and `heartbeat_ms`; nil before the first.
    init?(row: any SQLRow) throws {
        guard let atMs = try row.decode(column: "heartbeat_ms", as: Int64?.self) else { return nil }
        // A time without text (the hub writes both) still says when the box was last heard, as
        // before; the empty text decodes to no heartbeat in the API's view.
        self.init(json: try row.decode(column: "heartbeat", as: String?.self) ?? "", atMs: atMs)
    }
}
