import Foundation
import HTTPTypes
import HummingbirdTesting
@testable import NearcastHub
import NIOConcurrencyHelpers
import XCTest

/// `PUT /v1/schedule`, `GET /v1/schedule`, `GET /v1/rooms` and `PUT /v1/rooms/NAME` through the
/// router, over memory and SQLite, with a clock the test sets.
final class ScheduleRouterTests: XCTestCase {
    /// A hub clock the test sets, in RFC 3339.
    final class SetClock: Sendable {
        let ms = NIOLockedValueBox<Int64>(0)
        var clock: HubClock { HubClock { [ms] in ms.withLockedValue { $0 } } }
        func set(_ instant: String) { ms.withLockedValue { $0 = ScheduleRouterTests.ms(instant) } }
    }

    static func ms(_ instant: String) -> Int64 {
        Int64(ISO8601DateFormatter().date(from: instant)!.timeIntervalSince1970 * 1000)
    }

    /// Two rooms in Berlin (UTC+1 in November): Hall A 10:00-10:45 and 11:00-11:30, Hall B 10:00-11:00.
    static let day = """
        id,day,room,start,duration,title,speakers
        1,2026-11-28,Hall A,10:00,45,Opening,"Doe, Jane"
        2,2026-11-28,Hall A,11:00,30,Second,Rick Roe
        3,2026-11-28,Hall B,10:00,60,Workshop,
        """

    static func put(_ client: some TestClientProtocol, _ world: RouterWorld, _ text: String, type: String = "text/csv",
             query: String = "?timeZone=Europe/Berlin") async throws -> Answer {
        try await client.call(.put, "/v1/schedule" + query, key: world.demo.secretKey, raw: Array(text.utf8), contentType: type)
    }

    func testAScheduleIsImportedCountedAndReadBack() async throws {
        let clock = SetClock()
        clock.set("2026-11-28T08:00:00Z")
        try await RouterWorld.each(clock: clock.clock) { world, client, storage in
            let answer = try await Self.put(client, world, Self.day)
            assertStatus(answer, .ok, storage.rawValue)
            XCTAssertEqual(answer.json["rooms"] as? Int, 2)
            XCTAssertEqual(answer.json["talks"] as? Int, 3)
            XCTAssertEqual(answer.json["days"] as? Int, 1)
            XCTAssertEqual((answer.json["changes"] as? [String: Any])?["added"] as? Int, 3)
            let summary = try await client.call(.get, "/v1/schedule", key: world.demo.secretKey)
            XCTAssertEqual(summary.json["talks"] as? Int, 3)
            XCTAssertEqual(summary.json["importedAt"] as? String, "2026-11-28T08:00:00.000Z")
            // The project's public key neither imports nor reads it.
            assertRefusal(try await client.call(.put, "/v1/schedule?timeZone=UTC", key: world.demo.apiKey,
                                                raw: Array(Self.day.utf8), contentType: "text/csv"), .forbidden)
            assertRefusal(try await client.call(.get, "/v1/rooms", key: world.demo.apiKey), .forbidden)
            // Another project has none.
            let other = try await client.call(.get, "/v1/schedule", key: world.other.secretKey)
            XCTAssertEqual(other.json["talks"] as? Int, 0)
        }
    }

    func testPretalxsExportIsImportedAsJSONAndAsXML() async throws {
        let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../ScheduleFixtures")
        for (file, type) in [("pretalx-democon.json", "application/json"), ("pretalx-democon.xml", "application/xml")] {
            let data = try Data(contentsOf: fixtures.appendingPathComponent(file).standardized)
            try await RouterWorld.each { world, client, _ in
                let answer = try await client.call(.put, "/v1/schedule", key: world.demo.secretKey, raw: Array(data), contentType: type)
                assertStatus(answer, .ok, file)
                XCTAssertEqual(answer.json["rooms"] as? Int, 2, file)
                XCTAssertEqual(answer.json["talks"] as? Int, 36, file)
                XCTAssertEqual(answer.json["days"] as? Int, 3, file)
            }
        }
    }

    func testABrokenScheduleIsRefusedWholeAndTheOneInForceStays() async throws {
        try await RouterWorld.each { world, client, _ in
            assertStatus(try await Self.put(client, world, Self.day), .ok)
            // Two talks at once in Hall A: refused, naming the line, nothing taken.
            let clash = Self.day + "\n4,2026-11-28,Hall A,10:30,30,Clash,\n"
            let refused = try await Self.put(client, world, clash)
            assertRefusal(refused, .badRequest, field: "line 5")
            XCTAssertTrue((refused.error["message"] as? String ?? "").contains("Hall A"), refused.text)
            // A truncated JSON export, and a CSV without its zone.
            assertRefusal(try await Self.put(client, world, #"{"schedule": {"conference": {"days": ["#, type: "application/json", query: ""),
                          .badRequest)
            assertRefusal(try await Self.put(client, world, Self.day, query: ""), .badRequest)
            // Not a schedule's media type.
            assertRefusal(try await Self.put(client, world, Self.day, type: "application/pdf"), .unsupportedMediaType, field: "Content-Type")
            let summary = try await client.call(.get, "/v1/schedule", key: world.demo.secretKey)
            XCTAssertEqual(summary.json["talks"] as? Int, 3, "the schedule in force stays as it was")
        }
    }

    func testImportingAgainMovesTalksByIDAndATalkOnStageFinishesFirst() async throws {
        let clock = SetClock()
        clock.set("2026-11-28T09:10:00Z")   // 10:10 in Berlin: Opening and Workshop are on
        try await RouterWorld.each(clock: clock.clock) { world, client, _ in
            assertStatus(try await Self.put(client, world, Self.day), .ok)
            // Opening removed while on stage, Second moved to 11:15, Workshop retitled.
            let next = """
                id,day,room,start,duration,title,speakers
                2,2026-11-28,Hall A,11:15,30,Second,Rick Roe
                3,2026-11-28,Hall B,10:00,60,Workshop (hands on),
                """
            let answer = try await Self.put(client, world, next)
            assertStatus(answer, .ok)
            let changes = try XCTUnwrap(answer.json["changes"] as? [String: Any])
            XCTAssertEqual(changes["added"] as? Int, 0)
            XCTAssertEqual(changes["moved"] as? Int, 1)
            XCTAssertEqual(changes["retitled"] as? Int, 1)
            XCTAssertEqual(changes["removed"] as? Int, 1)
            XCTAssertEqual(answer.json["finishingFirst"] as? [String], ["Opening (Hall A)"])
            // Importing the same file again changes nothing, and duplicates nothing.
            let again = try await Self.put(client, world, next)
            XCTAssertEqual((again.json["changes"] as? [String: Any])?["unchanged"] as? Int, 2)
            XCTAssertEqual(again.json["talks"] as? Int, 2)
            // Opening is still on in Hall A until its end; then Second is next.
            let rooms = try await client.call(.get, "/v1/rooms", key: world.demo.secretKey)
            let hallA = try XCTUnwrap((rooms.json["rooms"] as? [[String: Any]])?.first { $0["name"] as? String == "Hall A" })
            XCTAssertEqual((hallA["now"] as? [String: Any])?["title"] as? String, "Opening")
            XCTAssertEqual((hallA["next"] as? [String: Any])?["title"] as? String, "Second")
            XCTAssertEqual((hallA["next"] as? [String: Any])?["start"] as? String, "2026-11-28T10:15:00.000Z")
        }
    }

    func testRoomsNameTheirBoxTheirTalkNowAndNext() async throws {
        let clock = SetClock()
        try await RouterWorld.each(clock: clock.clock) { world, client, _ in
            clock.set("2026-11-28T08:30:00Z")   // 09:30 in Berlin: before the first talk
            assertStatus(try await Self.put(client, world, Self.day), .ok)
            // A box named as Hall A; another box in no room.
            let hallA = try TestBeacon(hub: world.hub), stray = try TestBeacon(hub: world.hub)
            for (beacon, name) in [(hallA, "Hall A"), (stray, "Foyer")] {
                assertStatus(try await client.call(.post, "/v1beta1/beacons:register", key: world.demo.secretKey,
                                                   json: try beacon.registration(description: name)), .ok)
            }
            func rooms() async throws -> (rooms: [String: [String: Any]], problems: [String]) {
                let answer = try await client.call(.get, "/v1/rooms", key: world.demo.secretKey)
                assertStatus(answer, .ok)
                let list = answer.json["rooms"] as? [[String: Any]] ?? []
                return (Dictionary(uniqueKeysWithValues: list.map { ($0["name"] as? String ?? "", $0) }),
                        answer.json["problems"] as? [String] ?? [])
            }
            var (byName, problems) = try await rooms()
            XCTAssertEqual(byName["Hall A"]?["beaconName"] as? String, try hallA.name)
            XCTAssertEqual(byName["Hall A"]?["boxBy"] as? String, "name")
            XCTAssertNil(byName["Hall A"]?["now"] as? [String: Any], "before the first talk")
            XCTAssertEqual((byName["Hall A"]?["next"] as? [String: Any])?["title"] as? String, "Opening")
            XCTAssertNil(byName["Hall B"]?["beaconName"] as? String)
            XCTAssertTrue(problems.contains { $0.hasPrefix("room Hall B has no box") }, "\(problems)")
            XCTAssertTrue(problems.contains { $0.hasPrefix("box Foyer") && $0.hasSuffix("is in no room of the schedule") }, "\(problems)")
            // The stray box given to Hall B by hand; then a talk on.
            let given = try await client.call(.put, "/v1/rooms/Hall%20B", key: world.demo.secretKey, json: ["beaconName": try stray.name])
            assertStatus(given, .ok)
            clock.set("2026-11-28T09:20:00Z")
            (byName, problems) = try await rooms()
            XCTAssertEqual(byName["Hall B"]?["beaconName"] as? String, try stray.name)
            XCTAssertEqual(byName["Hall B"]?["boxBy"] as? String, "hand")
            XCTAssertEqual((byName["Hall B"]?["now"] as? [String: Any])?["title"] as? String, "Workshop")
            XCTAssertEqual((byName["Hall A"]?["now"] as? [String: Any])?["persons"] as? [String], ["Doe, Jane"])
            XCTAssertEqual(problems, [])
            // Refusals: no such room, no such beacon; null gives the room back to matching by name.
            assertRefusal(try await client.call(.put, "/v1/rooms/Cellar", key: world.demo.secretKey, json: ["beaconName": try stray.name]),
                          .notFound, field: "room")
            assertRefusal(try await client.call(.put, "/v1/rooms/Hall%20B", key: world.demo.secretKey,
                                                json: ["beaconName": "beacons/4!00"]), .badRequest, field: "beaconName")
            assertStatus(try await client.call(.put, "/v1/rooms/Hall%20B", key: world.demo.secretKey, json: ["beaconName": NSNull()]), .ok)
            (byName, _) = try await rooms()
            XCTAssertNil(byName["Hall B"]?["beaconName"] as? String)
        }
    }
}
