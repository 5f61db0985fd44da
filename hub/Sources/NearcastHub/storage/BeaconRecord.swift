import SQLKit

/// One row of `beacons`: a registered box (an EID identity) or a UID / direct token.
///
/// The row's columns that only mean something together are grouped: an EID beacon's
/// registration (`EIDRegistration`, with its clock as last read, `ClockReading`) and the box's
/// last heartbeat (`LastHeartbeat`). The table keeps them as separate columns (`columns`).
struct BeaconRecord: Sendable, Equatable {
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
    /// An EID beacon's keys and clock; nil for a UID or direct token.
    var eidRegistration: EIDRegistration?
    /// The venue's name for the box, given at registration or by a heartbeat.
    var description: String?
    /// False once deleted: the row stays as a tombstone so every instance learns of the deletion.
    var active: Bool
    var createdMs: Int64
    /// Nil until the box's first heartbeat.
    var lastHeartbeat: LastHeartbeat?
    var changeSeq: Int64

    private static func name(kind: Kind, idHex: String) -> String { "beacons/\(kind.nameCode)!\(idHex)" }

    static let columns = """
        project, beacon_name, advertised_type, advertised_id, identity_key, beacon_public_key, exponent,
        clock_value, clock_at_ms, description, status, created_ms, heartbeat_ms, heartbeat, change_seq
        """

    /// A new registration, named the way Google names beacons: an EID beacon when it has an
    /// `eidRegistration`, else a UID or direct token, so a UID record cannot carry EID fields.
    init(project: String, advertisedIDHex: String, eidRegistration: EIDRegistration? = nil, description: String?,
         createdMs: Int64) {
        kind = eidRegistration == nil ? .uid : .eid
        self.project = project
        beaconName = Self.name(kind: kind, idHex: advertisedIDHex)
        self.advertisedIDHex = advertisedIDHex
        self.eidRegistration = eidRegistration
        self.description = description
        active = true
        self.createdMs = createdMs
        lastHeartbeat = nil
        changeSeq = 0
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
        // Only an EID row's key columns mean anything; the hub writes none for a UID.
        eidRegistration = kind == .eid ? try EIDRegistration(row: row) : nil
        description = try row.decode(column: "description", as: String?.self)
        active = try row.decode(column: "status", as: String.self) == "ACTIVE"
        createdMs = try row.decode(column: "created_ms", as: Int64.self)
        lastHeartbeat = try LastHeartbeat(row: row)
        changeSeq = try row.decode(column: "change_seq", as: Int64.self)
    }
}
