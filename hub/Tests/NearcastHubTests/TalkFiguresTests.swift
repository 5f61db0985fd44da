import Foundation
import HTTPTypes
import HummingbirdTesting
@testable import NearcastHub
import NIOConcurrencyHelpers
import XCTest

/// The speaker's figures at their talk's address, over memory and SQLite with a clock the test
/// sets: phones with ids react to the day's show (`DayRunner`) on different slides, and the talk's
/// page, CSV and JSON count them per slide and per minute; reactions before the talk, between
/// talks and in the next talk do not count, an overrun on the talk's own deck does.
final class TalkFiguresTests: XCTestCase {
    typealias SetClock = ScheduleRouterTests.SetClock

    /// Hall A (Berlin, UTC+1): Opening 10:00-10:45, then Second at once, 10:45-11:15.
    static let day = """
        id,day,room,start,duration,title,speakers
        1,2026-11-28,Hall A,10:00,45,Opening,Jane Doe
        2,2026-11-28,Hall A,10:45,30,Second,Rick Roe
        """

    /// Hall A's box, phones in the room that heard it, and the day's moves.
    struct Room {
        let world: RouterWorld
        let client: any TestClientProtocol
        let box: TestBeacon
        let clock: SetClock
        let registeredMs: Int64
        let ids = NIOLockedValueBox<[String: String]>([:])

        var beacon: BeaconRef { get throws { BeaconRef(project: "demo", beaconName: try box.name) } }

        /// What a phone in the room hears now: the box's EID at its clock.
        func heard() throws -> [String: Any] {
            ["type": "EDDYSTONE_EID",
             "id": base64(try box.eid(at: box.clock + UInt32((world.hub.clock.nowMs() - registeredMs) / 1000)))]
        }

        /// A phone's id, earned once (the work and the heard EID) for the show.
        func phone(_ name: String) async throws -> String {
            if let known = ids.withLockedValue({ $0[name] }) { return known }
            let challenge = try await client.call(.get, "/v1/phones/challenge", key: world.demo.apiKey).json["challenge"] as? String ?? ""
            let observed = try heard()
            let answer = try await client.call(.post, "/v1/phones", key: world.demo.apiKey, json: [
                "challenge": challenge, "nonce": PresentRouterTests.solve(challenge, bits: TalkFiguresTests.workBits), "observed": observed])
            assertStatus(answer, .ok)
            let id = try XCTUnwrap(answer.json["phone"] as? String)
            ids.withLockedValue { $0[name] = id }
            return id
        }

        func react(_ name: String, _ reaction: String, times: Int = 1) async throws {
            let id = try await phone(name)
            for _ in 0..<times {
                let observed = try heard()
                let answer = try await client.call(.post, "/v1/reactions", key: world.demo.apiKey,
                                                   json: ["observed": observed, "reaction": reaction, "phone": id])
                assertStatus(answer, .accepted)
            }
        }

        /// The batch the service sends every 150 ms.
        func flush() async { await PresentService(hub: world.hub).flushReactions() }

        func at(_ instant: String) async {
            clock.set(instant)
            await world.hub.present.day.tick(nowMs: world.hub.clock.nowMs())
        }

        func turn(to page: Int, of deck: String) async throws {
            let name = try box.name.dropFirst("beacons/".count)
            assertStatus(try await client.call(.put, "/v1/shows/\(name)", key: world.demo.secretKey, json: ["deck": deck, "page": page]), .ok)
        }

        func uploadPath(_ title: String) async throws -> String {
            let talks = try await TalkUploadTests.talks(client, world)
            return try XCTUnwrap(talks.first { $0["title"] as? String == title }?["uploadPath"] as? String)
        }
    }

    static let workBits = 6

    /// A JSON object of counts, as Swift values.
    static func counts(_ json: Any?) -> [String: Int] { (json as? [String: Any] ?? [:]).compactMapValues { $0 as? Int } }

    static func room(_ world: RouterWorld, _ client: some TestClientProtocol, _ clock: SetClock) async throws -> Room {
        assertStatus(try await ScheduleRouterTests.put(client, world, day), .ok)
        let box = try TestBeacon(hub: world.hub)
        assertStatus(try await client.call(.post, "/v1beta1/beacons:register", key: world.demo.secretKey,
                                           json: try box.registration(description: "Hall A")), .ok)
        return Room(world: world, client: client, box: box, clock: clock, registeredMs: world.hub.clock.nowMs())
    }

    static var limits: HubLimits {
        var limits = HubLimits.off
        limits.guessing.phoneIdWorkBits = workBits   // quick ids: the proof is what counts here
        return limits
    }

    func testTheSpeakerSeesTheirTalksReactionsPerSlideAndPerMinuteAndDownloadsThem() async throws {
        let clock = SetClock()
        try await RouterWorld.each(limits: Self.limits, clock: clock.clock) { world, client, storage in
            clock.set("2026-11-28T08:30:00Z")   // 09:30 in Berlin
            let room = try await Self.room(world, client, clock)
            let opening = try await room.uploadPath("Opening"), second = try await room.uploadPath("Second")
            let sent = try await client.call(.post, opening, raw: TestPDF.make(pages: 3), contentType: "application/pdf")
            assertStatus(sent, .created)
            let deck = try XCTUnwrap(sent.json["deck"] as? String)

            // Before the talk: its Next card is up; a phone reacts, which is no talk's.
            await room.at("2026-11-28T08:30:00Z")
            try await room.react("a", "🎉")
            await room.flush()
            var page = try await client.call(.get, opening)
            XCTAssertTrue(page.text.contains("Once your talk starts"), page.text)

            // 10:00 Opening starts on its deck: slide 1, then 2 at 10:05, 3 at 10:44.
            await room.at("2026-11-28T09:00:00Z")
            try await room.react("a", "👏", times: 2)
            try await room.react("b", "❤️")
            await room.flush()
            try await room.react("b", "👏")   // the same slide and minute in a later batch: the row adds up
            await room.flush()
            clock.set("2026-11-28T09:05:30Z")
            try await room.turn(to: 2, of: deck)
            try await room.react("a", "👏")
            try await room.react("c", "👏")
            await room.flush()
            clock.set("2026-11-28T09:44:00Z")
            try await room.turn(to: 3, of: deck)
            try await room.react("c", "😂")
            await room.flush()
            // 10:46, in Second's slot, Opening overruns on its deck: still Opening's.
            await room.at("2026-11-28T09:46:00Z")
            let overrun = try await world.hub.repositories.shows.get(try room.beacon)
            XCTAssertEqual(overrun?.deckID, deck, "\(storage): the runner leaves a presenter turning pages")
            try await room.react("b", "👏")
            await room.flush()
            // 10:52, the page still for 8 minutes: Second's title card (it has no deck); its reactions are Second's.
            await room.at("2026-11-28T09:52:00Z")
            try await room.react("a", "👍")
            await room.flush()

            let json = try await client.call(.get, opening + "/reactions.json")
            assertStatus(json, .ok, storage.rawValue)
            XCTAssertEqual(json.headers[.cacheControl], "no-store")
            XCTAssertEqual(json.json["state"] as? String, "over", "\(storage): 10:52, past 10:45")
            XCTAssertEqual(json.json["total"] as? Int, 8, "\(storage): \(json.text)")
            XCTAssertEqual(Self.counts(json.json["counts"]), ["👏": 6, "❤️": 1, "😂": 1])
            XCTAssertEqual(json.json["reactions"] as? [String], ["👏", "❤️", "😂"])
            let slides = try XCTUnwrap(json.json["slides"] as? [[String: Any]])
            XCTAssertEqual(slides.map { $0["page"] as? Int }, [1, 2, 3], "\(storage): every page of the talk's deck")
            XCTAssertEqual(slides.map { Self.counts($0["counts"]) }, [["👏": 3, "❤️": 1], ["👏": 2], ["👏": 1, "😂": 1]])
            XCTAssertEqual(slides.map { $0["ownDeck"] as? Bool }, [true, true, true])
            let timeline = try XCTUnwrap(json.json["timeline"] as? [[String: Any]])
            XCTAssertEqual(timeline.count, 47, "\(storage): the slot's 45 minutes and the overrun's")
            let busy = timeline.filter { ($0["total"] as? Int ?? 0) > 0 }
            XCTAssertEqual(busy.map { $0["minute"] as? Int }, [0, 5, 44, 46])
            XCTAssertEqual(busy.map { $0["total"] as? Int }, [4, 2, 1, 1])
            XCTAssertEqual(busy.first?["time"] as? String, "2026-11-28T09:00:00.000Z")

            let csv = try await client.call(.get, opening + "/reactions.csv")
            assertStatus(csv, .ok)
            XCTAssertEqual(csv.headers[.contentType], "text/csv; charset=utf-8")
            XCTAssertEqual(csv.headers[.contentDisposition], "attachment; filename=\"reactions-opening.csv\"")
            XCTAssertEqual(csv.text, """
                talk,room,deck,slide,minute,time,reaction,count\r
                Opening,Hall A,Opening,1,0,2026-11-28T09:00:00.000Z,❤️,1\r
                Opening,Hall A,Opening,1,0,2026-11-28T09:00:00.000Z,👏,3\r
                Opening,Hall A,Opening,2,5,2026-11-28T09:05:00.000Z,👏,2\r
                Opening,Hall A,Opening,3,44,2026-11-28T09:44:00.000Z,😂,1\r
                Opening,Hall A,Opening,3,46,2026-11-28T09:46:00.000Z,👏,1\r

                """, storage.rawValue)

            // The page draws the same: a row per slide, a bar per minute, the downloads.
            page = try await client.call(.get, opening)
            XCTAssertTrue(page.text.contains("<strong>8</strong> reactions, from phones that proved they were in the room"), page.text)
            XCTAssertTrue(page.text.contains("<tr><th scope=\"row\">1</th><td>3</td><td>1</td><td>0</td><td>4</td>"), page.text)
            XCTAssertTrue(page.text.contains("<title>minute 44: 😂 1</title>"), page.text)
            XCTAssertTrue(page.text.contains("href=\"\(opening)/reactions.csv\""), page.text)
            XCTAssertFalse(page.text.contains("style="), "the hub's CSP takes no inline style")

            // Second: only what came on its card in its slot, not Opening's overrun.
            let next = try await client.call(.get, second + "/reactions.json")
            XCTAssertEqual(next.json["state"] as? String, "on")
            XCTAssertEqual(Self.counts(next.json["counts"]), ["👍": 1], "\(storage): \(next.text)")
            let card = try XCTUnwrap((next.json["slides"] as? [[String: Any]])?.first)
            XCTAssertEqual(card["deckName"] as? String, "the title card")
            XCTAssertEqual(card["ownDeck"] as? Bool, false)
            XCTAssertEqual((next.json["rows"] as? [[String: Any]])?.first?["minute"] as? Int, 7)
        }
    }

    func testAnAddressTheHubDidNotMakeGetsNoFigures() async throws {
        let clock = SetClock()
        try await RouterWorld.each(limits: Self.limits, clock: clock.clock) { world, client, _ in
            clock.set("2026-11-28T08:30:00Z")
            let room = try await Self.room(world, client, clock)
            let opening = try await room.uploadPath("Opening")
            for path in ["/upload/bm9wZQ.AAAA", String(opening.dropLast(2)) + "AA", "/upload/x"] {
                for kind in ["csv", "json"] {
                    assertRefusal(try await client.call(.get, "\(path)/reactions.\(kind)"), .notFound)
                }
            }
            // Before the talk: nothing yet, said so, and an empty CSV with its header.
            let json = try await client.call(.get, opening + "/reactions.json")
            assertStatus(json, .ok)
            XCTAssertEqual(json.json["state"] as? String, "before")
            XCTAssertEqual(json.json["total"] as? Int, 0)
            XCTAssertEqual((json.json["slides"] as? [Any])?.count, 0)
            let csv = try await client.call(.get, opening + "/reactions.csv")
            XCTAssertEqual(csv.text, "talk,room,deck,slide,minute,time,reaction,count\r\n")
            // A talk the schedule no longer has: its address answers nothing.
            assertStatus(try await ScheduleRouterTests.put(client, world, """
                id,day,room,start,duration,title,speakers
                2,2026-11-28,Hall A,10:45,30,Second,Rick Roe
                """), .ok)
            assertRefusal(try await client.call(.get, opening + "/reactions.csv"), .notFound)
        }
    }

    func testTheRuleTakesTheTalksDeckPastItsSlotAndItsRoomsBoxInItsSlot() {
        let talk = ScheduledTalk(guid: "t", title: "T", persons: [], room: "A", startMs: 600_000, endMs: 1_200_000, day: 1)
        let rule = TalkFigures.Rule(talk: talk, ownDeck: "own", uploadedDecks: ["t": "own", "before": "previous"])
        func tally(_ deck: String, minute: Int64) -> ReactionTally {
            ReactionTally(slide: .init(deckID: deck, page: 1), minuteMs: minute * 60_000, value: "👏", count: 1)
        }
        XCTAssertTrue(rule.takes(tally("own", minute: 10), onRoomsBox: false))
        XCTAssertFalse(rule.takes(tally("own", minute: 9), onRoomsBox: false), "a rehearsal before the talk")
        XCTAssertTrue(rule.takes(tally("own", minute: 30), onRoomsBox: false), "an overrun")
        XCTAssertFalse(rule.takes(tally("own", minute: 80), onRoomsBox: false), "more than an hour after: the deck up again")
        XCTAssertFalse(rule.takes(tally("own", minute: 10), onRoomsBox: true), "read with the deck, not twice")
        XCTAssertTrue(rule.takes(tally("card", minute: 10), onRoomsBox: true), "its title card")
        XCTAssertFalse(rule.takes(tally("card", minute: 20), onRoomsBox: true), "after its slot")
        XCTAssertFalse(rule.takes(tally("previous", minute: 12), onRoomsBox: true), "the previous talk overrunning")
        XCTAssertFalse(rule.takes(tally("card", minute: 10), onRoomsBox: false), "another box's card")
    }

    func testTheCSVQuotesWhatItMustAndNoFormulaRuns() {
        XCTAssertEqual(TalkFiguresCSV.field("plain"), "plain")
        XCTAssertEqual(TalkFiguresCSV.field("a, \"b\""), "\"a, \"\"b\"\"\"")
        XCTAssertEqual(TalkFiguresCSV.field("=HYPERLINK(\"x\")"), "\"'=HYPERLINK(\"\"x\"\")\"")
        XCTAssertEqual(TalkFiguresCSV.field("-12"), "-12")
        XCTAssertEqual(TalkFiguresCSV.field("@home"), "'@home")
        let talk = ScheduledTalk(guid: "g", title: "Über: 10 Things!", persons: [], room: "A", startMs: 0, endMs: 1, day: 1)
        XCTAssertEqual(TalkFiguresCSV.fileName(talk), "reactions-ber-10-things.csv")
    }
}
