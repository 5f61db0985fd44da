import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
@testable import NearcastHub
import XCTest

/// The rooms' reach (`POST/GET /v1/reach`) through the router, in memory and in SQLite: a visit
/// counts once however often it reports (its receipt takes the earlier report back), each way in
/// and kind of phone counted per box, the median first token from the histogram, every bad field
/// a 400 naming it that writes nothing, the keys, the days asked and kept (an injected clock),
/// and the rate per project. (PostgreSQL, and a real page's reports: hub/e2e/test_reach.py.)
final class ReachRouterTests: XCTestCase {
    static let path = "/v1/reach"
    static let door = "beacons/3!0a1b2c3d"

    /// A report as the listener page sends it: a phone that heard the door's box in 2.3 s.
    static func report(_ changes: [String: Any] = [:]) -> [String: Any] {
        var body: [String: Any] = [
            "beaconName": door, "platform": "Linux", "browser": "Chromium 140", "joinedBy": "heard", "firstTokenMs": 2300,
            "capture": ["sampleRate": 48000, "echoCancellation": false, "noiseSuppression": false, "autoGainControl": false],
            "bands": [["band": "high", "levelDb": -62.5], ["band": "low", "levelDb": -81.25]],
            "bursts": ["detected": 10, "decoded": 8],
        ]
        for (key, value) in changes { body[key] = value }
        return body
    }

    /// Posts `body`, expecting 200: its receipt.
    @discardableResult
    private static func send(_ client: any TestClientProtocol, key: String, _ body: [String: Any],
                             file: StaticString = #filePath, line: UInt = #line) async throws -> String {
        let answer = try await client.call(.post, path, key: key, json: body)
        XCTAssertEqual(answer.status, .ok, answer.text, file: file, line: line)
        return answer.json["receipt"] as? String ?? ""
    }

    /// `GET /v1/reach` with the secret key: its boxes, keyed by beacon name ("" for no box).
    private static func boxes(_ client: any TestClientProtocol, key: String, query: String = "",
                              file: StaticString = #filePath, line: UInt = #line) async throws -> [String: [String: Any]] {
        let answer = try await client.call(.get, path + query, key: key)
        XCTAssertEqual(answer.status, .ok, answer.text, file: file, line: line)
        let boxes = answer.json["boxes"] as? [[String: Any]] ?? []
        return Dictionary(uniqueKeysWithValues: boxes.map { ($0["beaconName"] as? String ?? "", $0) })
    }

    /// The phones counted at `box` (the door) over `query`'s days.
    private static func phones(_ client: any TestClientProtocol, key: String, query: String = "", box: String = door) async throws -> Int? {
        number(try await boxes(client, key: key, query: query)[box], "phones")
    }

    private static func number(_ box: [String: Any]?, _ path: String...) -> Int? {
        var value: Any? = box
        for key in path { value = (value as? [String: Any])?[key] }
        return value as? Int
    }

    func testAVisitCountsOnceAndEachWayInAndKindOfPhoneIsCountedPerBox() async throws {
        try await RouterWorld.each { world, client, _ in
            let (secret, key) = (world.demo.secretKey, world.demo.apiKey)
            _ = try await FieldCheckRouterTests.registerDoor(client, key: secret)
            let first = try await client.call(.post, Self.path, key: key, json: Self.report())
            XCTAssertEqual(first.status, .ok, first.text)
            let receipt = first.json["receipt"] as? String ?? ""
            XCTAssertTrue(receipt.hasPrefix("ncreach_"), first.text)
            XCTAssertNotNil((first.json["day"] as? String)?.range(of: #"^\d{4}-\d\d-\d\d$"#, options: .regularExpression), first.text)
            // The same figures sent again give the same receipt: it names what was counted, not the phone.
            let again = try await Self.send(client, key: key, Self.report())
            XCTAssertEqual(again, receipt)

            // The visit reports again with its receipt: still one phone, its newer counts.
            var ear = try await Self.send(client, key: key, Self.report())
            ear = try await Self.send(client, key: key, Self.report(["receipt": ear, "bursts": ["detected": 30, "decoded": 25]]))
            var boxes = try await Self.boxes(client, key: secret)
            // Two visits without receipts (the first two posts) and this one: three phones.
            XCTAssertEqual(Self.number(boxes[Self.door], "phones"), 3)
            XCTAssertEqual(Self.number(boxes[Self.door], "bursts", "detected"), 10 + 10 + 30)
            XCTAssertEqual(Self.number(boxes[Self.door], "bursts", "decoded"), 8 + 8 + 25)
            // The same report with its receipt changes nothing.
            ear = try await Self.send(client, key: key, Self.report(["receipt": ear, "bursts": ["detected": 30, "decoded": 25]]))
            boxes = try await Self.boxes(client, key: secret)
            XCTAssertEqual(Self.number(boxes[Self.door], "phones"), 3)
            XCTAssertEqual(Self.number(boxes[Self.door], "bursts", "detected"), 50)

            // A phone that joined by the code, then heard the box: still one phone, by code, heard.
            let codeReport = Self.report(["joinedBy": "code", "firstTokenMs": NSNull(), "platform": "iOS 18",
                                          "browser": "Safari 18", "bursts": ["detected": 0, "decoded": 0]])
            let byCode = try await Self.send(client, key: key, codeReport)
            boxes = try await Self.boxes(client, key: secret)
            XCTAssertEqual(Self.number(boxes[Self.door], "phones"), 4)
            XCTAssertEqual(Self.number(boxes[Self.door], "heard"), 3)
            XCTAssertEqual(Self.number(boxes[Self.door], "byCode"), 1)
            var later = codeReport
            later["firstTokenMs"] = 5000
            later["receipt"] = byCode
            try await Self.send(client, key: key, later)
            // One by the QR code, and one that found no box.
            try await Self.send(client, key: key, Self.report(["joinedBy": "qr", "firstTokenMs": 9000]))
            try await Self.send(client, key: key, Self.report(["joinedBy": "none", "beaconName": NSNull(), "firstTokenMs": NSNull(),
                                                                "capture": ["sampleRate": 16000, "echoCancellation": true],
                                                                "bands": [Any]()]))
            let answer = try await client.call(.get, Self.path, key: secret)
            XCTAssertEqual(answer.status, .ok, answer.text)
            XCTAssertEqual(answer.json["days"] as? Int, 1)
            XCTAssertEqual(answer.json["from"] as? String, answer.json["to"] as? String)
            let list = answer.json["boxes"] as? [[String: Any]] ?? []
            XCTAssertEqual(list.map { $0["beaconName"] as? String }, [Self.door, nil], "the box first, the phones without one last")
            let door = list.first ?? [:]
            XCTAssertEqual(door["phones"] as? Int, 5)
            XCTAssertEqual(door["heard"] as? Int, 5)
            XCTAssertEqual(door["byCode"] as? Int, 2, "the code typed and the QR code")
            XCTAssertEqual(door["joined"] as? [String: Int], ["heard": 3, "code": 1, "qr": 1, "none": 0])
            // First tokens at 2.3 s (three phones), 5 s and 9 s: the middle phone is the third of
            // the (2, 2.5] s bucket's three, 5/6 along it.
            XCTAssertEqual(door["medianFirstTokenMs"] as? Int, 2417)
            XCTAssertEqual(Self.number(door, "capture", "sampleRates", "48000"), 5)
            XCTAssertEqual(Self.number(door, "capture", "echoCancellationOn"), 0)
            let bands = door["bands"] as? [[String: Any]] ?? []
            XCTAssertEqual(bands.map { $0["band"] as? String }, ["high", "low"])
            XCTAssertEqual(bands.map { $0["meanLevelDb"] as? Double }, [-62.5, -81.3])
            XCTAssertEqual(bands.map { $0["phones"] as? Int }, [5, 5])
            let kinds = door["byBrowser"] as? [[String: Any]] ?? []
            XCTAssertEqual(kinds.map { [$0["browser"] as? String, $0["platform"] as? String] },
                           [["Chromium 140", "Linux"], ["Safari 18", "iOS 18"]], "the most phones first")
            XCTAssertEqual(kinds.map { $0["phones"] as? Int }, [4, 1])
            XCTAssertEqual(kinds.map { $0["heard"] as? Int }, [4, 1])
            XCTAssertEqual(kinds.map { $0["byCode"] as? Int }, [1, 1])
            XCTAssertEqual(kinds.map { $0["medianFirstTokenMs"] as? Int }, [2333, 4500])
            let nowhere = list.last ?? [:]
            XCTAssertEqual(nowhere["phones"] as? Int, 1)
            XCTAssertEqual(nowhere["heard"] as? Int, 0)
            XCTAssertNil(nowhere["medianFirstTokenMs"], "no phone heard: no median")
            XCTAssertEqual(Self.number(nowhere, "capture", "sampleRates", "other"), 1)
            XCTAssertEqual(Self.number(nowhere, "capture", "echoCancellationOn"), 1)
            XCTAssertEqual((nowhere["bands"] as? [Any])?.count, 0)

            // A receipt sent again takes its counts back again: the row it names reads as zero,
            // never below (a hostile replay moves counts between rows, within the project's rate).
            let moved = Self.report(["joinedBy": "none", "beaconName": NSNull(), "firstTokenMs": NSNull(), "receipt": byCode])
            for _ in 0..<3 { try await Self.send(client, key: key, moved) }
            boxes = try await Self.boxes(client, key: secret)
            let safari = (boxes[Self.door]?["byBrowser"] as? [[String: Any]] ?? []).first { $0["browser"] as? String == "Safari 18" }
            XCTAssertEqual(safari?["phones"] as? Int, 0)
            XCTAssertGreaterThanOrEqual(Self.number(boxes[Self.door], "phones") ?? -1, 0)
        }
    }

    func testEveryBadFieldIsA400NamingItAndWritesNothing() async throws {
        try await RouterWorld.each { world, client, _ in
            let (secret, key) = (world.demo.secretKey, world.demo.apiKey)
            _ = try await FieldCheckRouterTests.registerDoor(client, key: secret)
            try await Self.send(client, key: key, Self.report())
            let theirs = try await Self.send(client, key: world.other.apiKey, Self.report(["joinedBy": "none", "beaconName": NSNull(),
                                                                                          "firstTokenMs": NSNull()]))
            let forged = String(theirs.dropLast(2)) + (theirs.hasSuffix("AA") ? "AB" : "AA")
            let cases: [([String: Any], String)] = [
                (["beaconName": "3!0a1b2c3d"], "beaconName"), (["beaconName": "beacons/3!0A1B"], "beaconName"), (["beaconName": 7], "beaconName"),
                (["platform": ""], "platform"), (["platform": String(repeating: "x", count: 65)], "platform"),
                (["platform": "Android\n14"], "platform"), (["browser": "Chrome\t131"], "browser"), (["browser": NSNull()], "browser"),
                (["joinedBy": "ear"], "joinedBy"), (["joinedBy": "HEARD"], "joinedBy"),
                (["joinedBy": "none"], "joinedBy"), (["beaconName": NSNull()], "beaconName"),
                (["firstTokenMs": NSNull()], "firstTokenMs"), (["firstTokenMs": -1], "firstTokenMs"),
                (["firstTokenMs": 86_400_001], "firstTokenMs"), (["firstTokenMs": "fast"], "firstTokenMs"),
                (["capture": ["sampleRate": 0]], "capture.sampleRate"), (["capture": ["sampleRate": 48000.5]], "capture.sampleRate"),
                (["capture": ["echoCancellation": "yes"]], "capture.echoCancellation"), (["capture": 48000], "capture"),
                (["bands": [["band": "high", "levelDb": -60], ["band": "low", "levelDb": -60], ["band": "high", "levelDb": -60]]], "bands"),
                (["bands": [["band": "mid", "levelDb": -60]]], "bands[0].band"),
                (["bands": [["band": "low", "levelDb": -60], ["band": "low", "levelDb": -61]]], "bands[1].band"),
                (["bands": [["band": "high", "levelDb": 11]]], "bands[0].levelDb"), (["bands": [["band": "high"]]], "bands[0].levelDb"),
                (["bursts": ["detected": -1, "decoded": 0]], "bursts.detected"), (["bursts": ["detected": 1, "decoded": 1.5]], "bursts.decoded"),
                (["bursts": ["detected": 10_000_001, "decoded": 0]], "bursts.detected"),
                (["receipt": "ncreach_made.up"], "receipt"), (["receipt": theirs], "receipt"), (["receipt": forged], "receipt"),
                (["receipt": 5], "receipt"), (["receipt": String(repeating: "r", count: 2_001)], "receipt"),
            ]
            for (changes, field) in cases {
                let answer = try await client.call(.post, Self.path, key: key, json: Self.report(changes))
                assertRefusal(answer, .badRequest, field: field)
                XCTAssertEqual(answer.error["status"] as? String, "INVALID_ARGUMENT", answer.text)
            }
            for missing in ["platform", "browser", "joinedBy"] {
                var body = Self.report()
                body[missing] = nil
                assertRefusal(try await client.call(.post, Self.path, key: key, json: body), .badRequest, field: missing)
            }
            assertRefusal(try await client.call(.post, Self.path, key: key, raw: Array("{not json".utf8)), .badRequest, field: "(body)")
            assertRefusal(try await client.call(.post, Self.path, key: key, json: Self.report(["platform": String(repeating: "x", count: 9 * 1024)])),
                          .contentTooLarge, field: "(body)")
            // A box that is not one of the project's active beacons (another project's is as unknown).
            let unknown = try await client.call(.post, Self.path, key: key, json: Self.report(["beaconName": "beacons/3!ffffffff"]))
            assertRefusal(unknown, .notFound, field: "beaconName")
            let otherDoor = try await FieldCheckRouterTests.registerDoor(client, key: world.other.secretKey, uid: "d2ZVRA==")
            assertRefusal(try await client.call(.post, Self.path, key: key, json: Self.report(["beaconName": otherDoor])), .notFound,
                          field: "beaconName")
            let boxes = try await Self.boxes(client, key: secret)
            XCTAssertEqual(Array(boxes.keys), [Self.door], "nothing written by a refused report")
            XCTAssertEqual(Self.number(boxes[Self.door], "phones"), 1)
        }
    }

    func testTheSecretKeyReadsEachProjectsOwnAndTheDaysAskedAreTheKeptOnes() async throws {
        var limits = HubLimits.off
        limits.reach.daysKept = 7
        try await RouterWorld.each(limits: limits) { world, client, _ in
            _ = try await FieldCheckRouterTests.registerDoor(client, key: world.demo.secretKey)
            try await Self.send(client, key: world.demo.apiKey, Self.report())
            assertRefusal(try await client.call(.get, Self.path, key: world.demo.apiKey), .forbidden)
            assertRefusal(try await client.call(.get, Self.path), .unauthorized)
            assertRefusal(try await client.call(.post, Self.path, json: Self.report()), .unauthorized)
            assertRefusal(try await client.call(.post, Self.path, key: "ncpub_nobody", json: Self.report()), .forbidden)
            // The secret key sends too (a test page, an operator's laptop).
            try await Self.send(client, key: world.demo.secretKey, Self.report())
            for bad in ["0", "8", "-1", "x", "1.5", ""] {
                assertRefusal(try await client.call(.get, Self.path + "?days=\(bad)", key: world.demo.secretKey), .badRequest, field: "days")
            }
            let week = try await client.call(.get, Self.path + "?days=7", key: world.demo.secretKey)
            XCTAssertEqual(week.status, .ok, week.text)
            XCTAssertEqual(week.json["days"] as? Int, 7)
            XCTAssertEqual(week.json["daysKept"] as? Int, 7)
            let weekPhones = try await Self.phones(client, key: world.demo.secretKey, query: "?days=7")
            XCTAssertEqual(weekPhones, 2)
            let others = try await Self.boxes(client, key: world.other.secretKey)
            XCTAssertTrue(others.isEmpty, "each project sees its own")
        }
    }

    func testOldDaysGoAfterTheDaysKeptAndAVisitPastMidnightCountsOnBothDays() async throws {
        let clock = PresentRouterTests.ManualClock()
        try await RouterWorld.each(clock: clock.clock) { world, client, _ in
            let (secret, key) = (world.demo.secretKey, world.demo.apiKey)
            _ = try await FieldCheckRouterTests.registerDoor(client, key: secret)
            // 1,800,000,000,000 ms is 08:00 UTC: the visit's next report, 17 hours on, is tomorrow's.
            // (Set for each storage's run: the clock is the test's.)
            clock.ms.withLockedValue { $0 = 1_800_000_000_000 }
            let receipt = try await Self.send(client, key: key, Self.report())
            clock.advance(seconds: 17 * 3600)
            try await Self.send(client, key: key, Self.report(["receipt": receipt]))
            let today1 = try await Self.phones(client, key: secret), twoDays = try await Self.phones(client, key: secret, query: "?days=2")
            XCTAssertEqual(today1, 1, "today's")
            XCTAssertEqual(twoDays, 2,
                           "yesterday's report stays yesterday's")
            // 29 days on, the first day is the 31st day back: not read, then deleted by the sweep.
            clock.advance(seconds: 29 * 86_400)
            let month = try await client.call(.get, Self.path + "?days=30", key: secret)
            XCTAssertEqual(month.status, .ok, month.text)
            XCTAssertEqual(Self.number((month.json["boxes"] as? [[String: Any]])?.first, "phones"), 1, "only the day still kept")
            let reach = world.hub.repositories.reach
            let today = ReachDay.day(ms: clock.clock.nowMs())
            let stored = try await reach.rows(project: "demo", fromDay: 0)
            XCTAssertEqual(stored.count, 2, "both days stored until the sweep")
            let firstKept = ReachSweepService.firstDayKept(nowMs: clock.clock.nowMs(), daysKept: world.hub.limiter.settings.reach.daysKept)
            XCTAssertEqual(firstKept, today - 29)
            let deleted = try await reach.deleteDays(before: firstKept)
            XCTAssertEqual(deleted, 1)
            let left = try await reach.rows(project: "demo", fromDay: 0)
            XCTAssertEqual(left.map(\.key.day), [today - 29])
            let deletedAgain = try await reach.deleteDays(before: firstKept)
            XCTAssertEqual(deletedAgain, 0, "a second sweep deletes nothing")
            clock.advance(seconds: 86_400)
            let past = try await Self.boxes(client, key: secret, query: "?days=30")
            XCTAssertTrue(past.isEmpty, "past the days kept")
        }
    }

    func testTheRateIsPerProjectAndARefusedReportSpendsNone() async throws {
        var limits = HubLimits()
        limits.reach.perMinutePerProject = 3
        try await RouterWorld.each(limits: limits) { world, client, _ in
            _ = try await FieldCheckRouterTests.registerDoor(client, key: world.demo.secretKey)
            let nowhere = Self.report(["joinedBy": "none", "beaconName": NSNull(), "firstTokenMs": NSNull()])
            assertRefusal(try await client.call(.post, Self.path, key: world.demo.apiKey, json: Self.report(["joinedBy": "ear"])), .badRequest)
            for _ in 0..<3 { try await Self.send(client, key: world.demo.apiKey, Self.report()) }
            let limited = try await client.call(.post, Self.path, key: world.demo.apiKey, json: Self.report())
            assertRefusal(limited, .tooManyRequests)
            XCTAssertGreaterThanOrEqual(Int(limited.headers[.retryAfter] ?? "") ?? 0, 1)
            XCTAssertTrue((limited.error["message"] as? String ?? "").contains("reach reports"), limited.text)
            try await Self.send(client, key: world.other.apiKey, nowhere)
            let counted = try await Self.phones(client, key: world.demo.secretKey)
            XCTAssertEqual(counted, 3)
        }
    }

    func testTheHistogramsMedianAndTheCountsRoundTrip() {
        var counts = ReachCounts()
        XCTAssertNil(counts.medianFirstTokenMs)
        XCTAssertEqual(ReachCounts.firstTokenBucket(ms: 0), 0)
        XCTAssertEqual(ReachCounts.firstTokenBucket(ms: 1_000), 0)
        XCTAssertEqual(ReachCounts.firstTokenBucket(ms: 1_001), 1)
        XCTAssertEqual(ReachCounts.firstTokenBucket(ms: 30_001), ReachCounts.firstTokenBuckets - 1)
        counts.firstToken[ReachCounts.firstTokenBucket(ms: 2_300)] = 1
        XCTAssertEqual(counts.medianFirstTokenMs, 2_250, "one phone: the middle of its bucket")
        counts.firstToken[ReachCounts.firstTokenBucket(ms: 40_000)] = 2
        XCTAssertEqual(counts.medianFirstTokenMs, 30_000, "the open bucket: its lower edge")
        XCTAssertEqual(ReachCounts.columns.count, counts.values.count)
        XCTAssertEqual(Set(ReachCounts.columns).count, ReachCounts.columns.count)
        counts.highLevelDeciDb = -625
        XCTAssertEqual(ReachCounts(values: counts.values), counts)
        XCTAssertNil(ReachCounts(values: Array(counts.values.dropLast())))
        XCTAssertTrue((counts + -counts).isZero)
    }
}
