import Foundation
import HTTPTypes
import HummingbirdTesting
@testable import NearcastHub
import XCTest

/// The rest of what an attacker with the public key found open in the room's rules, each first
/// seen failing: the secret key taken from an address, a deck's pages seen with the public key
/// alone, a stream outliving the watch token it was opened with, the code's cap counting open
/// streams, ids counted when asked for rather than given, and a heard EID minting passes
/// without limit. Over memory and SQLite (`PresentRouterTests`' world).
extension PresentRouterTests {
    /// The watch token resolving the box's EID of now answers.
    static func watchToken(_ client: some TestClientProtocol, _ world: World) async throws -> String {
        let answer = try await client.call(.post, "/v1beta1/beaconinfo:getforobserved", key: world.keys.apiKey,
                                           json: ["observations": [["advertisedId": ["type": "EDDYSTONE_EID", "id": try heardNow(world).id]]]])
        let beacons = answer.json["beacons"] as? [[String: Any]]
        return try XCTUnwrap(beacons?.first?["watchToken"] as? String, answer.text)
    }

    func testTheSecretKeyIsNeverTakenFromAnAddress() async throws {
        try await eachWorld { world, client in
            let beacon = world.beaconName.replacingOccurrences(of: "beacons/", with: "")
            let secret = world.keys.secretKey
            for path in ["/v1/shows/\(beacon)", "/v1/decks", "/v1/schedule", "/v1/shows/\(beacon)/events"] {
                let refused = try await client.call(.get, "\(path)?key=\(secret)")
                assertRefusal(refused, .forbidden, field: "key")
                XCTAssertTrue(refused.text.contains("X-Api-Key header"), refused.text)
            }
            // Nothing was done with it: a show's end asked for in an address leaves the show running.
            assertRefusal(try await client.call(.delete, "/v1/shows/\(beacon)?key=\(secret)"), .forbidden, field: "key")
            assertStatus(try await client.call(.get, "/v1/shows/\(beacon)", key: secret), .ok)
            // The public key still rides in an address (an event stream and an image cannot send a header).
            let token = try await Self.watchToken(client, world)
            assertStatus(try await client.call(.get, "/v1/shows/\(beacon)?key=\(world.keys.apiKey)&token=\(token)"), .ok)
        }
    }

    func testADecksPagesNeedAPassOrTheWatchTokenOfTheBoxShowingIt() async throws {
        try await eachWorld { world, client in
            let decks = try await world.hub.repositories.decks.list(project: "demo")
            let deck = try XCTUnwrap(decks.first).deckID
            let page = "/v1/decks/\(deck)/pages/1"
            // The public key and a deck id alone (both on every phone's screen): refused.
            assertRefusal(try await client.call(.get, page, key: world.keys.apiKey), .forbidden, field: "token")
            let token = try await Self.watchToken(client, world)
            assertStatus(try await client.call(.get, "\(page)?token=\(token)", key: world.keys.apiKey), .ok)
            assertRefusal(try await client.call(.get, "\(page)?token=\(token)x", key: world.keys.apiKey), .forbidden, field: "token")
            let pass = try await Self.pass(client, world)
            assertStatus(try await client.call(.get, page, key: pass), .ok)
            assertStatus(try await client.call(.get, page, key: world.keys.secretKey), .ok)

            // Another deck on the show: the grants read the show's deck, not the one before.
            let image = DeckRenderer.Page(full: [0xFF, 0xD8], thumbnail: [0xFF, 0xD8])
            let other = try await world.hub.repositories.decks.add(project: "demo", title: "other", sourceBytes: 1,
                                                                   rendered: .init(pages: [image], width: 16, height: 9))
            let beacon = world.beaconName.replacingOccurrences(of: "beacons/", with: "")
            assertStatus(try await client.call(.put, "/v1/shows/\(beacon)", key: world.keys.secretKey, json: ["deck": other.deckID, "page": 1]), .ok)
            let refused = try await client.call(.get, "\(page)?token=\(token)", key: world.keys.apiKey)
            assertRefusal(refused, .forbidden)
            XCTAssertTrue(refused.text.contains("not on the show"), refused.text)
            assertRefusal(try await client.call(.get, page, key: pass), .forbidden)
            assertStatus(try await client.call(.get, "/v1/decks/\(other.deckID)/pages/1?token=\(token)", key: world.keys.apiKey), .ok)
            // A token past its ten minutes opens nothing.
            world.clock.advance(seconds: Presence.passMilliseconds / 1000)
            assertRefusal(try await client.call(.get, "/v1/decks/\(other.deckID)/pages/1?token=\(token)", key: world.keys.apiKey),
                          .forbidden, field: "token")
        }
    }

    /// A show stream opened with the public key and a watch token ends, with `event: revoked`,
    /// when the token expires.
    func testAShowStreamEndsWithTheWatchTokenBehindIt() async throws {
        try await eachWorld { world, client in
            let beacon = world.beaconName.replacingOccurrences(of: "beacons/", with: "")
            let feed = world.hub.present.showFeed
            let token = try await Self.watchToken(client, world)
            async let stream = client.call(.get, "/v1/shows/\(beacon)/events?token=\(token)", key: world.keys.apiKey)
            for _ in 0..<500 where feed.followerCount == 0 { try await Task.sleep(for: .milliseconds(10)) }
            XCTAssertEqual(feed.followerCount, 1, "the follower's stream never opened")
            feed.keepAlive(nowMs: world.clock.clock.nowMs())
            XCTAssertEqual(feed.followerCount, 1, "a token still valid keeps its stream")
            world.clock.advance(seconds: Presence.passMilliseconds / 1000)
            feed.keepAlive(nowMs: world.clock.clock.nowMs())
            let answer = try await stream
            let blocks = answer.text.components(separatedBy: "\n\n").filter { !$0.isEmpty }
            XCTAssertEqual(blocks.first?.hasPrefix("event: show\n"), true, answer.text)
            XCTAssertEqual(blocks.last?.hasPrefix("event: revoked\ndata: "), true, answer.text)
            XCTAssertTrue(answer.text.contains("watch token has expired"), answer.text)
            XCTAssertEqual(feed.followerCount, 0)
        }
    }

    /// The cap on joining by code is a share of the phones that heard the box and earned an id:
    /// streams held open with one pass add nothing to it.
    func testTheCodesCapCountsPhonesThatEarnedAnIDNotStreams() async throws {
        try await eachWorld { world, client in
            let beacon = world.beaconName.replacingOccurrences(of: "beacons/", with: "")
            let feed = world.hub.present.showFeed
            let pass = try await Self.pass(client, world)   // 1 of the floor's 5
            // Twenty streams with that one pass.
            let streams = (0..<20).map { _ in
                Task { try await client.call(.get, "/v1/shows/\(beacon)/events", key: pass) }
            }
            for _ in 0..<500 where feed.followerCount < 20 { try await Task.sleep(for: .milliseconds(10)) }
            XCTAssertEqual(feed.followerCount, 20)
            for _ in 0..<4 { _ = try await Self.pass(client, world) }
            let capped = try await Self.passFromCode(client, world)
            assertRefusal(capped, .forbidden, field: "code")
            XCTAssertTrue(capped.text.contains("(5 in 10 minutes"), capped.text)

            // Ten phones hear the box and earn ids: at 50 %, five more may join by code.
            for _ in 0..<10 {
                let (status, id) = try await Self.phoneID(client, world, observed: try Self.heardNow(world))
                XCTAssertEqual(status, .ok, id)
            }
            for _ in 0..<5 { assertStatus(try await Self.passFromCode(client, world), .ok) }
            assertRefusal(try await Self.passFromCode(client, world), .forbidden, field: "code")
            // Ids earned by sight do not raise the cap that lets phones in by sight.
            for _ in 0..<4 {
                let (status, id) = try await Self.phoneID(client, world, observed: AdvertisedID(type: "NEARCAST_PASS", id: pass))
                XCTAssertEqual(status, .ok, id)
            }
            assertRefusal(try await Self.passFromCode(client, world), .forbidden, field: "code")
            assertStatus(try await client.call(.put, "/v1/shows/\(beacon)/code", key: world.keys.secretKey, json: ["rotate": true]), .ok)
            for stream in streams { _ = try await stream.value }
        }
    }

    /// Ids a minute per address count the ids given: attempts that earn none (unsolved, another
    /// project's challenge) spend nothing, and past the budget an id is refused with when to
    /// come back. On a socket (the limits key on the address).
    func testIssuancePerAddressCountsIDsGivenNotAttempts() async throws {
        try await eachWorld(live: true, limits: { $0.guessing.phoneIdsPerMinutePerAddress = 3 }) { world, client in
            for _ in 0..<10 {
                let asked = try await client.call(.get, "/v1/phones/challenge", key: world.keys.apiKey)
                let challenge = try XCTUnwrap(asked.json["challenge"] as? String, asked.text)
                var unsolved = 0
                while PhoneIDs.leadingZeroBits(challenge: challenge, nonce: String(unsolved)) >= Self.workBits { unsolved += 1 }
                let refused = try await client.call(.post, "/v1/phones", key: world.keys.apiKey,
                                                    json: ["challenge": challenge, "nonce": String(unsolved),
                                                           "observed": ["type": "EDDYSTONE_EID", "id": try Self.heardNow(world).id]])
                assertRefusal(refused, .forbidden, field: "nonce")
            }
            for _ in 0..<3 {
                let (status, text) = try await Self.phoneID(client, world, observed: try Self.heardNow(world))
                XCTAssertEqual(status, .ok, text)
            }
            let (status, text) = try await Self.phoneID(client, world, observed: try Self.heardNow(world))
            XCTAssertEqual(status, .tooManyRequests, text)
            XCTAssertTrue(text.contains("phone ids given to your address"), text)
        }
    }

    /// A heard EID earns passes at the address's rate, not without limit.
    func testAHeardEIDMintsPassesWithinTheAddresssBudget() async throws {
        try await eachWorld(live: true, limits: { $0.guessing.heardPassesPerMinutePerAddress = 5 }) { world, client in
            let heard: [String: Any] = ["observed": ["type": "EDDYSTONE_EID", "id": try Self.heardNow(world).id]]
            for _ in 0..<5 {
                let answer = try await client.call(.post, "/v1/presence", key: world.keys.apiKey, json: heard)
                XCTAssertNotNil(answer.json["pass"], answer.text)
            }
            let refused = try await client.call(.post, "/v1/presence", key: world.keys.apiKey, json: heard)
            assertRefusal(refused, .tooManyRequests)
            XCTAssertTrue(refused.text.contains("passes for a heard EID"), refused.text)
            XCTAssertNotNil(refused.headers[.retryAfter])
        }
    }
}
