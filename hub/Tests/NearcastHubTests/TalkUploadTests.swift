import Foundation
import HTTPTypes
import HummingbirdTesting
@testable import NearcastHub
import XCTest

/// Speakers' decks: each talk's upload address (`GET /v1/talks`), a PDF sent to it with no key,
/// the refusals (an address the hub did not make, not a PDF, a talk on or over), and the day
/// runner putting the talk's own deck on the room's box at its start.
final class TalkUploadTests: XCTestCase {
    typealias SetClock = ScheduleRouterTests.SetClock

    static func talks(_ client: some TestClientProtocol, _ world: RouterWorld) async throws -> [[String: Any]] {
        let answer = try await client.call(.get, "/v1/talks", key: world.demo.secretKey)
        assertStatus(answer, .ok)
        return (answer.json["talks"] as? [[String: Any]] ?? []).compactMap { $0["talk"] as? [String: Any] }
    }

    static func pdf(_ title: String) -> [UInt8] {
        TitleCardPDF.make(.init(title: title, persons: [], when: "", room: "", label: "Slides"))
    }

    func testASpeakerUploadsTheirDeckToTheirTalksAddressUntilItStarts() async throws {
        let clock = SetClock()
        try await RouterWorld.each(clock: clock.clock) { world, client, storage in
            clock.set("2026-11-28T08:00:00Z")   // 09:00 in Berlin, before the day
            assertStatus(try await ScheduleRouterTests.put(client, world, ScheduleRouterTests.day), .ok)
            var talks = try await Self.talks(client, world)
            XCTAssertEqual(talks.count, 3)
            XCTAssertTrue(talks.allSatisfy { $0["deck"] == nil && ($0["uploadPath"] as? String)?.hasPrefix("/upload/") == true })
            let opening = try XCTUnwrap(talks.first { $0["title"] as? String == "Opening" }?["uploadPath"] as? String)
            // The speaker's page, then their PDF: no key.
            let page = try await client.call(.get, opening)
            assertStatus(page, .ok)
            XCTAssertTrue(page.text.contains("<h1>Opening</h1>"), page.text)
            let sent = try await client.call(.post, opening, raw: Self.pdf("Opening's slides"), contentType: "application/pdf")
            assertStatus(sent, .created, storage.rawValue)
            let deck = try XCTUnwrap(sent.json["deck"] as? String)
            talks = try await Self.talks(client, world)
            XCTAssertEqual(talks.first { $0["title"] as? String == "Opening" }?["deck"] as? String, deck)
            // Replaced freely before the start.
            let replaced = try await client.call(.post, opening, raw: Self.pdf("Opening, final"), contentType: "application/pdf")
            assertStatus(replaced, .created)
            // Refusals: an address the hub did not make, a changed one, not a PDF.
            assertRefusal(try await client.call(.post, "/upload/bm9wZQ.AAAA", raw: Self.pdf("x"), contentType: "application/pdf"), .notFound)
            assertRefusal(try await client.call(.post, String(opening.dropLast(2)) + "AA", raw: Self.pdf("x"), contentType: "application/pdf"),
                          .notFound)
            assertRefusal(try await client.call(.post, opening, raw: Array("not a pdf".utf8), contentType: "text/plain"),
                          .unsupportedMediaType, field: "Content-Type")
            // On now with a deck: not replaced; over: nothing taken.
            clock.set("2026-11-28T09:10:00Z")
            assertRefusal(try await client.call(.post, opening, raw: Self.pdf("late"), contentType: "application/pdf"), .conflict)
            clock.set("2026-11-28T09:50:00Z")
            assertRefusal(try await client.call(.post, opening, raw: Self.pdf("after"), contentType: "application/pdf"), .forbidden)
        }
    }

    func testTheRoomShowsTheTalksOwnDeckAtItsStart() async throws {
        let clock = SetClock()
        try await RouterWorld.each(clock: clock.clock) { world, client, _ in
            clock.set("2026-11-28T08:30:00Z")   // 09:30 in Berlin
            let room = try await DayRunnerTests.room(world, client)
            let talks = try await Self.talks(client, world)
            let opening = try XCTUnwrap(talks.first { $0["title"] as? String == "Opening" }?["uploadPath"] as? String)
            let sent = try await client.call(.post, opening, raw: Self.pdf("Opening's slides"), contentType: "application/pdf")
            let deck = try XCTUnwrap(sent.json["deck"] as? String)
            _ = await world.hub.present.day.tick(nowMs: world.hub.clock.nowMs())
            let before = try await room.current()
            XCTAssertTrue(before.title.hasPrefix("Title card \u{B7} Next"), "before the talk, its card: \(before.title)")
            clock.set("2026-11-28T09:00:00Z")
            _ = await world.hub.present.day.tick(nowMs: world.hub.clock.nowMs())
            let during = try await room.current()
            XCTAssertEqual(during.show.deckID, deck, "at its start, the speaker's deck")
            // The phones see the room's talks, never an upload address.
            let json = try await client.call(.get, "/v1/shows/\(room.beacon.beaconName.dropFirst("beacons/".count))",
                                             key: world.demo.secretKey).json
            let now = try XCTUnwrap((json["room"] as? [String: Any])?["now"] as? [String: Any])
            XCTAssertEqual(now["deck"] as? String, deck)
            XCTAssertNil(now["uploadPath"])
        }
    }
}
