import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
@testable import NearcastHub
import XCTest

/// Field check results (`POST/GET /v1beta1/fieldchecks`) through the router, in memory and in
/// SQLite: stored and listed for the secret key, every bad field a 400 naming it that stores
/// nothing, a named box must be the project's, the cap per project and the rate per project.
/// (PostgreSQL and "nothing identifying is stored" read from the database: hub/e2e/test_fieldchecks.py.)
final class FieldCheckRouterTests: XCTestCase {
    static let path = "/v1beta1/fieldchecks"
    static let door = "beacons/3!0a1b2c3d"

    /// A result as the check page sends it: a sweep of three tones, both bands measured.
    static func result(_ changes: [String: Any] = [:]) -> [String: Any] {
        var body: [String: Any] = [
            "beaconName": door, "platform": "Android 14", "browser": "Chrome 131", "sampleRate": 48000,
            "tones": [["hz": 12000, "levelDb": -61.2, "snrDb": 31.5], ["hz": 16000, "levelDb": -64.0, "snrDb": 24.25],
                      ["hz": 19500, "levelDb": -80.5, "snrDb": 8.0]],
            "bands": [["band": "high", "snrDb": 12.3, "decoded": true], ["band": "low", "snrDb": 25.0, "decoded": true]],
            "verdict": "both",
        ]
        for (key, value) in changes { body[key] = value }
        return body
    }

    /// Registers the door's box (an Eddystone UID) with `key`: its beacon name.
    static func registerDoor(_ client: any TestClientProtocol, key: String, uid: String = "ChssPQ==") async throws -> String {
        let answer = try await client.call(.post, "/v1beta1/beacons:register", key: key,
                                           json: ["advertisedId": ["type": "EDDYSTONE", "id": uid], "description": "Main hall"])
        XCTAssertEqual(answer.status, .ok, answer.text)
        return answer.json["beaconName"] as? String ?? ""
    }

    private static func listed(_ client: any TestClientProtocol, key: String, query: String = "") async throws -> [[String: Any]] {
        let answer = try await client.call(.get, path + query, key: key)
        XCTAssertEqual(answer.status, .ok, answer.text)
        return answer.json["fieldChecks"] as? [[String: Any]] ?? []
    }

    func testAPostedResultIsStoredAndListedNewestFirstWithItsFields() async throws {
        // The clock moves between the two posts: results of one millisecond list in their ids' order.
        let clock = PresentRouterTests.ManualClock()
        try await RouterWorld.each(clock: clock.clock) { world, client, _ in
            let door = try await Self.registerDoor(client, key: world.demo.secretKey)
            XCTAssertEqual(door, Self.door)
            let first = try await client.call(.post, Self.path, key: world.demo.apiKey, json: Self.result())
            XCTAssertEqual(first.status, .ok, first.text)
            let check = first.json["fieldCheck"] as? [String: Any] ?? [:]
            XCTAssertNotNil((check["id"] as? String)?.range(of: "^[0-9a-f]{16}$", options: .regularExpression))
            XCTAssertNotNil((check["createTime"] as? String)?.range(of: #"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$"#, options: .regularExpression))
            XCTAssertEqual(check["platform"] as? String, "Android 14")
            XCTAssertEqual(check["verdict"] as? String, "both")
            XCTAssertEqual((check["tones"] as? [Any])?.count, 3)
            clock.advance(seconds: 1)
            // A result without a box, with the secret key, one band only.
            let second = try await client.call(.post, Self.path, key: world.demo.secretKey, json: Self.result([
                "beaconName": NSNull(), "bands": [["band": "low", "snrDb": -3.5, "decoded": false]], "verdict": "neither",
                "sampleRate": 44100, "platform": "iOS 17.5", "browser": "Safari 17"]))
            XCTAssertEqual(second.status, .ok, second.text)
            let secondCheck = second.json["fieldCheck"] as? [String: Any] ?? [:]
            XCTAssertNil(secondCheck["beaconName"])
            let all = try await Self.listed(client, key: world.demo.secretKey)
            XCTAssertEqual(all.map { $0["id"] as? String }, [secondCheck["id"] as? String, check["id"] as? String], "newest first")
            let doors = try await Self.listed(client, key: world.demo.secretKey, query: "?beaconName=\(Self.door)")
            XCTAssertEqual(doors.map { $0["id"] as? String }, [check["id"] as? String])
            let none = try await Self.listed(client, key: world.demo.secretKey, query: "?beaconName=beacons/3!ffff")
            XCTAssertTrue(none.isEmpty)
            assertRefusal(try await client.call(.get, Self.path + "?beaconName=3!0a1b2c3d", key: world.demo.secretKey),
                          .badRequest, field: "beaconName")
        }
    }

    func testEveryBadFieldIsA400NamingItAndStoresNothing() async throws {
        try await RouterWorld.each { world, client, _ in
            _ = try await Self.registerDoor(client, key: world.demo.secretKey)
            let kept = try await client.call(.post, Self.path, key: world.demo.apiKey, json: Self.result())
            XCTAssertEqual(kept.status, .ok, kept.text)
            let tones = Self.result()["tones"] as! [[String: Any]]
            func tone(_ index: Int, _ key: String, _ value: Any) -> [String: Any] {
                var changed = tones
                changed[index][key] = value
                return ["tones": changed]
            }
            let high: [String: Any] = ["band": "high", "snrDb": 10, "decoded": true]
            let low: [String: Any] = ["band": "low", "snrDb": 10, "decoded": false]
            var highThree = high
            highThree["snrDb"] = 3
            var mid = high
            mid["band"] = "mid"
            var lowDeep = high
            lowDeep["snrDb"] = -100.5
            var lowYes = low
            lowYes["decoded"] = "yes"
            let cases: [([String: Any], String)] = [
                (["beaconName": "3!0a1b2c3d"], "beaconName"), (["beaconName": "beacons/3!0A1B"], "beaconName"), (["beaconName": 7], "beaconName"),
                (["platform": ""], "platform"), (["platform": "   "], "platform"), (["platform": String(repeating: "x", count: 65)], "platform"),
                (["platform": "Android\n14"], "platform"), (["platform": "Android\u{0}14"], "platform"), (["platform": NSNull()], "platform"),
                (["browser": String(repeating: "b", count: 65)], "browser"), (["browser": "Chrome\t131"], "browser"),
                (["sampleRate": 22050], "sampleRate"), (["sampleRate": "48000"], "sampleRate"), (["sampleRate": 48000.5], "sampleRate"),
                (["tones": [Any]()], "tones"), (["tones": Array(repeating: tones, count: 14).flatMap { $0 }], "tones"),
                (tone(2, "hz", 999), "tones[2].hz"), (tone(1, "hz", 24000.5), "tones[1].hz"),
                (tone(0, "levelDb", 11), "tones[0].levelDb"), (tone(0, "levelDb", -201), "tones[0].levelDb"),
                (tone(2, "snrDb", 200.1), "tones[2].snrDb"), (tone(1, "snrDb", "loud"), "tones[1].snrDb"), (tone(0, "snrDb", NSNull()), "tones[0].snrDb"),
                (["bands": [Any]()], "bands"), (["bands": [high, low, high]], "bands"), (["bands": [high, highThree]], "bands[1].band"),
                (["bands": [mid]], "bands[0].band"), (["bands": [low, lowDeep]], "bands[1].snrDb"), (["bands": [lowYes]], "bands[0].decoded"),
                (["verdict": "maybe"], "verdict"), (["verdict": "HIGH"], "verdict"),
            ]
            for (changes, field) in cases {
                let answer = try await client.call(.post, Self.path, key: world.demo.apiKey, json: Self.result(changes))
                assertRefusal(answer, .badRequest, field: field)
                XCTAssertEqual(answer.error["status"] as? String, "INVALID_ARGUMENT", answer.text)
            }
            for missing in ["platform", "browser", "sampleRate", "tones", "bands", "verdict"] {
                var body = Self.result()
                body[missing] = nil
                assertRefusal(try await client.call(.post, Self.path, key: world.demo.apiKey, json: body), .badRequest, field: missing)
            }
            assertRefusal(try await client.call(.post, Self.path, key: world.demo.apiKey, raw: Array("{not json".utf8)), .badRequest, field: "(body)")
            assertRefusal(try await client.call(.post, Self.path, key: world.demo.apiKey,
                                                json: Self.result(["platform": String(repeating: "x", count: 17 * 1024)])),
                          .contentTooLarge, field: "(body)")
            let stored = try await Self.listed(client, key: world.demo.secretKey)
            XCTAssertEqual(stored.map { $0["id"] as? String }, [(kept.json["fieldCheck"] as? [String: Any])?["id"] as? String],
                           "nothing stored by a bad request, nothing lost")
        }
    }

    func testThePublicKeyCannotListAndABoxMustBeTheProjects() async throws {
        try await RouterWorld.each { world, client, _ in
            _ = try await Self.registerDoor(client, key: world.demo.secretKey)
            assertRefusal(try await client.call(.get, Self.path, key: world.demo.apiKey), .forbidden)
            assertRefusal(try await client.call(.get, Self.path), .unauthorized)
            assertRefusal(try await client.call(.post, Self.path, key: "ncpub_nobody", json: Self.result()), .forbidden)
            assertRefusal(try await client.call(.post, Self.path, json: Self.result()), .unauthorized)
            let unknown = try await client.call(.post, Self.path, key: world.demo.apiKey, json: Self.result(["beaconName": "beacons/3!ffffffff"]))
            assertRefusal(unknown, .notFound, field: "beaconName")
            XCTAssertTrue((unknown.error["message"] as? String ?? "").contains("not a beacon of this project"), unknown.text)
            // Another project's box is as unknown as none.
            let theirs = try await Self.registerDoor(client, key: world.other.secretKey, uid: "d2ZVRA==")
            assertRefusal(try await client.call(.post, Self.path, key: world.demo.apiKey, json: Self.result(["beaconName": theirs])),
                          .notFound, field: "beaconName")
            assertStatus(try await client.call(.post, Self.path, key: world.other.apiKey, json: Self.result(["beaconName": theirs])), .ok)
            // A deleted box takes no new results.
            assertStatus(try await client.call(.delete, "/v1beta1/\(Self.door)", key: world.demo.secretKey), .ok)
            assertRefusal(try await client.call(.post, Self.path, key: world.demo.apiKey, json: Self.result()), .notFound)
            let mine = try await Self.listed(client, key: world.demo.secretKey)
            XCTAssertTrue(mine.isEmpty, "each project sees its own results only")
            let others = try await Self.listed(client, key: world.other.secretKey)
            XCTAssertEqual(others.map { $0["beaconName"] as? String }, [theirs])
        }
    }

    func testTheCapKeepsTheNewestOfEachProjectAndTheRateIsPerProject() async throws {
        var limits = HubLimits()
        limits.fieldChecks.keptPerProject = 3
        limits.fieldChecks.perMinutePerProject = 6
        try await RouterWorld.each(limits: limits) { world, client, _ in
            _ = try await Self.registerDoor(client, key: world.demo.secretKey)
            assertStatus(try await client.call(.post, Self.path, key: world.other.apiKey, json: Self.result(["beaconName": NSNull()])), .ok)
            var ids: [String] = []
            for n in 0..<5 {
                let answer = try await client.call(.post, Self.path, key: world.demo.apiKey, json: Self.result(["platform": "Android \(n)"]))
                XCTAssertEqual(answer.status, .ok, answer.text)
                ids.append((answer.json["fieldCheck"] as? [String: Any])?["id"] as? String ?? "")
                try await Task.sleep(for: .milliseconds(5))   // a millisecond of its own each: the order is the hub's clock's
            }
            let kept = try await Self.listed(client, key: world.demo.secretKey)
            XCTAssertEqual(kept.map { $0["id"] as? String ?? "" }, Array(ids.suffix(3).reversed()), "the three newest, newest first")
            let others = try await Self.listed(client, key: world.other.secretKey)
            XCTAssertEqual(others.count, 1, "another project's results are not this one's cap")
            assertStatus(try await client.call(.post, Self.path, key: world.demo.apiKey, json: Self.result()), .ok)
            let limited = try await client.call(.post, Self.path, key: world.demo.apiKey, json: Self.result())
            assertRefusal(limited, .tooManyRequests)
            XCTAssertGreaterThanOrEqual(Int(limited.headers[.retryAfter] ?? "") ?? 0, 1)
            XCTAssertTrue((limited.error["message"] as? String ?? "").contains("field check"), limited.text)
            assertStatus(try await client.call(.post, Self.path, key: world.other.apiKey, json: Self.result(["beaconName": NSNull()])), .ok,
                         "the other project has its own rate")
        }
    }
}
