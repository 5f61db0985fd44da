import Foundation
import HTTPTypes
import HummingbirdTesting
@testable import NearcastHub
import XCTest

/// What an attacker with the public key tried against the room's proof, each over memory and
/// SQLite (`PresentRouterTests`' world: an EID beacon, a deck and its show, a clock the test
/// sets): other spellings of one id or pass, two ids from one challenge, and passes that
/// outlive their show, their code or joining by code.
extension PresentRouterTests {
    /// Other texts that lenient base64 decodes to the same bytes: the unused low bits of each
    /// part's last digit set, and `=` padding. Empty when the part has neither.
    static func respellings(of text: String, prefix: String) -> [String] {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
        let parts = text.dropFirst(prefix.count).split(separator: ".").map(String.init)
        var spellings: [String] = []
        for (index, part) in parts.enumerated() where part.count % 4 != 0 {
            var other = parts
            // 2 digits over a 4-character group hold 1 byte (4 unused bits), 3 hold 2 (2 unused).
            let unused = part.count % 4 == 2 ? 4 : 2
            guard let last = part.last, let value = alphabet.firstIndex(of: last) else { continue }
            other[index] = String(part.dropLast()) + String(alphabet[value ^ ((1 << unused) - 1)])
            spellings.append(prefix + other.joined(separator: "."))
            other[index] = part + String(repeating: "=", count: 4 - part.count % 4)
            spellings.append(prefix + other.joined(separator: "."))
        }
        return spellings
    }

    /// A pass for the code the show's salt gives now (shown or not), or the refusal.
    static func passFromCode(_ client: some TestClientProtocol, _ world: World) async throws -> Answer {
        let found = try await world.hub.repositories.shows.liveBeacon(BeaconRef(project: "demo", beaconName: world.beaconName))
        var live = try XCTUnwrap(found)
        live.codeJoining = true   // what the code would be: a phone may type the last one it saw
        let code = try XCTUnwrap(world.hub.present.presence.codes(for: live, nowMs: world.clock.clock.nowMs()).first).code
        return try await client.call(.post, "/v1/presence", json: ["code": code])
    }

    /// The text of a pass for the show's code now.
    static func pass(_ client: some TestClientProtocol, _ world: World) async throws -> String {
        let answer = try await passFromCode(client, world)
        return try XCTUnwrap(answer.json["pass"] as? String, answer.text)
    }

    /// The EID the box sends now, by the test's clock.
    static func heardNow(_ world: World) throws -> AdvertisedID {
        try eid(world, beaconTime: world.beaconClock + UInt32((world.clock.clock.nowMs() - 1_800_000_000_000) / 1000))
    }

    func testAnIDOrAPassHasOneSpelling() async throws {
        try await eachWorld { world, client in
            let heard = try Self.eid(world, beaconTime: world.beaconClock)
            let (status, id) = try await Self.phoneID(client, world, observed: heard)
            XCTAssertEqual(status, .ok, id)
            let idSpellings = Self.respellings(of: id, prefix: PhoneIDs.idPrefix)
            XCTAssertGreaterThanOrEqual(idSpellings.count, 2, "the id's signature part has unused bits to set")
            for spelling in idSpellings {
                let (refused, text) = try await Self.react(client, world, observed: heard, phone: spelling)
                XCTAssertEqual(refused, .forbidden, "\(spelling): \(text)")
                XCTAssertTrue(text.contains("\"field\":\"phone\""), text)
            }
            let (accepted, text) = try await Self.react(client, world, observed: heard, phone: id)
            XCTAssertEqual(accepted, .accepted, text)

            let pass = try await Self.pass(client, world)
            let show = "/v1/shows/\(world.beaconName.replacingOccurrences(of: "beacons/", with: ""))"
            assertStatus(try await client.call(.get, show, key: pass), .ok)
            let passSpellings = Self.respellings(of: pass, prefix: Presence.passPrefix)
            XCTAssertGreaterThanOrEqual(passSpellings.count, 2)
            for spelling in passSpellings {
                assertRefusal(try await client.call(.get, show, key: spelling), .forbidden)
                let (refused, text) = try await Self.react(client, world, observed: AdvertisedID(type: "NEARCAST_PASS", id: spelling), phone: id)
                XCTAssertEqual(refused, .forbidden, "\(spelling): \(text)")
            }
        }
    }

    func testOneChallengeIsOnePhoneWhicheverProofItsIDNames() async throws {
        try await eachWorld { world, client in
            let heard = try Self.eid(world, beaconTime: world.beaconClock)
            let pass = try await Self.pass(client, world)
            let challengeAnswer = try await client.call(.get, "/v1/phones/challenge", key: world.keys.apiKey)
            let challenge = try XCTUnwrap(challengeAnswer.json["challenge"] as? String)
            let nonce = Self.solve(challenge, bits: Self.workBits)
            func trade(_ observed: AdvertisedID) async throws -> String {
                let answer = try await client.call(.post, "/v1/phones", key: world.keys.apiKey,
                                                   json: ["challenge": challenge, "nonce": nonce, "observed": ["type": observed.type, "id": observed.id]])
                XCTAssertEqual(answer.status, .ok, answer.text)
                return answer.json["phone"] as? String ?? ""
            }
            let byEar = try await trade(heard)
            let bySight = try await trade(AdvertisedID(type: "NEARCAST_PASS", id: pass))
            XCTAssertNotEqual(byEar, bySight, "the ids name their proofs")
            // Both are one phone: the first spends the burst, and the second is held to it too.
            for _ in 0..<12 {
                let (status, text) = try await Self.react(client, world, observed: heard, phone: byEar)
                XCTAssertEqual(status, .accepted, text)
            }
            let (status, text) = try await Self.react(client, world, observed: heard, phone: bySight)
            XCTAssertEqual(status, .tooManyRequests, "the same challenge's other id is the same phone: \(text)")
        }
    }

    func testAPassEndsWithANewCodeJoiningOffAndItsShow() async throws {
        try await eachWorld { world, client in
            let secret = world.keys.secretKey
            let beacon = world.beaconName.replacingOccurrences(of: "beacons/", with: "")
            let show = "/v1/shows/\(beacon)"
            func holds(_ pass: String) async throws -> Bool {
                let read = try await client.call(.get, show, key: pass)
                let (reacted, text) = try await Self.react(client, world, observed: AdvertisedID(type: "NEARCAST_PASS", id: pass))
                let earned = try await Self.phoneID(client, world, observed: AdvertisedID(type: "NEARCAST_PASS", id: pass))
                // All three agree: a pass that holds reads, reacts and earns ids; one revoked does none.
                XCTAssertEqual(read.status == .ok, reacted == .accepted, "read \(read.status), reacted \(reacted): \(text)")
                XCTAssertEqual(read.status == .ok, earned.0 == .ok, "read \(read.status), earned \(earned.1)")
                if read.status != .ok { assertRefusal(read, .forbidden) }
                return read.status == .ok
            }
            let seen = try await Self.pass(client, world)
            let renewed = try await client.call(.post, "/v1/presence", key: seen, json: ["observed": ["type": "EDDYSTONE_EID", "id": try Self.heardNow(world).id]])
            let heard = try XCTUnwrap(renewed.json["pass"] as? String, renewed.text)
            var holding = try await holds(seen)
            XCTAssertTrue(holding)
            holding = try await holds(heard)
            XCTAssertTrue(holding)

            // K: a new code revokes every pass given so far, at once.
            assertStatus(try await client.call(.put, "\(show)/code", key: secret, json: ["rotate": true]), .ok)
            holding = try await holds(seen)
            XCTAssertFalse(holding, "a pass from the old code after K")
            holding = try await holds(heard)
            XCTAssertFalse(holding, "a pass from hearing after K")
            let refused = try await client.call(.get, show, key: seen)
            XCTAssertTrue(refused.text.contains("changed the code"), refused.text)
            // A phone in the room renews: by hearing (the revoked pass still names its project) or the new code.
            let afterK = try await client.call(.post, "/v1/presence", key: seen, json: ["observed": ["type": "EDDYSTONE_EID", "id": try Self.heardNow(world).id]])
            let heardAgain = try XCTUnwrap(afterK.json["pass"] as? String, afterK.text)
            holding = try await holds(heardAgain)
            XCTAssertTrue(holding)
            let seenAgain = try await Self.pass(client, world)
            holding = try await holds(seenAgain)
            XCTAssertTrue(holding)

            // J off revokes them too, and J on again lets none of them back.
            assertStatus(try await client.call(.put, "\(show)/code", key: secret, json: ["joining": false]), .ok)
            holding = try await holds(seenAgain)
            XCTAssertFalse(holding, "a pass from the code after J off")
            assertRefusal(try await Self.passFromCode(client, world), .forbidden, field: "code")
            assertStatus(try await client.call(.put, "\(show)/code", key: secret, json: ["joining": true]), .ok)
            holding = try await holds(seenAgain)
            XCTAssertFalse(holding, "a pass from before J off after J on")
            holding = try await holds(heardAgain)
            XCTAssertFalse(holding, "a pass from hearing before J off")

            // The show's end: nothing is accepted for it, not even within the cache's second, and
            // a new show on the same box takes no pass of the old one's.
            let current = try await Self.pass(client, world)
            holding = try await holds(current)
            XCTAssertTrue(holding)
            let running = try await client.call(.get, show, key: secret)
            let deck = try XCTUnwrap(running.json["deck"] as? String)
            assertStatus(try await client.call(.delete, show, key: secret), .ok)
            let (afterEnd, text) = try await Self.react(client, world, observed: try Self.heardNow(world))
            XCTAssertEqual(afterEnd, .forbidden, "a reaction right after the show ended: \(text)")
            world.clock.advance(seconds: 1)
            assertStatus(try await client.call(.put, show, key: secret, json: ["deck": deck, "page": 1]), .ok)
            holding = try await holds(current)
            XCTAssertFalse(holding, "a pass of the show before")
            let ended = try await client.call(.get, show, key: current)
            XCTAssertTrue(ended.text.contains("show that has ended"), ended.text)
        }
    }

    /// A follower's stream opened with a pass ends, with `event: revoked`, when the pass is
    /// revoked (K) or expires; a stream opened with the secret key goes on.
    func testAStreamEndsWithThePassBehindIt() async throws {
        try await eachWorld { world, client in
            let beacon = world.beaconName.replacingOccurrences(of: "beacons/", with: "")
            let show = "/v1/shows/\(beacon)"
            let feed = world.hub.present.showFeed
            func follow(until change: () async throws -> Void) async throws -> Answer {
                let pass = try await Self.pass(client, world)
                async let stream = client.call(.get, "\(show)/events", key: pass)
                for _ in 0..<500 where feed.followerCount == 0 { try await Task.sleep(for: .milliseconds(10)) }
                XCTAssertEqual(feed.followerCount, 1, "the follower's stream never opened")
                try await change()
                let answer = try await stream
                for _ in 0..<500 where feed.followerCount != 0 { try await Task.sleep(for: .milliseconds(10)) }
                return answer
            }
            let afterK = try await follow {
                assertStatus(try await client.call(.put, "\(show)/code", key: world.keys.secretKey, json: ["rotate": true]), .ok)
            }
            XCTAssertEqual(afterK.status, .ok)
            let blocks = afterK.text.components(separatedBy: "\n\n").filter { !$0.isEmpty }
            XCTAssertEqual(blocks.first?.hasPrefix("event: show\n"), true, afterK.text)
            XCTAssertEqual(blocks.last?.hasPrefix("event: revoked\ndata: "), true, afterK.text)
            XCTAssertEqual(feed.followerCount, 0)

            let afterExpiry = try await follow {
                world.clock.advance(seconds: Presence.passMilliseconds / 1000)
                feed.keepAlive(nowMs: world.clock.clock.nowMs())
            }
            XCTAssertEqual(afterExpiry.text.components(separatedBy: "\n\n").filter { !$0.isEmpty }.last?.hasPrefix("event: revoked\ndata: "),
                           true, afterExpiry.text)
            XCTAssertEqual(feed.followerCount, 0)
        }
    }
}
