/// A registered beacon: a box (an EID identity) or a UID / direct token, active or (deleted) a
/// tombstone that tells every instance of the deletion.
///
/// What only means something together is grouped: an EID beacon's registration
/// (`EIDRegistration`, with its clock as last read, `ClockReading`) and the box's last heartbeat
/// (`LastHeartbeat`).
struct Beacon: Sendable, Equatable {
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
}
