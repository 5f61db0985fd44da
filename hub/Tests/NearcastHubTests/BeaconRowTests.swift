import Foundation
import HummingbirdTesting
import SQLKit
@testable import NearcastHub
@testable import NearcastHubStorage
import XCTest

/// `Beacon`'s grouped fields against the `beacons` table's columns: what the store writes
/// reads back field for field (in memory and through `Beacon(row:)` from SQLite), a
/// heartbeat replaces the last heartbeat and re-reads only an EID's clock, a deleted EID keeps all
/// but its identity key, and only a complete EID row reads as a registration.
final class BeaconRowTests: XCTestCase {
    /// A UID beacon, with a description and no EID fields.
    private static let door = Beacon(project: "demo", advertisedIDHex: "0a0b", description: "Door", createdMs: 1_000)
    /// An EID beacon with its clock near the top of its 32 bits.
    private static let box = Beacon(
        project: "demo", advertisedIDHex: "0102030405060708",
        eidRegistration: .init(identityKeyHex: String(repeating: "ab", count: 16), beaconPublicKey: "cHVibGljIGtleQ==",
                               exponent: 9, clock: .init(value: 4_000_000_000, atMs: 2_000)),
        description: nil, createdMs: 2_000)

    func testANewRecordIsNamedAndKindedByWhetherItHasAnEIDRegistration() {
        XCTAssertEqual(Self.door.kind, .uid)
        XCTAssertEqual(Self.door.beaconName, "beacons/3!0a0b")
        XCTAssertEqual(Self.box.kind, .eid)
        XCTAssertEqual(Self.box.beaconName, "beacons/4!0102030405060708")
        XCTAssertTrue(Self.box.active && Self.box.lastHeartbeat == nil && Self.box.changeSeq == 0)
    }

    func testAUIDAnEIDAndADeletedEIDReadBackFieldForField() async throws {
        try await RouterWorld.each { world, _, storage in
            let beacons = world.hub.repositories.beacons, changes = world.hub.repositories.beaconChanges
            var door = try await beacons.register(Self.door), box = try await beacons.register(Self.box)
            XCTAssertEqual(door, Self.numbered(Self.door, as: door), "\(storage)")
            XCTAssertEqual(box, Self.numbered(Self.box, as: box), "\(storage)")
            var listed = try await beacons.list(project: "demo")
            XCTAssertEqual(listed, [door, box], "\(storage)")

            // A clock value in a UID's heartbeat moves no clock: it has none.
            try await beacons.recordHeartbeat(BeaconRef(project: "demo", beaconName: door.beaconName),  heartbeatJSON: #"{"clockValue":8}"#,
                                              clockValue: 8, boxName: nil, atMs: 3_500)
            try await beacons.recordHeartbeat(BeaconRef(project: "demo", beaconName: box.beaconName),  heartbeatJSON: #"{"clockValue":7}"#,
                                              clockValue: 7, boxName: "Room A", atMs: 3_000)
            door.lastHeartbeat = .init(json: #"{"clockValue":8}"#, atMs: 3_500)
            box.lastHeartbeat = .init(json: #"{"clockValue":7}"#, atMs: 3_000)
            box.eidRegistration?.clock = .init(value: 7, atMs: 3_000)
            box.description = "Room A"
            listed = try await beacons.list(project: "demo")
            XCTAssertEqual(listed.first, door, "\(storage): a heartbeat moving nothing the resolvers read keeps its number")
            let anchored = try XCTUnwrap(listed.last, "\(storage)")
            XCTAssertGreaterThan(anchored.changeSeq, box.changeSeq, "\(storage)")
            XCTAssertEqual(anchored, Self.numbered(box, as: anchored), "\(storage)")

            try await beacons.delete(BeaconRef(project: "demo", beaconName: box.beaconName))
            let eids = try await changes.changed(after: 0).beacons.filter { $0.kind == .eid }
            let tombstone = try XCTUnwrap(eids.first, "\(storage)")
            box.active = false
            box.eidRegistration?.identityKeyHex = nil
            XCTAssertEqual(tombstone, Self.numbered(box, as: tombstone), "\(storage): all kept but the identity key")
        }
    }

    func testOnlyACompleteEIDRowReadsAsARegistration() async throws {
        try await RouterWorld.each([.sqlite]) { world, _, _ in
            // Rows the hub never writes: a UID with key and clock columns, an EID without a clock.
            try await XCTUnwrap(world.hub.backend as? SQLBackend).database.transaction { db in
                for (type, id, clock) in [("EDDYSTONE", "0c", "5"), ("EDDYSTONE_EID", "0d0d0d0d0d0d0d0d", "NULL")] {
                    let name = "beacons/\(type == "EDDYSTONE" ? 3 : 4)!\(id)"
                    try await db.raw("""
                        INSERT INTO beacons (\(unsafeRaw: Beacon.columns)) VALUES ('demo', \(bind: name), \(bind: type),
                            \(bind: id), 'abab', 'cGs=', 9, \(unsafeRaw: clock), 1, NULL, 'ACTIVE', 1, NULL, NULL, 1000)
                        """).run()
                }
            }
            let uid = try await world.hub.repositories.beacons.get(BeaconRef(project: "demo", beaconName: "beacons/3!0c"))
            XCTAssertEqual(uid.kind, .uid)
            XCTAssertNil(uid.eidRegistration, "a UID record carries no EID fields")
            let eid = try await world.hub.repositories.beacons.get(BeaconRef(project: "demo", beaconName: "beacons/4!0d0d0d0d0d0d0d0d"))
            XCTAssertEqual(eid.kind, .eid)
            XCTAssertNil(eid.eidRegistration, "without a clock the resolvers skip it, as they did")
        }
    }

    /// `expected` with the change number the storage gave `stored`: memory and SQLite count their
    /// own way (`StorageRulesTests` checks the numbering), every other field must match.
    private static func numbered(_ expected: Beacon, as stored: Beacon) -> Beacon {
        var numbered = expected
        numbered.changeSeq = stored.changeSeq
        return numbered
    }
}
