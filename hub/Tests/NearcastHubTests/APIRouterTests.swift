import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
@testable import NearcastHub
import XCTest

/// The beacon API's contract through the router (`app.test(.router)`), with projects, beacons
/// and attachments in memory and in SQLite: every route's answer and refusal shapes, key scopes
/// and projects kept apart. (PostgreSQL, restarts and concurrency are hub/e2e/test_api.py's.)
final class APIRouterTests: XCTestCase {
    static let uid: [UInt8] = [1, 2, 3, 4, 5, 6, 7, 8]

    private static func registerUID(_ client: any TestClientProtocol, key: String, uid: [UInt8] = uid,
                             description: String = "stage door") async throws -> String {
        let answer = try await client.call(.post, "/v1beta1/beacons:register", key: key,
                                           json: ["advertisedId": ["type": "EDDYSTONE", "id": base64(uid)], "description": description])
        XCTAssertEqual(answer.status, .ok, answer.text)
        return answer.json["beaconName"] as? String ?? ""
    }

    private static func attach(_ client: any TestClientProtocol, _ name: String, _ text: String, type: String = "demo/slide",
                        key: String) async throws -> [String: Any] {
        let answer = try await client.call(.post, "/v1beta1/\(name)/attachments", key: key,
                                           json: ["namespacedType": type, "data": base64(Array(text.utf8))])
        XCTAssertEqual(answer.status, .ok, answer.text)
        return answer.json
    }

    private static func beacons(_ client: any TestClientProtocol, key: String) async throws -> [[String: Any]] {
        let answer = try await client.call(.get, "/v1beta1/beacons", key: key)
        XCTAssertEqual(answer.status, .ok, answer.text)
        return answer.json["beacons"] as? [[String: Any]] ?? []
    }

    private static func data(_ attachments: Any?) -> [String] {
        ((attachments as? [[String: Any]]) ?? []).map { attachment in
            String(decoding: Data(base64Encoded: attachment["data"] as? String ?? "") ?? Data(), as: UTF8.self)
        }
    }

    func testAPathNoRouteTakesIsA404InTheErrorShapeNamingIt() async throws {
        try await RouterWorld.each { world, client, _ in
            let answer = try await client.call(.put, "/v1/shows/", key: world.demo.secretKey)
            assertRefusal(answer, .notFound)
            XCTAssertEqual(answer.error["status"] as? String, "NOT_FOUND")
            XCTAssertTrue((answer.error["message"] as? String ?? "").contains("PUT /v1/shows/"), answer.text)
        }
    }

    func testEIDParamsGivesTheServiceKeyAndTheExponents() async throws {
        try await RouterWorld.each { world, client, _ in
            let answer = try await client.call(.get, "/v1beta1/eidparams")
            XCTAssertEqual(answer.status, .ok)
            XCTAssertEqual(answer.json["serviceEcdhPublicKey"] as? String, base64([UInt8](world.hub.resolver.serviceKey.publicKey)))
            XCTAssertEqual(answer.json["minRotationPeriodExponent"] as? Int, 5)
            XCTAssertEqual(answer.json["maxRotationPeriodExponent"] as? Int, 15)
        }
    }

    func testAUIDBeaconIsRegisteredListedReadAndDeleted() async throws {
        try await RouterWorld.each { world, client, storage in
            let secret = world.demo.secretKey
            let name = try await Self.registerUID(client, key: secret)
            XCTAssertEqual(name, "beacons/3!0102030405060708", storage.rawValue)
            let listed = try await Self.beacons(client, key: secret)
            XCTAssertEqual(listed.map { $0["beaconName"] as? String }, [name])
            let read = try await client.call(.get, "/v1beta1/\(name)", key: secret)
            XCTAssertEqual(read.json["advertisedId"] as? [String: String], ["type": "EDDYSTONE", "id": base64(Self.uid)])
            XCTAssertEqual(read.json["description"] as? String, "stage door")
            XCTAssertEqual(read.json["status"] as? String, "ACTIVE")
            assertRefusal(try await client.call(.post, "/v1beta1/beacons:register", key: secret,
                                                json: ["advertisedId": ["type": "EDDYSTONE", "id": base64(Self.uid)]]),
                          .conflict, field: "advertisedId")
            assertStatus(try await client.call(.delete, "/v1beta1/\(name)", key: secret), .ok)
            assertRefusal(try await client.call(.get, "/v1beta1/\(name)", key: secret), .notFound)
            assertRefusal(try await client.call(.delete, "/v1beta1/\(name)", key: secret), .notFound)
            let afterDelete = try await Self.beacons(client, key: secret)
            XCTAssertTrue(afterDelete.isEmpty)
            let again = try await Self.registerUID(client, key: secret)
            XCTAssertEqual(again, name, "a deleted beacon can be registered again")
        }
    }

    func testAnEIDBeaconRegistersTheEddystoneWayAndNeverShowsItsIdentityKey() async throws {
        try await RouterWorld.each { world, client, _ in
            let beacon = try TestBeacon(hub: world.hub)
            let answer = try await client.call(.post, "/v1beta1/beacons:register", key: world.demo.secretKey,
                                               json: try beacon.registration(description: "main hall"))
            XCTAssertEqual(answer.status, .ok, answer.text)
            XCTAssertEqual(answer.json["beaconName"] as? String, try beacon.name)
            let listed = try await Self.beacons(client, key: world.demo.secretKey)
            XCTAssertEqual(listed.count, 1)
            let registration = listed.first?["ephemeralIdRegistration"] as? [String: Any]
            XCTAssertEqual(registration?["beaconEcdhPublicKey"] as? String, base64([UInt8](beacon.key.publicKey.rawRepresentation)))
            XCTAssertEqual(registration?["rotationPeriodExponent"] as? Int, 10)
            XCTAssertEqual((listed.first?["clock"] as? [String: Any])?["clockValue"] as? Int, Int(beacon.clock))
            let text = try await client.call(.get, "/v1beta1/beacons", key: world.demo.secretKey).text
            XCTAssertFalse(text.contains("identityKey"), "the identity key is never shown")
        }
    }

    func testRegistrationsThatDoNotVerifyAreRefusedNamingTheFieldAndNothingIsStored() async throws {
        try await RouterWorld.each { world, client, _ in
            let beacon = try TestBeacon(hub: world.hub)
            let other = try base64(TestBeacon(hub: world.hub).eid())
            /// The beacon's registration with `change` made to its JSON.
            func changed(_ change: (inout [String: Any], inout [String: Any]) -> Void, beacon: TestBeacon = beacon) throws -> [String: Any] {
                var body = try beacon.registration()
                var advertised = body["advertisedId"] as! [String: Any]
                var registration = body["ephemeralIdRegistration"] as! [String: Any]
                change(&advertised, &registration)
                body["advertisedId"] = advertised
                body["ephemeralIdRegistration"] = registration
                return body
            }
            var cases: [([String: Any], String)] = [
                (try changed { $1["initialEid"] = other; $0["id"] = other }, "ephemeralIdRegistration.initialEid"),
                (try changed { $1["serviceEcdhPublicKey"] = base64([UInt8](repeating: 0, count: 32)) }, "ephemeralIdRegistration.serviceEcdhPublicKey"),
                (try TestBeacon(hub: world.hub, exponent: 3).registration(), "ephemeralIdRegistration.rotationPeriodExponent"),
                (try changed { advertised, _ in advertised["id"] = base64([UInt8](repeating: 0, count: 8)) }, "advertisedId.id"),
                (try changed { advertised, _ in advertised["type"] = "IBEACON" }, "advertisedId.type"),
                (try changed { $1["beaconEcdhPublicKey"] = base64([UInt8](repeating: 0, count: 31)) }, "ephemeralIdRegistration.beaconEcdhPublicKey"),
                (try changed { $1["initialClockValue"] = "soon" }, "ephemeralIdRegistration.initialClockValue"),
                (try changed { $1["initialClockValue"] = 1 << 32 }, "ephemeralIdRegistration.initialClockValue"),
                (try changed { advertised, _ in advertised["id"] = "%%%" }, "advertisedId.id"),
                (try changed { $1["beaconEcdhPublicKey"] = base64([UInt8](repeating: 0, count: 32)) }, "ephemeralIdRegistration.beaconEcdhPublicKey"),
            ]
            var unregistered = try beacon.registration()
            unregistered["ephemeralIdRegistration"] = nil
            cases.append((unregistered, "ephemeralIdRegistration"))
            for (body, field) in cases {
                assertRefusal(try await client.call(.post, "/v1beta1/beacons:register", key: world.demo.secretKey, json: body),
                              .badRequest, field: field)
            }
            let stored = try await Self.beacons(client, key: world.demo.secretKey)
            XCTAssertTrue(stored.isEmpty)
            assertRefusal(try await client.call(.post, "/v1beta1/beacons:register", key: world.demo.secretKey, raw: Array("{not json".utf8)),
                          .badRequest, field: "(body)")
            assertRefusal(try await client.call(.post, "/v1beta1/beacons:register", key: world.demo.secretKey, raw: []), .badRequest)
        }
    }

    func testBadBeaconNamesAre400AndUnknownOnes404() async throws {
        try await RouterWorld.each { world, client, _ in
            assertRefusal(try await client.call(.get, "/v1beta1/beacons/9!00", key: world.demo.secretKey), .badRequest, field: "beaconName")
            assertRefusal(try await client.call(.get, "/v1beta1/beacons/3!ZZ", key: world.demo.secretKey), .badRequest, field: "beaconName")
            assertRefusal(try await client.call(.get, "/v1beta1/beacons/3!00aa", key: world.demo.secretKey), .notFound)
        }
    }

    func testKeysAreRequiredAndProjectsDoNotSeeEachOther() async throws {
        try await RouterWorld.each { world, client, _ in
            let name = try await Self.registerUID(client, key: world.demo.secretKey)
            _ = try await Self.attach(client, name, "slide 1", key: world.demo.secretKey)
            assertRefusal(try await client.call(.get, "/v1beta1/beacons"), .unauthorized)
            assertRefusal(try await client.call(.get, "/v1beta1/beacons", key: "ncsec_nonsense"), .forbidden)
            assertRefusal(try await client.call(.get, "/v1beta1/beacons", key: world.demo.apiKey), .forbidden)
            assertRefusal(try await client.call(.post, "/v1beta1/beaconinfo:getforobserved",
                                                json: ["observations": [["advertisedId": ["type": "EDDYSTONE", "id": base64(Self.uid)]]]]),
                          .unauthorized)
            // ?key= works as the header does for the public key; the secret key is refused there.
            assertStatus(try await client.call(.post, "/v1beta1/beaconinfo:getforobserved?key=\(world.demo.apiKey)",
                                               json: ["observations": [["advertisedId": ["type": "EDDYSTONE", "id": base64(Self.uid)]]]]), .ok)
            assertRefusal(try await client.call(.get, "/v1beta1/beacons?key=\(world.demo.secretKey)"), .forbidden, field: "key")
            let theirs = world.other.secretKey
            let listed = try await Self.beacons(client, key: theirs)
            XCTAssertTrue(listed.isEmpty)
            assertRefusal(try await client.call(.get, "/v1beta1/\(name)", key: theirs), .notFound)
            assertRefusal(try await client.call(.delete, "/v1beta1/\(name)", key: theirs), .notFound)
            assertRefusal(try await client.call(.get, "/v1beta1/\(name)/attachments", key: theirs), .notFound)
            // The same id in another project is that project's own beacon, in its own namespace.
            let otherName = try await Self.registerUID(client, key: theirs)
            XCTAssertEqual(otherName, name)
            assertRefusal(try await client.call(.post, "/v1beta1/\(name)/attachments", key: theirs,
                                                json: ["namespacedType": "demo/slide", "data": base64([120])]),
                          .forbidden, field: "namespacedType")
            _ = try await Self.attach(client, name, "theirs", type: "other/slide", key: theirs)
            let mine = try await client.call(.get, "/v1beta1/\(name)/attachments", key: world.demo.secretKey)
            XCTAssertEqual(Self.data(mine.json["attachments"]), ["slide 1"])
        }
    }

    func testAttachmentsAreAddedListedFilteredAndDeleted() async throws {
        try await RouterWorld.each { world, client, _ in
            let secret = world.demo.secretKey
            let name = try await Self.registerUID(client, key: secret)
            let first = try await Self.attach(client, name, "event 42", type: "demo/event", key: secret)
            _ = try await Self.attach(client, name, "slide 1", key: secret)
            _ = try await Self.attach(client, name, "slide 2", key: secret)
            let attachmentName = first["attachmentName"] as? String ?? ""
            XCTAssertTrue(attachmentName.hasPrefix(name + "/attachments/"), attachmentName)
            let all = try await client.call(.get, "/v1beta1/\(name)/attachments", key: secret)
            XCTAssertEqual(Self.data(all.json["attachments"]), ["event 42", "slide 1", "slide 2"], "in the order added")
            let slides = try await client.call(.get, "/v1beta1/\(name)/attachments?namespacedType=demo/slide", key: secret)
            XCTAssertEqual(Self.data(slides.json["attachments"]), ["slide 1", "slide 2"])
            let id = String(attachmentName.split(separator: "/").last ?? "")
            assertStatus(try await client.call(.delete, "/v1beta1/\(name)/attachments/\(id)", key: secret), .ok)
            assertRefusal(try await client.call(.delete, "/v1beta1/\(name)/attachments/\(id)", key: secret), .notFound)
            let batch = try await client.call(.post, "/v1beta1/\(name)/attachments:batchDelete?namespacedType=demo/slide", key: secret)
            XCTAssertEqual(batch.json["numDeleted"] as? Int, 2, batch.text)
            let emptied = try await client.call(.get, "/v1beta1/\(name)/attachments", key: secret)
            XCTAssertEqual(Self.data(emptied.json["attachments"]), [])
            assertRefusal(try await client.call(.post, "/v1beta1/beacons/3!00ff/attachments", key: secret,
                                                json: ["namespacedType": "demo/slide", "data": base64([120])]), .notFound)
            // A deleted beacon takes its attachments with it.
            _ = try await Self.attach(client, name, "slide 3", key: secret)
            assertStatus(try await client.call(.delete, "/v1beta1/\(name)", key: secret), .ok)
            _ = try await Self.registerUID(client, key: secret)
            let afterDelete = try await client.call(.get, "/v1beta1/\(name)/attachments", key: secret)
            XCTAssertEqual(Self.data(afterDelete.json["attachments"]), [])
        }
    }

    func testAttachmentDataIsLimitedTo100KiBAndBadAttachmentsAre400NamingTheField() async throws {
        try await RouterWorld.each { world, client, _ in
            let secret = world.demo.secretKey
            let name = try await Self.registerUID(client, key: secret)
            _ = try await Self.attach(client, name, String(repeating: "x", count: 100 * 1024), key: secret)
            assertRefusal(try await client.call(.post, "/v1beta1/\(name)/attachments", key: secret,
                                                json: ["namespacedType": "demo/slide", "data": base64(Array(repeating: 120, count: 100 * 1024 + 1))]),
                          .badRequest, field: "data")
            let cases: [([String: Any], String)] = [
                (["namespacedType": "slide", "data": "eA=="], "namespacedType"),
                (["namespacedType": "demo/", "data": "eA=="], "namespacedType"),
                (["namespacedType": "demo/slide"], "data"),
                (["namespacedType": "demo/slide", "data": "not base64!"], "data"),
                // One base64 value has one spelling: no extra padding, no stray bits.
                (["namespacedType": "demo/slide", "data": "AA====="], "data"),
                (["namespacedType": "demo/slide", "data": "AB=="], "data"),
                (["namespacedType": "demo/slide", "data": "AA="], "data"),
                // Lengths are bytes; invisible characters make two types that look the same.
                (["namespacedType": "demo/" + String(repeating: "\u{e9}", count: 33), "data": "eA=="], "namespacedType"),
                (["namespacedType": "demo/sl\u{200b}ide", "data": "eA=="], "namespacedType"),
                (["namespacedType": "demo/\u{202e}edils", "data": "eA=="], "namespacedType"),
                (["namespacedType": 7, "data": "eA=="], "namespacedType"),
            ]
            for (body, field) in cases {
                assertRefusal(try await client.call(.post, "/v1beta1/\(name)/attachments", key: secret, json: body), .badRequest, field: field)
            }
            let kept = try await client.call(.get, "/v1beta1/\(name)/attachments", key: secret)
            XCTAssertEqual((kept.json["attachments"] as? [Any])?.count, 1, "nothing was stored by the refused requests")
            assertStatus(try await client.call(.post, "/v1beta1/\(name)/attachments", key: secret,
                                               json: ["namespacedType": "demo/" + String(repeating: "\u{e9}", count: 32), "data": "AA"]),
                         .ok, "canonical base64 without padding and a 64-byte type are fine")
        }
    }

    func testAHeartbeatIsKeptAndReAnchorsTheClockAndBadOnesAre400() async throws {
        try await RouterWorld.each { world, client, _ in
            let secret = world.demo.secretKey
            let beacon = try TestBeacon(hub: world.hub)
            assertStatus(try await client.call(.post, "/v1beta1/beacons:register", key: secret, json: try beacon.registration()), .ok)
            let name = try beacon.name
            let heartbeat: [String: Any] = ["clockValue": Int(beacon.clock) + 7200, "status": "broadcasting",
                                            "problems": ["bluetooth-power"], "version": "1.2.3", "name": "Main hall"]
            assertStatus(try await client.call(.post, "/v1beta1/\(name)/heartbeat", key: secret, json: heartbeat), .ok)
            let listed = try await Self.beacons(client, key: secret).first ?? [:]
            XCTAssertEqual((listed["heartbeat"] as? [String: Any])?["status"] as? String, "broadcasting")
            XCTAssertEqual((listed["heartbeat"] as? [String: Any])?["problems"] as? [String], ["bluetooth-power"])
            XCTAssertNotNil(listed["lastHeartbeatTime"])
            XCTAssertEqual((listed["clock"] as? [String: Any])?["clockValue"] as? Int, Int(beacon.clock) + 7200)
            XCTAssertEqual(listed["description"] as? String, "Main hall", "the box's name is its description")
            assertRefusal(try await client.call(.post, "/v1beta1/\(name)/heartbeat", key: secret, json: ["problems": "none"]), .badRequest, field: "problems")
            assertRefusal(try await client.call(.post, "/v1beta1/\(name)/heartbeat", key: secret, json: ["clockValue": -1]), .badRequest, field: "clockValue")
            assertRefusal(try await client.call(.post, "/v1beta1/beacons/4!0000000000000000/heartbeat", key: secret, json: ["status": "x"]), .notFound)
        }
    }
}
