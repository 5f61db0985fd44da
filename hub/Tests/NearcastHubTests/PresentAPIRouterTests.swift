import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
@testable import NearcastHub
import XCTest

/// Present's routes through the router, in memory and over SQLite, with a clock the test moves:
/// decks uploaded (the real renderer), listed, served as pages and deleted; refused uploads
/// storing nothing; a show started, moved, gated for the audience, switched between decks and ended;
/// reaction choices; joining by the code; the join QR code. (Streams, the deck command, PostgreSQL and two instances
/// are hub/e2e/test_present.py's; reactions' proof is PresentRouterTests'.)
final class PresentAPIRouterTests: XCTestCase {
    private static func upload(_ client: any TestClientProtocol, _ pdf: [UInt8], key: String, query: String = "",
                               contentType: String = "application/pdf") async throws -> Answer {
        try await client.call(.post, "/v1/decks" + query, key: key, raw: pdf, contentType: contentType)
    }

    private static func decks(_ client: any TestClientProtocol, key: String) async throws -> [[String: Any]] {
        let answer = try await client.call(.get, "/v1/decks", key: key)
        XCTAssertEqual(answer.status, .ok, answer.text)
        return answer.json["decks"] as? [[String: Any]] ?? []
    }

    /// A deck of `pages` stored without rendering (the router tests of shows need pages, not pixels).
    private static func storedDeck(_ world: RouterWorld, pages: Int, title: String = "t") async throws -> String {
        let page = DeckRenderer.Page(full: [0xFF, 0xD8, UInt8(pages)], thumbnail: [0xFF, 0xD8])
        return try await world.hub.repositories.decks.add(project: "demo", title: title, sourceBytes: 1,
                                                          rendered: .init(pages: Array(repeating: page, count: pages), width: 16, height: 9)).deckID
    }

    private static func eidBeacon(_ world: RouterWorld, _ client: any TestClientProtocol) async throws -> (TestBeacon, String) {
        let beacon = try TestBeacon(hub: world.hub, exponent: 7)
        assertStatus(try await client.call(.post, "/v1beta1/beacons:register", key: world.demo.secretKey, json: try beacon.registration()), .ok)
        return (beacon, String(try beacon.name.dropFirst("beacons/".count)))
    }

    func testAnUploadedDeckIsListedServedAsJPEGPagesAndDeleted() async throws {
        try await RouterWorld.each { world, client, _ in
            let secret = world.demo.secretKey
            let pdf = TestPDF.make(pages: 3)
            let created = try await Self.upload(client, pdf, key: secret, query: "?title=Quarterly%20review")
            XCTAssertEqual(created.status, .created, created.text)
            XCTAssertEqual(Set(created.json.keys), ["deck", "pages"])
            XCTAssertEqual(created.json["pages"] as? Int, 3)
            let deck = created.json["deck"] as? String ?? ""
            XCTAssertNotNil(deck.range(of: "^[0-9a-f]{16}$", options: .regularExpression), deck)
            let listed = try await Self.decks(client, key: secret)
            XCTAssertEqual(listed.count, 1)
            XCTAssertEqual(listed.first?["title"] as? String, "Quarterly review")
            XCTAssertEqual(listed.first?["bytes"] as? Int, pdf.count)
            XCTAssertNotNil(listed.first?["createdTime"])
            let single = try await client.call(.get, "/v1/decks/\(deck)", key: secret)
            XCTAssertEqual(single.json["deck"] as? String, deck)

            let full = try await client.call(.get, "/v1/decks/\(deck)/pages/1", key: secret)
            XCTAssertEqual(full.status, .ok)
            XCTAssertEqual(full.headers[.contentType], "image/jpeg")
            XCTAssertEqual(Array(full.bytes.prefix(2)), [0xFF, 0xD8], "JPEG magic bytes")
            XCTAssertTrue(full.headers[.cacheControl]?.contains("immutable") ?? false)
            let etag = try XCTUnwrap(full.headers[.eTag])
            assertStatus(try await client.call(.get, "/v1/decks/\(deck)/pages/1", key: secret, headers: [.ifNoneMatch: etag]), .notModified)
            let thumb = try await client.call(.get, "/v1/decks/\(deck)/pages/1?size=thumb", key: secret)
            XCTAssertEqual(thumb.headers[.contentType], "image/jpeg")
            XCTAssertNotEqual(thumb.headers[.eTag], etag, "the two sizes are different images")
            XCTAssertLessThan(thumb.bytes.count, full.bytes.count)
            var pages: [[UInt8]] = []
            for number in 1...3 { pages.append(try await client.call(.get, "/v1/decks/\(deck)/pages/\(number)", key: secret).bytes) }
            XCTAssertEqual(Set(pages).count, 3, "every page is its own image")
            assertRefusal(try await client.call(.get, "/v1/decks/\(deck)/pages/4", key: secret), .notFound)
            assertRefusal(try await client.call(.get, "/v1/decks/\(deck)/pages/0", key: secret), .badRequest, field: "page")
            assertRefusal(try await client.call(.get, "/v1/decks/\(deck)/pages/1?size=huge", key: secret), .badRequest, field: "size")
            assertRefusal(try await client.call(.get, "/v1/decks/XYZ", key: secret), .badRequest, field: "deck")

            let deleted = try await client.call(.delete, "/v1/decks/\(deck)", key: secret)
            XCTAssertEqual(deleted.status, .ok)
            XCTAssertEqual(deleted.text, "{}")
            assertRefusal(try await client.call(.get, "/v1/decks/\(deck)", key: secret), .notFound)
            assertRefusal(try await client.call(.get, "/v1/decks/\(deck)/pages/1", key: secret), .notFound)
            assertRefusal(try await client.call(.delete, "/v1/decks/\(deck)", key: secret), .notFound)
            let none = try await Self.decks(client, key: secret)
            XCTAssertTrue(none.isEmpty)
        }
    }

    func testUploadsThatAreNotReadablePDFsOrLackTheSecretKeyAreRefusedAndNothingIsStored() async throws {
        try await RouterWorld.each { world, client, _ in
            let secret = world.demo.secretKey, pdf = TestPDF.make(pages: 2)
            assertRefusal(try await Self.upload(client, pdf, key: world.demo.apiKey), .forbidden)
            assertRefusal(try await client.call(.post, "/v1/decks", raw: pdf, contentType: "application/pdf"), .unauthorized)
            assertRefusal(try await Self.upload(client, pdf, key: secret, contentType: "application/octet-stream"),
                          .unsupportedMediaType, field: "Content-Type")
            let notes = Array(String(repeating: "these are my speaker notes, not a PDF\n", count: 10).utf8)
            let garbage = Array("%PDF-1.7\n".utf8) + (0..<4000).map { UInt8(($0 * 37 + 11) % 256) }
            for bad in [notes, garbage, Array(pdf.prefix(60)), TestPDF.make(pages: 0), []] {
                assertRefusal(try await Self.upload(client, bad, key: secret), .badRequest)
            }
            let none = try await Self.decks(client, key: secret)
            XCTAssertTrue(none.isEmpty, "nothing was stored by the refused uploads")
        }
    }

    func testAShowStartsMovesGatesPagesForThePublicKeySwitchesDeckAndEnds() async throws {
        let clock = PresentRouterTests.ManualClock()
        try await RouterWorld.each(clock: clock.clock) { world, client, _ in
            let (secret, publicKey) = (world.demo.secretKey, world.demo.apiKey)
            let (beacon, id) = try await Self.eidBeacon(world, client)
            let deck = try await Self.storedDeck(world, pages: 4, title: "Keynote")
            let otherDeck = try await Self.storedDeck(world, pages: 2)
            let token = try await client.call(.post, "/v1beta1/beaconinfo:getforobserved", key: publicKey,
                                              json: ["observations": [try beacon.observation()]]).json
            let watchToken = ((token["beacons"] as? [[String: Any]])?.first?["watchToken"] as? String) ?? ""
            // The audience reads pages with the watch token of the box showing the deck.
            func page(_ deck: String, _ number: Int, key: String) async throws -> Answer {
                try await client.call(.get, "/v1/decks/\(deck)/pages/\(number)?token=\(watchToken)", key: key)
            }
            func show(_ deck: String, _ page: Int, key: String? = nil) async throws -> Answer {
                try await client.call(.put, "/v1/shows/\(id)", key: key ?? secret, json: ["deck": deck, "page": page])
            }
            let audienceShow = "/v1/shows/\(id)?token=\(watchToken)"
            // Before any show the audience sees no page.
            assertRefusal(try await page(deck, 1, key: publicKey), .forbidden)
            assertRefusal(try await client.call(.get, audienceShow, key: publicKey), .notFound)

            let started = try await show(deck, 1)
            XCTAssertEqual(started.status, .ok, started.text)
            XCTAssertEqual(started.json["title"] as? String, "Keynote")
            XCTAssertEqual(started.json["pages"] as? Int, 4)
            XCTAssertEqual(started.json["shownUpTo"] as? Int, 1)
            let audience = try await client.call(.get, audienceShow, key: publicKey)
            XCTAssertEqual(audience.status, .ok, audience.text)
            for field in ["beaconName", "deck", "title", "pages", "page", "shownUpTo", "startedTime", "reactions"] {
                XCTAssertNotNil(audience.json[field], field)
            }
            for presenterOnly in ["code", "codeExpiresTime", "joinPath", "counts", "rotationPeriodSeconds"] {
                XCTAssertNil(audience.json[presenterOnly], "the public key does not get \(presenterOnly)")
            }
            let presenter = try await client.call(.get, "/v1/shows/\(id)", key: secret)
            let code = presenter.json["code"] as? String ?? ""
            XCTAssertNotNil(code.range(of: "^[0-9A-HJKMNP-TV-Z]{6}$", options: .regularExpression), code)
            XCTAssertEqual(presenter.json["joinPath"] as? String, "/j/" + code)
            XCTAssertEqual(presenter.json["rotationPeriodSeconds"] as? Int, 128)

            // Only pages shown: the live one, and each that stayed on the screen for 2 s.
            assertStatus(try await page(deck, 1, key: publicKey), .ok)
            assertRefusal(try await page(deck, 3, key: publicKey), .forbidden)
            assertStatus(try await page(deck, 3, key: secret), .ok, "the secret key sees every page")
            clock.advance(seconds: 3)
            let moved = try await show(deck, 3)
            XCTAssertEqual(moved.json["shown"] as? [Int], [1, 3])
            assertStatus(try await page(deck, 1, key: publicKey), .ok, "page 1 stayed 2 s: shown")
            assertRefusal(try await page(deck, 2, key: publicKey), .forbidden)
            // End then Home at once: neither the live moment of 3 nor the flash of 4 counts.
            _ = try await show(deck, 4)
            let back = try await show(deck, 1)
            XCTAssertEqual(back.json["shown"] as? [Int], [1])
            assertRefusal(try await page(deck, 4, key: publicKey), .forbidden)
            _ = try await show(deck, 2)

            for bad in [0, 5, -1] { assertRefusal(try await show(deck, bad), .badRequest, field: "page") }
            assertRefusal(try await show(String(repeating: "0", count: 16), 1), .notFound)
            assertRefusal(try await show(deck, 1, key: publicKey), .forbidden)
            assertRefusal(try await client.call(.put, "/v1/shows/4!00112233445566778899aabbccddeeff", key: secret,
                                                json: ["deck": deck, "page": 1]), .notFound)
            let unmoved = try await client.call(.get, "/v1/shows/\(id)", key: secret)
            XCTAssertEqual(unmoved.json["page"] as? Int, 2, "the refused moves changed nothing")

            let fresh = try await show(otherDeck, 1)
            XCTAssertEqual(fresh.json["shown"] as? [Int], [1], "another deck: its pages shown start again")
            XCTAssertEqual(fresh.json["startedMs"] as? Int, started.json["startedMs"] as? Int, "the show goes on")
            assertRefusal(try await page(deck, 1, key: publicKey), .forbidden)   // the deck no show is on is not handed out

            assertRefusal(try await client.call(.delete, "/v1/shows/\(id)", key: publicKey), .forbidden)
            let ended = try await client.call(.delete, "/v1/shows/\(id)", key: secret)
            XCTAssertEqual(ended.status, .ok)
            assertRefusal(try await client.call(.get, "/v1/shows/\(id)", key: secret), .notFound)
            assertRefusal(try await client.call(.delete, "/v1/shows/\(id)", key: secret), .notFound)
        }
    }

    /// A follower's stream opens with the show as the public key sees it and ends with the
    /// show; the refusals come before any stream opens.
    func testAShowsStreamOpensWithTheShowAndEndsWithIt() async throws {
        try await RouterWorld.each { world, client, _ in
            let (secret, publicKey) = (world.demo.secretKey, world.demo.apiKey)
            let (beacon, id) = try await Self.eidBeacon(world, client)
            let deck = try await Self.storedDeck(world, pages: 3, title: "Stream")
            let resolved = try await client.call(.post, "/v1beta1/beaconinfo:getforobserved", key: publicKey,
                                                 json: ["observations": [try beacon.observation()]]).json
            let watchToken = ((resolved["beacons"] as? [[String: Any]])?.first?["watchToken"] as? String) ?? ""
            let events = "/v1/shows/\(id)/events?token=\(watchToken)"
            assertRefusal(try await client.call(.get, "/v1/shows/\(id)/events"), .unauthorized)
            assertRefusal(try await client.call(.get, "/v1/shows/\(id)/events", key: publicKey), .forbidden, field: "token")
            assertRefusal(try await client.call(.get, events, key: publicKey), .notFound)   // no show yet
            XCTAssertEqual((resolved["beacons"] as? [[String: Any]])?.first?["hasShow"] as? Bool, false, "no show yet: the page need not ask")
            assertStatus(try await client.call(.put, "/v1/shows/\(id)", key: secret, json: ["deck": deck, "page": 2]), .ok)
            let again = try await client.call(.post, "/v1beta1/beaconinfo:getforobserved", key: publicKey,
                                              json: ["observations": [try beacon.observation()]]).json
            XCTAssertEqual((again["beacons"] as? [[String: Any]])?.first?["hasShow"] as? Bool, true, "the resolve says the show is on")

            let feed = world.hub.present.showFeed
            async let stream = client.call(.get, events, key: publicKey)
            // The stream is open once its follower counts; then the show ends, and so does the stream.
            for _ in 0..<500 where feed.followerCount == 0 { try await Task.sleep(for: .milliseconds(10)) }
            XCTAssertEqual(feed.followerCount, 1, "the follower's stream never opened")
            assertStatus(try await client.call(.delete, "/v1/shows/\(id)", key: secret), .ok)
            let answer = try await stream
            XCTAssertEqual(answer.status, .ok)
            XCTAssertEqual(answer.headers[.contentType], "text/event-stream; charset=utf-8")
            let blocks = answer.text.components(separatedBy: "\n\n").filter { !$0.isEmpty }
            XCTAssertEqual(blocks.first?.hasPrefix("event: show\ndata: "), true, answer.text)
            let first = try XCTUnwrap(blocks.first?.components(separatedBy: "data: ").last)
            let show = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(first.utf8)) as? [String: Any])
            XCTAssertEqual(show["page"] as? Int, 2)
            XCTAssertEqual(show["title"] as? String, "Stream")
            XCTAssertNil(show["code"], "a follower's stream carries no presenter field")
            XCTAssertEqual(blocks.last, "event: ended\ndata: {}", answer.text)
            XCTAssertEqual(feed.followerCount, 0, "the ended stream let its follower go")
        }
    }

    func testReactionChoicesCanBeSwitchedOffAndTakePNGImages() async throws {
        try await RouterWorld.each { world, client, _ in
            let (secret, publicKey) = (world.demo.secretKey, world.demo.apiKey)
            let byDefault = try await client.call(.get, "/v1/reactions/choices", key: publicKey)
            XCTAssertEqual(byDefault.json["enabled"] as? Bool, true)
            XCTAssertEqual((byDefault.json["choices"] as? [[String: Any]])?.compactMap { $0["value"] as? String },
                           ["👏", "❤️", "😂", "😮", "🎉", "👍"])
            assertRefusal(try await client.call(.put, "/v1/reactions/choices", key: publicKey, json: ["enabled": false]), .forbidden)
            assertStatus(try await client.call(.put, "/v1/reactions/choices", key: secret, json: ["enabled": false, "emoji": ["👏", "🔥"]]), .ok)
            let off = try await client.call(.get, "/v1/reactions/choices", key: publicKey)
            XCTAssertEqual(off.json["enabled"] as? Bool, false)
            XCTAssertEqual((off.json["choices"] as? [[String: Any]])?.compactMap { $0["value"] as? String }, ["👏", "🔥"])
            let logo = Array(Data(base64Encoded: "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==")!)
            assertStatus(try await client.call(.put, "/v1/reactions/choices", key: secret,
                                               json: ["enabled": true, "emoji": ["👏"], "images": [["name": "logo", "png": base64(logo)]]]), .ok)
            let on = try await client.call(.get, "/v1/reactions/choices", key: publicKey)
            let image = (on.json["choices"] as? [[String: Any]])?.last
            XCTAssertEqual(image?["kind"] as? String, "image")
            XCTAssertEqual(image?["url"] as? String, "/v1/reactions/images/logo")
            let png = try await client.call(.get, "/v1/reactions/images/logo", key: publicKey)
            XCTAssertEqual(png.headers[.contentType], "image/png")
            XCTAssertEqual(png.bytes, logo)
            assertRefusal(try await client.call(.get, "/v1/reactions/images/nothing", key: publicKey), .notFound)
            assertRefusal(try await client.call(.put, "/v1/reactions/choices", key: secret,
                                                json: ["enabled": true, "emoji": ["👏"], "images": [["name": "photo", "png": base64(Array("\u{ff} a JPEG".utf8))]]]),
                          .badRequest, field: "images[0].png")
            let unchanged = try await client.call(.get, "/v1/reactions/choices", key: publicKey)
            XCTAssertEqual(unchanged.text, on.text, "the refused choices changed nothing")
        }
    }

    /// The presenter turns joining by the code off and on, caps its share of the followers and
    /// draws a new code; the refusals change nothing. (The clock stands still: a code also
    /// changes every minute.)
    func testThePresenterSetsHowPhonesJoinByTheCode() async throws {
        let clock = PresentRouterTests.ManualClock()
        try await RouterWorld.each(clock: clock.clock) { world, client, _ in
            let (secret, publicKey) = (world.demo.secretKey, world.demo.apiKey)
            let (_, id) = try await Self.eidBeacon(world, client)
            let deck = try await Self.storedDeck(world, pages: 2)
            let path = "/v1/shows/\(id)/code"
            assertRefusal(try await client.call(.put, path, key: secret, json: ["joining": false]), .notFound)   // no show yet
            let started = try await client.call(.put, "/v1/shows/\(id)", key: secret, json: ["deck": deck, "page": 1])
            XCTAssertEqual(started.json["codeJoining"] as? Bool, true, started.text)
            XCTAssertEqual(started.json["codeMaxShare"] as? Int, 50)
            let firstCode = try XCTUnwrap(started.json["code"] as? String)

            let off = try await client.call(.put, path, key: secret, json: ["joining": false, "maxShare": 25])
            XCTAssertEqual(off.status, .ok, off.text)
            XCTAssertEqual(off.json["codeJoining"] as? Bool, false)
            XCTAssertEqual(off.json["codeMaxShare"] as? Int, 25)
            XCTAssertNil(off.json["code"], "joining off: no code to show")
            XCTAssertNil(off.json["joinPath"])

            // Joining off took a new salt (it revokes the passes given), so on again is a new code.
            let on = try await client.call(.put, path, key: secret, json: ["joining": true])
            let onCode = try XCTUnwrap(on.json["code"] as? String, on.text)
            XCTAssertNotEqual(onCode, firstCode, "joining off and on again: a new code")
            XCTAssertEqual(on.json["codeMaxShare"] as? Int, 25, "what was not given stays")
            let shareOnly = try await client.call(.put, path, key: secret, json: ["maxShare": 25])
            XCTAssertEqual(shareOnly.json["code"] as? String, onCode, "no new code unless asked")
            let rotated = try await client.call(.put, path, key: secret, json: ["rotate": true])
            XCTAssertEqual(rotated.json["codeJoining"] as? Bool, true)
            let newCode = try XCTUnwrap(rotated.json["code"] as? String)
            XCTAssertNotEqual(newCode, onCode, "a new salt: a new code")

            for share in [-1, 101] {
                assertRefusal(try await client.call(.put, path, key: secret, json: ["maxShare": share]), .badRequest, field: "maxShare")
            }
            assertRefusal(try await client.call(.put, path, key: secret, json: ["joining": "yes"]), .badRequest, field: "joining")
            assertRefusal(try await client.call(.put, path, key: publicKey, json: ["joining": false]), .forbidden)
            assertRefusal(try await client.call(.put, path, json: ["joining": false]), .unauthorized)
            let unchanged = try await client.call(.get, "/v1/shows/\(id)", key: secret)
            XCTAssertEqual(unchanged.json["codeJoining"] as? Bool, true, "the refusals changed nothing")
            XCTAssertEqual(unchanged.json["codeMaxShare"] as? Int, 25)
            XCTAssertEqual(unchanged.json["code"] as? String, newCode)
        }
    }

    func testTheJoinQRCodeIsSVGForTheSecretKeyOnly() async throws {
        try await RouterWorld.each { world, client, _ in
            let (_, id) = try await Self.eidBeacon(world, client)
            let deck = try await Self.storedDeck(world, pages: 2)
            assertStatus(try await client.call(.put, "/v1/shows/\(id)", key: world.demo.secretKey, json: ["deck": deck, "page": 1]), .ok)
            let path = "/v1/shows/\(id)/qr.svg"
            let qr = try await client.call(.get, path, key: world.demo.secretKey)
            XCTAssertEqual(qr.status, .ok, qr.text)
            XCTAssertTrue(qr.headers[.contentType]?.hasPrefix("image/svg+xml") ?? false)
            XCTAssertTrue(qr.text.contains("<path"), qr.text)
            let based = try await client.call(.get, path + "?base=https%3A%2F%2Fpresent.example.org", key: world.demo.secretKey)
            XCTAssertEqual(based.status, .ok)
            XCTAssertNotEqual(based.bytes, qr.bytes, "a different join address is a different code")
            assertRefusal(try await client.call(.get, path, key: world.demo.apiKey), .forbidden)
            assertRefusal(try await client.call(.get, path), .unauthorized)
            assertRefusal(try await client.call(.get, path + "?base=ftp%3A%2F%2Fx", key: world.demo.secretKey), .badRequest, field: "base")
        }
    }
}
