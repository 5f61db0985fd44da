import SQLKit

/// One row of `beacons`: a registered box (an EID identity) or a UID / direct token.
struct BeaconRecord: Sendable {
    /// The rotation exponents a beacon may register with. Below 2^5 s a beacon's window would
    /// hold hundreds of EIDs; 15 is the Eddystone maximum.
    static let exponents = 5...15

    /// `EDDYSTONE` (a UID or direct token) or `EDDYSTONE_EID`.
    enum Kind: String, Sendable {
        case uid = "EDDYSTONE"
        case eid = "EDDYSTONE_EID"

        /// The type code in a beacon name, `beacons/N!hex`: Google's 3 for Eddystone, 4 for EIDs.
        var nameCode: Character { self == .uid ? "3" : "4" }
    }

    var project: String
    var beaconName: String
    var kind: Kind
    var advertisedIDHex: String
    var identityKeyHex: String?
    var beaconPublicKey: String?
    var exponent: Int?
    var clockValue: Int64?
    var clockAtMs: Int64?
    var description: String?
    var active: Bool
    var createdMs: Int64
    var heartbeatMs: Int64?
    var heartbeat: String?
    var changeSeq: Int64

    static func name(kind: Kind, idHex: String) -> String { "beacons/\(kind.nameCode)!\(idHex)" }

    static let columns = """
        project, beacon_name, advertised_type, advertised_id, identity_key, beacon_public_key, exponent,
        clock_value, clock_at_ms, description, status, created_ms, heartbeat_ms, heartbeat, change_seq
        """

    init(project: String, beaconName: String, kind: Kind, advertisedIDHex: String, identityKeyHex: String? = nil,
         beaconPublicKey: String? = nil, exponent: Int? = nil, clockValue: Int64? = nil, clockAtMs: Int64? = nil,
         description: String? = nil, active: Bool = true, createdMs: Int64, changeSeq: Int64 = 0) {
        self.project = project
        self.beaconName = beaconName
        self.kind = kind
        self.advertisedIDHex = advertisedIDHex
        self.identityKeyHex = identityKeyHex
        self.beaconPublicKey = beaconPublicKey
        self.exponent = exponent
        self.clockValue = clockValue
        self.clockAtMs = clockAtMs
        self.description = description
        self.active = active
        self.createdMs = createdMs
        self.changeSeq = changeSeq
    }

    init(row: any SQLRow) throws {
        project = try row.decode(column: "project", as: String.self)
        beaconName = try row.decode(column: "beacon_name", as: String.self)
        let type = try row.decode(column: "advertised_type", as: String.self)
        guard let kind = Kind(rawValue: type) else {
            throw HubConfigurationError("beacon \(beaconName) has an unknown advertised type \(type) in the database")
        }
        self.kind = kind
        advertisedIDHex = try row.decode(column: "advertised_id", as: String.self)
        identityKeyHex = try row.decode(column: "identity_key", as: String?.self)
        beaconPublicKey = try row.decode(column: "beacon_public_key", as: String?.self)
        exponent = try row.decode(column: "exponent", as: Int?.self)
        clockValue = try row.decode(column: "clock_value", as: Int64?.self)
        clockAtMs = try row.decode(column: "clock_at_ms", as: Int64?.self)
        description = try row.decode(column: "description", as: String?.self)
        active = try row.decode(column: "status", as: String.self) == "ACTIVE"
        createdMs = try row.decode(column: "created_ms", as: Int64.self)
        heartbeatMs = try row.decode(column: "heartbeat_ms", as: Int64?.self)
        heartbeat = try row.decode(column: "heartbeat", as: String?.self)
        changeSeq = try row.decode(column: "change_seq", as: Int64.self)
    }
}
