import Foundation
import HummingbirdTesting
@testable import NearcastHub
import XCTest

/// `GET /v1/day` through the router, over memory and SQLite: one programme day at a glance, each
/// room's talks and its box, a day past midnight kept whole.
final class DayRouterTests: XCTestCase {
    /// `ScheduleRouterTests.day` and a late talk in Hall B, 23:30 to 00:30 in Berlin.
    static let day = ScheduleRouterTests.day + "\n4,2026-11-28,Hall B,23:30,60,Late show,Ann Other\n"

    func testTheDayShowsEachRoomsTalksAndItsBoxAndStaysOneDayPastMidnight() async throws {
        let clock = ScheduleRouterTests.SetClock()
        try await RouterWorld.each(clock: clock.clock) { world, client, storage in
            let secret = world.demo.secretKey
            clock.set("2026-11-28T08:30:00Z")   // 09:30 in Berlin
            assertStatus(try await ScheduleRouterTests.put(client, world, Self.day), .ok, storage.rawValue)
            let hallA = try TestBeacon(hub: world.hub)
            assertStatus(try await client.call(.post, "/v1beta1/beacons:register", key: secret,
                                               json: try hallA.registration(description: "Hall A")), .ok)
            assertStatus(try await client.call(.post, "/v1beta1/\(try hallA.name)/heartbeat", key: secret,
                                               json: ["clockValue": Int(hallA.clock), "status": "broadcasting"]), .ok)
            assertStatus(try await client.call(.post, "/v1beta1/beaconinfo:getforobserved", key: world.demo.apiKey,
                                               json: ["observations": [try hallA.observation()]]), .ok)
            func day(_ query: String = "") async throws -> (json: [String: Any], rooms: [String: [String: Any]]) {
                let answer = try await client.call(.get, "/v1/day" + query, key: secret)
                assertStatus(answer, .ok, storage.rawValue)
                let rooms = answer.json["rooms"] as? [[String: Any]] ?? []
                return (answer.json, Dictionary(uniqueKeysWithValues: rooms.map { ($0["name"] as? String ?? "", $0) }))
            }
            func titles(_ room: [String: Any]?) -> [String] {
                (room?["talks"] as? [[String: Any]] ?? []).compactMap { $0["title"] as? String }
            }
            var (json, rooms) = try await day()
            XCTAssertEqual((json["day"] as? [String: Any])?["date"] as? String, "2026-11-28")
            XCTAssertEqual((json["days"] as? [[String: Any]])?.count, 1)
            XCTAssertEqual(titles(rooms["Hall A"]), ["Opening", "Second"])
            XCTAssertEqual(titles(rooms["Hall B"]), ["Workshop", "Late show"])
            let box = rooms["Hall A"]?["box"] as? [String: Any] ?? [:]
            XCTAssertEqual(box["name"] as? String, "Hall A")
            XCTAssertEqual(box["online"] as? Bool, true)
            XCTAssertEqual(box["lastSeenTime"] as? String, "2026-11-28T08:30:00.000Z")
            XCTAssertEqual(box["heardLately"] as? Bool, true, "a phone resolved it")
            XCTAssertEqual(box["lastHeardTime"] as? String, "2026-11-28T08:30:00.000Z")
            XCTAssertEqual(box["followers"] as? Int, 0)
            XCTAssertNil(rooms["Hall B"]?["box"] as? [String: Any], "Hall B has no box")
            // The file's own problem (kept from the import) first, then the rooms'.
            XCTAssertEqual(json["problems"] as? [String], ["schedule file: line 4: \"Workshop\" has no speakers",
                                                           "room Hall B has no box: name a box Hall B, or give it one (PUT /v1/rooms/NAME)"])

            // 00:15 in Berlin the next morning: still the same day, the late show on; the box silent.
            clock.set("2026-11-28T23:15:00Z")
            (json, rooms) = try await day()
            XCTAssertEqual((json["day"] as? [String: Any])?["index"] as? Int, 1)
            XCTAssertEqual((rooms["Hall B"]?["now"] as? [String: Any])?["title"] as? String, "Late show")
            XCTAssertEqual(titles(rooms["Hall B"]), ["Workshop", "Late show"])
            let silent = rooms["Hall A"]?["box"] as? [String: Any] ?? [:]
            XCTAssertEqual(silent["online"] as? Bool, false)
            XCTAssertEqual(silent["heardLately"] as? Bool, false)
            XCTAssertTrue((json["problems"] as? [String] ?? []).contains(
                "room Hall A: its box Hall A has not sent a heartbeat since 2026-11-28T08:30:00.000Z"), "\(json)")

            // A file without that problem, imported again, takes it away.
            let mended = Self.day.replacingOccurrences(of: "Workshop,", with: "Workshop,Ann Other")
            assertStatus(try await ScheduleRouterTests.put(client, world, mended), .ok, storage.rawValue)
            (json, rooms) = try await day()
            XCTAssertFalse((json["problems"] as? [String] ?? []).contains { $0.hasPrefix("schedule file:") }, "\(json)")

            // A day the schedule does not have shows no talks; a day that is no number is refused.
            (json, rooms) = try await day("?day=9")
            XCTAssertNil(json["day"] as? [String: Any])
            XCTAssertEqual(titles(rooms["Hall B"]), [])
            assertRefusal(try await client.call(.get, "/v1/day?day=first", key: secret), .badRequest, field: "day")
            assertRefusal(try await client.call(.get, "/v1/day", key: world.demo.apiKey), .forbidden)
            // Another project has no schedule: no day, no rooms.
            let other = try await client.call(.get, "/v1/day", key: world.other.secretKey)
            assertStatus(other, .ok)
            XCTAssertEqual((other.json["rooms"] as? [Any])?.count, 0)
        }
    }
}
