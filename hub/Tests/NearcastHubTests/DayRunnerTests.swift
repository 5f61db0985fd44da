import Foundation
import HTTPTypes
import HummingbirdTesting
@testable import NearcastHub
import XCTest

/// A day run by `DayRunner` over the router's world (memory and SQLite), with a clock the test
/// sets: before the first talk, talk to talk, a presenter's overrun, a talk moved while on, the
/// last talk's end. The title cards are rendered by the real renderer (poppler).
final class DayRunnerTests: XCTestCase {
    typealias SetClock = ScheduleRouterTests.SetClock

    /// Hall A (Berlin): Opening 10:00-10:45, Second 11:00-11:30.
    static let day = """
        id,day,room,start,duration,title,speakers
        1,2026-11-28,Hall A,10:00,45,Opening,Jane Doe
        2,2026-11-28,Hall A,11:00,30,Second,Rick Roe
        """

    struct Room {
        let world: RouterWorld
        let client: any TestClientProtocol
        let beacon: BeaconRef

        struct NoShow: Error {}

        /// The room's show, which must be there.
        func current() async throws -> (show: Show, title: String) {
            guard let show = try await show() else { throw NoShow() }
            return show
        }

        func show() async throws -> (show: Show, title: String)? {
            guard let show = try await world.hub.repositories.shows.get(beacon) else { return nil }
            return (show, try await world.hub.repositories.decks.get(project: beacon.project, deckID: show.deckID).title)
        }
    }

    static func room(_ world: RouterWorld, _ client: some TestClientProtocol) async throws -> Room {
        assertStatus(try await ScheduleRouterTests.put(client, world, day), .ok)
        let box = try TestBeacon(hub: world.hub)
        assertStatus(try await client.call(.post, "/v1beta1/beacons:register", key: world.demo.secretKey,
                                           json: try box.registration(description: "Hall A")), .ok)
        return Room(world: world, client: client, beacon: BeaconRef(project: "demo", beaconName: try box.name))
    }

    func testTheRoomShowsTheNextCardThenEachTalkAndEndsAfterTheLast() async throws {
        let clock = SetClock()
        try await RouterWorld.each(clock: clock.clock) { world, client, storage in
            clock.set("2026-11-28T08:30:00Z")   // 09:30 in Berlin
            let room = try await Self.room(world, client)
            let day = world.hub.present.day
            var steps: [DayRunner.Step] = []
            let first = await day.tick(nowMs: world.hub.clock.nowMs())
            XCTAssertEqual(first, [.started(room: "Hall A", title: "Opening")], storage.rawValue)
            let before = try await room.current()
            XCTAssertTrue(before.title.hasPrefix("Title card \u{B7} Next \u{B7} Opening"), before.title)
            // Again at once: nothing to do, and no second card made.
            let again = await day.tick(nowMs: world.hub.clock.nowMs())
            XCTAssertEqual(again, [])
            // At 10:00 the card says Now; the show goes on (its start stays: followers and passes carry over).
            clock.set("2026-11-28T09:00:00Z")
            steps = await day.tick(nowMs: world.hub.clock.nowMs())
            XCTAssertEqual(steps, [.switched(room: "Hall A", title: "Opening")])
            let during = try await room.current()
            XCTAssertTrue(during.title.hasPrefix("Title card \u{B7} Now \u{B7} Opening"), during.title)
            XCTAssertEqual(during.show.startedMs, before.show.startedMs)
            // The phones see the talk's title and the room, not the card's deck title.
            let json = try await client.call(.get, "/v1/shows/\(room.beacon.beaconName.dropFirst("beacons/".count))",
                                             key: world.demo.secretKey).json
            XCTAssertEqual(json["title"] as? String, "Opening")
            let line = try XCTUnwrap(json["room"] as? [String: Any])
            XCTAssertEqual(line["name"] as? String, "Hall A")
            XCTAssertEqual((line["now"] as? [String: Any])?["title"] as? String, "Opening")
            XCTAssertEqual((line["next"] as? [String: Any])?["title"] as? String, "Second")
            // 10:50, between talks; before the runner has looked, the phones still read the talk
            // whose card is up (not the next one's title over the old card); then the next card.
            clock.set("2026-11-28T09:50:00Z")
            let stale = try await client.call(.get, "/v1/shows/\(room.beacon.beaconName.dropFirst("beacons/".count))",
                                              key: world.demo.secretKey).json
            XCTAssertEqual(stale["title"] as? String, "Opening")
            steps = await day.tick(nowMs: world.hub.clock.nowMs())
            XCTAssertEqual(steps, [.switched(room: "Hall A", title: "Second")])
            let title = try await room.current().title
            XCTAssertTrue(title.hasPrefix("Title card \u{B7} Next \u{B7} Second"), title)
            let next = try await client.call(.get, "/v1/shows/\(room.beacon.beaconName.dropFirst("beacons/".count))",
                                             key: world.demo.secretKey).json
            XCTAssertEqual(next["title"] as? String, "Next: Second")
            // 11:30, the last talk over: the show ends.
            clock.set("2026-11-28T10:30:00Z")
            steps = await day.tick(nowMs: world.hub.clock.nowMs())
            XCTAssertEqual(steps, [.ended(room: "Hall A")])
            let ended = try await room.show()
            XCTAssertNil(ended)
            // The cards are decks of the project, four of them (Next and Now of each talk seen).
            let decks = try await world.hub.repositories.decks.list(project: "demo")
            XCTAssertEqual(decks.filter { $0.title.hasPrefix(DayRunner.cardTitlePrefix) }.count, 3)
        }
    }

    func testAPresentersDeckIsNotCutWhileItsPagesTurn() async throws {
        let clock = SetClock()
        try await RouterWorld.each(clock: clock.clock) { world, client, _ in
            clock.set("2026-11-28T09:00:00Z")   // 10:00, Opening starts
            let room = try await Self.room(world, client)
            let day = world.hub.present.day
            var steps: [DayRunner.Step] = []
            await day.tick(nowMs: world.hub.clock.nowMs())
            // The presenter puts up their own deck (a stored title card stands in for a PDF) and turns pages.
            let own = try await world.hub.repositories.decks.add(
                project: "demo", title: "Opening's slides", sourceBytes: 1,
                rendered: try await world.hub.present.renderer.render(TitleCardPDF.make(.init(title: "Slides", persons: [], when: "", room: "", label: ""))))
            clock.set("2026-11-28T09:44:00Z")
            assertStatus(try await client.call(.put, "/v1/shows/\(room.beacon.beaconName.dropFirst("beacons/".count))", key: world.demo.secretKey,
                                               json: ["deck": own.deckID, "page": 1]), .ok)
            // 10:46: Opening's slot is over but its presenter turned a page 2 minutes ago.
            clock.set("2026-11-28T09:46:00Z")
            steps = await day.tick(nowMs: world.hub.clock.nowMs())
            XCTAssertEqual(steps, [.leftToPresenter(room: "Hall A")])
            let kept = try await room.current()
            XCTAssertEqual(kept.show.deckID, own.deckID)
            // 10:50: the page has stood still for 6 minutes: the next talk's card takes over.
            clock.set("2026-11-28T09:50:00Z")
            steps = await day.tick(nowMs: world.hub.clock.nowMs())
            XCTAssertEqual(steps, [.switched(room: "Hall A", title: "Second")])
        }
    }

    /// Short talks with their own decks: the runner's putting a deck up is no page turn, so the
    /// next talk takes the room at its start; a deck its presenter turned is held as any.
    func testATalksOwnDeckNobodyTurnedGivesWayAtTheNextTalk() async throws {
        let clock = SetClock()
        try await RouterWorld.each(clock: clock.clock) { world, client, storage in
            clock.set("2026-11-28T09:00:00Z")   // 10:00 in Berlin
            let lightning = """
                id,day,room,start,duration,title,speakers
                1,2026-11-28,Hall A,10:00,3,First spark,Jane Doe
                2,2026-11-28,Hall A,10:03,3,Second spark,Rick Roe
                3,2026-11-28,Hall A,10:06,3,Third spark,Ann Other
                """
            assertStatus(try await ScheduleRouterTests.put(client, world, lightning), .ok)
            let box = try TestBeacon(hub: world.hub)
            assertStatus(try await client.call(.post, "/v1beta1/beacons:register", key: world.demo.secretKey,
                                               json: try box.registration(description: "Hall A")), .ok)
            let beacon = BeaconRef(project: "demo", beaconName: try box.name)
            let talks = try await client.call(.get, "/v1/talks", key: world.demo.secretKey).json["talks"] as? [[String: Any]] ?? []
            let image = DeckRenderer.Page(full: [0xFF, 0xD8], thumbnail: [0xFF, 0xD8])
            var decks: [String: String] = [:]
            for entry in talks {
                let talk = entry["talk"] as? [String: Any] ?? [:]
                let guid = try XCTUnwrap(talk["guid"] as? String), title = try XCTUnwrap(talk["title"] as? String)
                let deck = try await world.hub.repositories.decks.add(project: "demo", title: title, sourceBytes: 1,
                                                                      rendered: .init(pages: [image, image], width: 16, height: 9))
                try await world.hub.repositories.schedules.setTalkDeck(project: "demo", guid: guid, deckID: deck.deckID)
                decks[title] = deck.deckID
            }
            let day = world.hub.present.day
            _ = await day.tick(nowMs: world.hub.clock.nowMs())
            var current = try await world.hub.repositories.shows.get(beacon)
            XCTAssertEqual(current?.deckID, decks["First spark"], storage.rawValue)
            // 10:03: nobody turned First spark's deck: Second spark's comes up at its start.
            clock.set("2026-11-28T09:03:00Z")
            var steps = await day.tick(nowMs: world.hub.clock.nowMs())
            XCTAssertEqual(steps, [.switched(room: "Hall A", title: "Second spark")], storage.rawValue)
            current = try await world.hub.repositories.shows.get(beacon)
            XCTAssertEqual(current?.deckID, decks["Second spark"])
            // Its presenter turns to page 2 at 10:05: at 10:06 it runs over, held as a presenter's.
            clock.set("2026-11-28T09:05:00Z")
            assertStatus(try await client.call(.put, "/v1/shows/\(beacon.beaconName.dropFirst("beacons/".count))", key: world.demo.secretKey,
                                               json: ["deck": try XCTUnwrap(decks["Second spark"]), "page": 2]), .ok)
            clock.set("2026-11-28T09:06:00Z")
            steps = await day.tick(nowMs: world.hub.clock.nowMs())
            XCTAssertEqual(steps, [.leftToPresenter(room: "Hall A")])
        }
    }

    func testATalkMovedWhileOnFinishesFirstThenTheRoomFollowsTheNewSchedule() async throws {
        let clock = SetClock()
        try await RouterWorld.each(clock: clock.clock) { world, client, _ in
            clock.set("2026-11-28T09:10:00Z")   // 10:10, Opening on
            let room = try await Self.room(world, client)
            let day = world.hub.present.day
            var steps: [DayRunner.Step] = []
            await day.tick(nowMs: world.hub.clock.nowMs())
            // Re-imported mid-talk: Opening moved to the afternoon, Second to 10:30.
            let moved = """
                id,day,room,start,duration,title,speakers
                1,2026-11-28,Hall A,15:00,45,Opening,Jane Doe
                2,2026-11-28,Hall A,10:30,30,Second,Rick Roe
                """
            assertStatus(try await ScheduleRouterTests.put(client, world, moved), .ok)
            steps = await day.tick(nowMs: world.hub.clock.nowMs())
            XCTAssertEqual(steps, [], "Opening finishes first")
            let title = try await room.current().title
            XCTAssertTrue(title.hasPrefix("Title card \u{B7} Now \u{B7} Opening"), title)
            // 10:45, Opening's old end: Second (moved to 10:30, still on) takes over.
            clock.set("2026-11-28T09:45:00Z")
            steps = await day.tick(nowMs: world.hub.clock.nowMs())
            XCTAssertEqual(steps, [.switched(room: "Hall A", title: "Second")])
            let later = try await room.current().title
            XCTAssertTrue(later.hasPrefix("Title card \u{B7} Now \u{B7} Second"), later)
        }
    }

    func testATitleCardIsAPDFThePopplerRendererReads() async throws {
        let pdf = TitleCardPDF.make(.init(title: "Über (the) façade \\ “quoted” – 🎉", persons: ["Zoë"], when: "Sat 28 Nov, 10:00–10:45",
                                          room: "Saal 1", label: "Now"))
        let rendered = try await DeckRenderer().render(pdf)
        XCTAssertEqual(rendered.pages.count, 1)
        XCTAssertEqual(TitleCardPDF.escaped("(a)\\é–🎉"), "\\(a\\)\\\\\\351\\226?")
        XCTAssertEqual(TitleCardPDF.wrapped(String(repeating: "word ", count: 40), size: 44, bold: true).count, 7)
    }
}
