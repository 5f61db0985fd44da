import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOConcurrencyHelpers
import NIOCore
@testable import NearcastHub
import XCTest

/// The storage's subtler rules, held by the memory implementations as by the database's
/// (`RouterWorld.each`: memory, then SQLite), read through the repositories the controllers
/// use: a deck's delete ends its shows and tells their streams; a show needs an active beacon, a
/// deck and a page, and a deck switch keeps its start and counts; follower totals count fresh
/// reports; the live beacons are the shows' active EID beacons; the box's name and last
/// contact; the quota's 507; every beacon change numbered, deletions kept as tombstones.
final class StorageRulesTests: XCTestCase {
    private typealias ManualClock = PresentRouterTests.ManualClock

    /// A deck of `pages` stored without rendering, each page's full image `bytes` long.
    private static func deck(_ world: RouterWorld, pages: Int, bytes: Int = 3) async throws -> String {
        let page = DeckRenderer.Page(full: [UInt8](repeating: 0xD8, count: bytes), thumbnail: [0xFF, 0xD8])
        return try await world.hub.repositories.decks.add(project: "demo", title: "t", sourceBytes: 1,
                                                          rendered: .init(pages: Array(repeating: page, count: pages), width: 16, height: 9)).deckID
    }

    /// Registers an EID beacon through the API; its beacon name.
    private static func eid(_ world: RouterWorld, _ client: any TestClientProtocol) async throws -> String {
        let beacon = try TestBeacon(hub: world.hub, exponent: 7)
        assertStatus(try await client.call(.post, "/v1beta1/beacons:register", key: world.demo.secretKey, json: try beacon.registration()), .ok)
        return try beacon.name
    }

    /// Registers a UID beacon through the API; its beacon name.
    private static func uid(_ world: RouterWorld, _ client: any TestClientProtocol, _ id: [UInt8]) async throws -> String {
        let answer = try await client.call(.post, "/v1beta1/beacons:register", key: world.demo.secretKey,
                                           json: ["advertisedId": ["type": "EDDYSTONE", "id": base64(id)]])
        assertStatus(answer, .ok)
        return answer.json["beaconName"] as? String ?? ""
    }

    private static func key(_ beaconName: String) -> BeaconRef { BeaconRef(project: "demo", beaconName: beaconName) }

    func testADeckDeleteEndsItsShowsAndTellsTheirStreams() async throws {
        try await RouterWorld.each { world, client, storage in
            let shows = world.hub.repositories.shows, decks = world.hub.repositories.decks
            let box = try await Self.eid(world, client), door = try await Self.uid(world, client, [1, 2])
            let deck = try await Self.deck(world, pages: 3), kept = try await Self.deck(world, pages: 2)
            _ = try await shows.put(BeaconRef(project: "demo", beaconName: box),  deckID: deck, page: 2)
            _ = try await shows.put(BeaconRef(project: "demo", beaconName: door),  deckID: kept, page: 1)
            let opened = try await decks.pageWasShown(project: "demo", deckID: deck, page: 2)
            XCTAssertTrue(opened, "\(storage): the live page is open")
            let stream = StreamLog(world.hub.present.showFeed.subscribe(Self.key(box), role: .follower).events)

            let ended = try await decks.delete(project: "demo", deckID: deck)
            XCTAssertEqual(ended, [box], "\(storage)")
            let gone = try await shows.get(BeaconRef(project: "demo", beaconName: box))
            XCTAssertNil(gone, "\(storage)")
            let other = try await shows.get(BeaconRef(project: "demo", beaconName: door))
            XCTAssertEqual(other?.deckID, kept, "\(storage): another deck's show goes on")
            let stillOpen = try await decks.pageWasShown(project: "demo", deckID: deck, page: 2)
            XCTAssertFalse(stillOpen, "\(storage)")
            let image = try await decks.image(project: "demo", deckID: deck, page: 1, size: .full)
            XCTAssertNil(image, "\(storage): its pages went with it")
            let listed = try await decks.list(project: "demo").map(\.deckID)
            XCTAssertEqual(listed, [kept], "\(storage)")
            let told = await stream.waitFor("event: ended")
            XCTAssertTrue(told, "\(storage): the show's stream is told it ended: \(stream.text)")
            await assertAPIError(.notFound) { _ = try await decks.delete(project: "demo", deckID: deck) }
            await assertAPIError(.notFound, field: "deck") { _ = try await shows.put(BeaconRef(project: "demo", beaconName: box),  deckID: deck, page: 1) }
        }
    }

    func testAShowNeedsAnActiveBeaconADeckAndAPageAndADeckSwitchKeepsItsStartAndCounts() async throws {
        let clock = ManualClock()
        try await RouterWorld.each(clock: clock.clock) { world, client, storage in
            let shows = world.hub.repositories.shows
            let box = try await Self.eid(world, client), gone = try await Self.uid(world, client, [3])
            try await world.hub.repositories.beacons.delete(BeaconRef(project: "demo", beaconName: gone))
            let deck = try await Self.deck(world, pages: 3), next = try await Self.deck(world, pages: 2)
            await assertAPIError(.notFound) { _ = try await shows.put(BeaconRef(project: "demo", beaconName: gone),  deckID: deck, page: 1) }
            await assertAPIError(.notFound) { _ = try await shows.put(BeaconRef(project: "other", beaconName: box),  deckID: deck, page: 1) }
            for page in [0, 4] {
                await assertAPIError(.badRequest, field: "page") { _ = try await shows.put(BeaconRef(project: "demo", beaconName: box),  deckID: deck, page: page) }
            }

            let started = try await shows.put(BeaconRef(project: "demo", beaconName: box),  deckID: deck, page: 1)
            let stream = StreamLog(world.hub.present.showFeed.subscribe(Self.key(box), role: .presenter).events)
            let clap = ReactionBatch.Reaction(value: "👏", timeMs: clock.clock.nowMs(), slide: .init(deckID: deck, page: 1))
            let counts = try await shows.addReactions(BeaconRef(project: "demo", beaconName: box),
                                                      ReactionBatch(reactions: [clap, clap, clap], drawn: [clap]))
            XCTAssertEqual(counts, ["👏": 3], "\(storage)")
            let sent = await stream.waitFor(#""counts":{"👏":3}"#)
            XCTAssertTrue(sent, "\(storage): the batch reaches the presenters: \(stream.text)")
            clock.advance(seconds: 3)
            _ = try await shows.put(BeaconRef(project: "demo", beaconName: box),  deckID: deck, page: 3)
            let moved = try await shows.get(BeaconRef(project: "demo", beaconName: box))
            XCTAssertEqual(moved?.shown.pages, [1], "\(storage): page 1 stayed for the dwell")
            clock.advance(seconds: 1)
            let switched = try await shows.put(BeaconRef(project: "demo", beaconName: box),  deckID: next, page: 2)
            XCTAssertEqual(switched.startedMs, started.startedMs, "\(storage)")
            XCTAssertEqual(switched.counts, ["👏": 3], "\(storage)")
            XCTAssertEqual(switched.shown.pages, [], "\(storage): the pages shown start again")
            let read = try await shows.get(BeaconRef(project: "demo", beaconName: box))
            XCTAssertEqual(read, switched, "\(storage)")

            let live = try await shows.liveBeacon(BeaconRef(project: "demo", beaconName: box))
            XCTAssertEqual(live?.codeJoining, true, "\(storage)")
            XCTAssertEqual(live?.codeShare, 50, "\(storage)")
            let changed = try await shows.setCode(BeaconRef(project: "demo", beaconName: box),  joining: false, share: 20, rotate: true)
            XCTAssertTrue(changed, "\(storage)")
            let after = try await shows.liveBeacon(BeaconRef(project: "demo", beaconName: box))
            XCTAssertEqual(after?.codeJoining, false, "\(storage)")
            XCTAssertEqual(after?.codeShare, 20, "\(storage)")
            XCTAssertNotEqual(after?.codeSalt, live?.codeSalt, "\(storage): a new salt")

            let ended = try await shows.delete(BeaconRef(project: "demo", beaconName: box))
            XCTAssertTrue(ended, "\(storage)")
            let again = try await shows.delete(BeaconRef(project: "demo", beaconName: box))
            XCTAssertFalse(again, "\(storage)")
            let noShow = try await shows.addReactions(BeaconRef(project: "demo", beaconName: box), ReactionBatch(reactions: [clap], drawn: []))
            XCTAssertNil(noShow, "\(storage)")
            let noCode = try await shows.setCode(BeaconRef(project: "demo", beaconName: box),  joining: true, share: nil, rotate: false)
            XCTAssertFalse(noCode, "\(storage)")
        }
    }

    /// A tap sent with a key counts once: sent twice in one batch, again in a later batch (the
    /// phone lost the answer, or HAProxy sent it to another instance), or both; another phone's
    /// tap with the same key is its own. The presenter is not sent a tap counted before. The
    /// receipt is forgotten after ten minutes (with the heartbeat, on SQLite).
    func testATapSentAgainWithItsKeyIsCountedOnceWhicheverBatchItComesIn() async throws {
        let clock = ManualClock()
        try await RouterWorld.each(clock: clock.clock) { world, client, storage in
            let shows = world.hub.repositories.shows
            let box = try await Self.eid(world, client), deck = try await Self.deck(world, pages: 2)
            _ = try await shows.put(Self.key(box), deckID: deck, page: 1)
            let stream = StreamLog(world.hub.present.showFeed.subscribe(Self.key(box), role: .presenter).events)
            func tap(_ phone: String, _ key: String?, _ value: String = "👏") -> ReactionBatch.Reaction {
                .init(value: value, timeMs: clock.clock.nowMs(), slide: .init(deckID: deck, page: 1),
                      receipt: key.map { .init(phone: phone, tap: $0) })
            }
            var counts = try await shows.addReactions(Self.key(box), ReactionBatch(
                reactions: [tap("a", "t1"), tap("a", "t1"), tap("a", "t2"), tap("b", "t1"), tap("a", nil), tap("a", nil)],
                drawn: [tap("a", "t1"), tap("b", "t1")]))
            XCTAssertEqual(counts, ["👏": 5], "\(storage): t1 twice in the batch counts once; b's t1 is b's; taps without a key all count")
            counts = try await shows.addReactions(Self.key(box), ReactionBatch(
                reactions: [tap("a", "t1", "❤️"), tap("b", "t1"), tap("a", "t3", "❤️")], drawn: [tap("a", "t1", "❤️"), tap("a", "t3", "❤️")]))
            XCTAssertEqual(counts, ["👏": 5, "❤️": 1], "\(storage): taps counted in an earlier batch are not counted again")
            let sent = await stream.waitFor(#""counts":{"#)
            XCTAssertTrue(sent, "\(storage): \(stream.text)")
            _ = await stream.waitFor(#"❤️":1"#)
            XCTAssertEqual(stream.text.components(separatedBy: #""value":"❤️""#).count - 1, 1,
                           "\(storage): the presenter is sent the new tap, not the one counted before: \(stream.text)")
            let tallied = try await world.hub.repositories.tallies.tallies(Self.key(box), fromMs: 0, untilMs: .max)
            XCTAssertEqual(tallied.reduce(0) { $0 + $1.count }, 6, "\(storage): the figures count what the show counts")

            clock.advance(seconds: 601)
            if storage != .memory { _ = try await world.hub.repositories.venue.heartbeat(instance: "test", nowMs: clock.clock.nowMs()) }
            counts = try await shows.addReactions(Self.key(box), ReactionBatch(reactions: [tap("a", "t1")], drawn: []))
            XCTAssertEqual(counts?["👏"], 6, "\(storage): a receipt is kept ten minutes")
        }
    }

    func testFollowerTotalsCountEveryInstancesFreshReport() async throws {
        let clock = ManualClock()
        try await RouterWorld.each(clock: clock.clock) { world, client, storage in
            let shows = world.hub.repositories.shows
            let box = try await Self.eid(world, client), door = try await Self.uid(world, client, [4])
            let deck = try await Self.deck(world, pages: 1)
            _ = try await shows.put(BeaconRef(project: "demo", beaconName: box),  deckID: deck, page: 1)
            let stream = StreamLog(world.hub.present.showFeed.subscribe(Self.key(box), role: .presenter).events)
            try await shows.recordFollowers(instance: "a", [Self.key(box): 3, Self.key(door): 7])
            try await shows.recordFollowers(instance: "b", [Self.key(box): 2])
            var total = try await shows.followers(BeaconRef(project: "demo", beaconName: box))
            XCTAssertEqual(total, 5, "\(storage): the instances' counts add up")
            let told = await stream.waitFor(#""followers":5"#)
            XCTAssertTrue(told, "\(storage): the presenters see the new count: \(stream.text)")
            clock.advance(seconds: 20)
            try await shows.recordFollowers(instance: "a", [Self.key(box): 4])
            total = try await shows.followers(BeaconRef(project: "demo", beaconName: box))
            XCTAssertEqual(total, 6, "\(storage): b's report is 20 s old, still counted")
            clock.advance(seconds: 11)
            total = try await shows.followers(BeaconRef(project: "demo", beaconName: box))
            XCTAssertEqual(total, 4, "\(storage): b's report is 31 s old, not counted")
            let other = try await shows.followers(BeaconRef(project: "demo", beaconName: door))
            XCTAssertEqual(other, 0, "\(storage): a's count for the door is stale too")
            clock.advance(seconds: 5 * 60)
            try await shows.recordFollowers(instance: "b", [Self.key(box): 1])
            total = try await shows.followers(BeaconRef(project: "demo", beaconName: box))
            XCTAssertEqual(total, 1, "\(storage)")
        }
    }

    func testLiveBeaconsAreTheShowsActiveEIDBeaconsAndTheBoxIsNamedAndSeen() async throws {
        let clock = ManualClock()
        try await RouterWorld.each(clock: clock.clock) { world, client, storage in
            let shows = world.hub.repositories.shows, beacons = world.hub.repositories.beacons
            let registered = clock.clock.nowMs()
            let box = try await Self.eid(world, client), door = try await Self.uid(world, client, [5])
            let deck = try await Self.deck(world, pages: 1)
            for beacon in [box, door] { _ = try await shows.put(BeaconRef(project: "demo", beaconName: beacon),  deckID: deck, page: 1) }
            var live = try await shows.liveBeacons()
            XCTAssertEqual(live.map(\.beaconName), [box], "\(storage): a UID beacon has no sight code")
            XCTAssertEqual(live.first?.exponent, 7, "\(storage)")

            var seen = try await shows.box(BeaconRef(project: "demo", beaconName: box))
            XCTAssertEqual(seen?.name, box, "\(storage): no description, the beacon's name")
            XCTAssertEqual(seen?.lastSeenMs, registered, "\(storage): no heartbeat, the registration")
            clock.advance(seconds: 60)
            try await beacons.recordHeartbeat(BeaconRef(project: "demo", beaconName: box),  heartbeatJSON: "{}", clockValue: nil, boxName: "Room A",
                                              atMs: clock.clock.nowMs())
            seen = try await shows.box(BeaconRef(project: "demo", beaconName: box))
            XCTAssertEqual(seen?.name, "Room A", "\(storage)")
            XCTAssertEqual(seen?.lastSeenMs, registered + 60_000, "\(storage)")
            try await beacons.recordHeartbeat(BeaconRef(project: "demo", beaconName: box),  heartbeatJSON: "{}", clockValue: nil, boxName: nil,
                                              atMs: registered - 5_000)
            seen = try await shows.box(BeaconRef(project: "demo", beaconName: box))
            XCTAssertEqual(seen?.lastSeenMs, registered, "\(storage): never before the registration")

            try await beacons.delete(BeaconRef(project: "demo", beaconName: box))
            live = try await shows.liveBeacons()
            XCTAssertTrue(live.isEmpty, "\(storage): a deleted beacon's show has no sight code")
            seen = try await shows.box(BeaconRef(project: "demo", beaconName: box))
            XCTAssertEqual(seen?.name, "Room A", "\(storage): the deleted beacon's row still names its box")
            let never = try await shows.box(BeaconRef(project: "demo", beaconName: "beacons/3!99"))
            XCTAssertNil(never, "\(storage)")
        }
    }

    func testTheDeckQuotaIsA507WithTheSameMessageInBothStorages() async throws {
        var limits = DeckLimits()
        limits.storagePerProjectMB = 1
        let messages = NIOLockedValueBox<[String]>([])
        try await RouterWorld.each(decks: limits) { world, _, storage in
            let decks = world.hub.repositories.decks
            _ = try await Self.deck(world, pages: 1, bytes: 600_000)   // 800,000 bytes as stored
            try await decks.checkRoom(project: "demo")
            do {
                _ = try await Self.deck(world, pages: 1, bytes: 600_000)
                XCTFail("\(storage): past the quota")
            } catch let error as APIError {
                XCTAssertEqual(error.status.code, 507, "\(storage)")
                messages.withLockedValue { $0.append(error.message) }
            }
            let listed = try await decks.list(project: "demo")
            XCTAssertEqual(listed.count, 1, "\(storage): nothing of the refused deck is kept")
            // 800,004 stored (the thumbnail's 4 bytes too) and 248,572 more: the quota to the byte.
            _ = try await Self.deck(world, pages: 1, bytes: 186_426)
            await assertAPIError(DeckQuota.insufficientStorage) { try await decks.checkRoom(project: "demo") }
        }
        let seen = messages.withLockedValue { $0 }
        XCTAssertEqual(seen.count, 2)
        XCTAssertEqual(Set(seen).count, 1, "\(seen)")
    }

    func testEveryBeaconChangeIsNumberedAndADeletedBeaconStaysAsATombstone() async throws {
        try await RouterWorld.each { world, client, storage in
            let changes = world.hub.repositories.beaconChanges, beacons = world.hub.repositories.beacons
            let attachments = world.hub.repositories.attachments
            let signal = changes.signal.current
            let door = try await Self.uid(world, client, [6])
            XCTAssertNotEqual(changes.signal.current, signal, "\(storage): a registration moves the signal")
            var changed = try await changes.changed(after: 0)
            let registered = try XCTUnwrap(changed.beacons.last, "\(storage)")
            XCTAssertEqual(registered.beaconName, door)
            _ = try await attachments.add(BeaconRef(project: "demo", beaconName: door),  namespacedType: "demo/a", data: "eA==")
            changed = try await changes.changed(after: registered.changeSeq)
            XCTAssertEqual(changed.beacons.map(\.beaconName), [door], "\(storage): an attachment renumbers its beacon")
            XCTAssertEqual(changed.attachments[ChangedBeacons.key("demo", door)]?.map(\.data), ["eA=="], "\(storage)")
            let attached = try XCTUnwrap(changed.beacons.first).changeSeq

            let box = try await Self.eid(world, client)
            let eids = try await changes.changed(after: attached).beacons.filter { $0.kind == .eid }
            XCTAssertEqual(eids.map(\.beaconName), [box], "\(storage)")
            let boxSeq = try XCTUnwrap(eids.first).changeSeq
            try await beacons.recordHeartbeat(BeaconRef(project: "demo", beaconName: box),  heartbeatJSON: "{}", clockValue: nil, boxName: nil, atMs: 1)
            let quiet = try await changes.changed(after: boxSeq)
            XCTAssertTrue(quiet.beacons.isEmpty, "\(storage): a heartbeat that moves no clock and no name changes nothing read")
            try await beacons.recordHeartbeat(BeaconRef(project: "demo", beaconName: box),  heartbeatJSON: "{}", clockValue: 5, boxName: nil, atMs: 2)
            let anchored = try await changes.changed(after: boxSeq).beacons.filter { $0.kind == .eid }
            XCTAssertEqual(anchored.first?.eidRegistration?.clock.value, 5, "\(storage): a re-anchored clock is read again")

            try await beacons.delete(BeaconRef(project: "demo", beaconName: door))
            changed = try await changes.changed(after: attached)
            let tombstone = try XCTUnwrap(changed.beacons.first { $0.beaconName == door }, "\(storage)")
            XCTAssertFalse(tombstone.active, "\(storage)")
            XCTAssertNil(changed.attachments[ChangedBeacons.key("demo", door)], "\(storage): its attachments went with it")
            let again = try await Self.uid(world, client, [6])
            XCTAssertEqual(again, door, "\(storage): a deleted beacon registers afresh")
            let listed = try await attachments.list(BeaconRef(project: "demo", beaconName: door))
            XCTAssertTrue(listed.isEmpty, "\(storage)")
        }
    }
}

/// What a show stream receives, collected as it arrives, for a test to wait on.
final class StreamLog: Sendable {
    private let events: NIOLockedValueBox<[String]>
    private let reader: Task<Void, Never>

    init(_ stream: AsyncStream<ByteBuffer>) {
        let events = NIOLockedValueBox<[String]>([])
        self.events = events
        reader = Task { for await bytes in stream { events.withLockedValue { $0.append(String(buffer: bytes)) } } }
    }

    deinit { reader.cancel() }

    var text: String { events.withLockedValue { $0.joined() } }

    /// Whether `fragment` arrives within `seconds`.
    func waitFor(_ fragment: String, seconds: Double = 5) async -> Bool {
        let deadline = ContinuousClock.now + .seconds(seconds)
        while ContinuousClock.now < deadline {
            if text.contains(fragment) { return true }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return text.contains(fragment)
    }
}

/// Asserts `body` throws an `APIError` of `status` (naming `field` when given).
func assertAPIError(_ status: HTTPResponse.Status, field: String? = nil, file: StaticString = #filePath, line: UInt = #line,
                    _ body: () async throws -> Void) async {
    do {
        try await body()
        XCTFail("no error; expected \(status.code)", file: file, line: line)
    } catch let error as APIError {
        XCTAssertEqual(error.status.code, status.code, error.message, file: file, line: line)
        if let field { XCTAssertEqual(error.field, field, error.message, file: file, line: line) }
    } catch {
        XCTFail("\(error); expected an APIError \(status.code)", file: file, line: line)
    }
}
