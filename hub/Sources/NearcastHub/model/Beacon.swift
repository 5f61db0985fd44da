/// A registered beacon: a box (an EID identity) or a UID / direct token, active or (deleted) a
/// tombstone that tells every instance of the deletion.
///
/// What only means something together is grouped: an EID beacon's registration
/// (`EIDRegistration`, with its clock as last read, `ClockReading`) and the box's last heartbeat
/// (`LastHeartbeat`).
package struct Beacon: Sendable, Equatable {
    /// The rotation exponents a beacon may register with. Below 2^5 s a beacon's window would
    /// hold hundreds of EIDs; 15 is the Eddystone maximum.
    package static let exponents = 5...15

    /// `EDDYSTONE` (a UID or direct token) or `EDDYSTONE_EID`.
    package enum Kind: String, Sendable {
        case uid = "EDDYSTONE"
        case eid = "EDDYSTONE_EID"

        /// The type code in a beacon name, `beacons/N!hex`: Google's 3 for Eddystone, 4 for EIDs.
        package var nameCode: Character { self == .uid ? "3" : "4" }
    }

    package var project: String
    package var beaconName: String
    package var kind: Kind
    package var advertisedIDHex: String
    /// An EID beacon's keys and clock; nil for a UID or direct token.
    package var eidRegistration: EIDRegistration?
    /// The venue's name for the box, given at registration or by a heartbeat.
    package var description: String?
    /// False once deleted: the row stays as a tombstone so every instance learns of the deletion.
    package var active: Bool
    package var createdMs: Int64
    /// Nil until the box's first heartbeat.
    package var lastHeartbeat: LastHeartbeat?
    package var changeSeq: Int64

    package init(project: String, beaconName: String, kind: Kind, advertisedIDHex: String,
                 eidRegistration: EIDRegistration?, description: String?, active: Bool, createdMs: Int64,
                 lastHeartbeat: LastHeartbeat?, changeSeq: Int64) {
        self.project = project
        self.beaconName = beaconName
        self.kind = kind
        self.advertisedIDHex = advertisedIDHex
        self.eidRegistration = eidRegistration
        self.description = description
        self.active = active
        self.createdMs = createdMs
        self.lastHeartbeat = lastHeartbeat
        self.changeSeq = changeSeq
    }

    private static func name(kind: Kind, idHex: String) -> String { "beacons/\(kind.nameCode)!\(idHex)" }

    /// A new registration, named the way Google names beacons: an EID beacon when it has an
    /// `eidRegistration`, else a UID or direct token, so a UID record cannot carry EID fields.
    package init(project: String, advertisedIDHex: String, eidRegistration: EIDRegistration? = nil, description: String?,
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
