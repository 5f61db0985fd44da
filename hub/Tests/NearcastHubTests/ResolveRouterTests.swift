import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
@testable import NearcastHub
import XCTest

/// `beaconinfo:getforobserved` through the router, in memory and over SQLite (the resolvers read
/// either's beacons through `BeaconChanges`): UIDs and current EIDs resolve with their
/// attachments, unknown tokens are absent, each answer carries its beacon's watch token, and bad
/// observations are 400s naming the field.
final class ResolveRouterTests: XCTestCase {
    private static func register(_ client: any TestClientProtocol, key: String, _ body: [String: Any]) async throws -> String {
        let answer = try await client.call(.post, "/v1beta1/beacons:register", key: key, json: body)
        XCTAssertEqual(answer.status, .ok, answer.text)
        return answer.json["beaconName"] as? String ?? ""
    }

    private static func uid(_ bytes: [UInt8]) -> [String: Any] { ["advertisedId": ["type": "EDDYSTONE", "id": base64(bytes)]] }

    private static func attach(_ client: any TestClientProtocol, _ name: String, _ text: String, type: String = "demo/slide",
                               key: String) async throws {
        assertStatus(try await client.call(.post, "/v1beta1/\(name)/attachments", key: key,
                                           json: ["namespacedType": type, "data": base64(Array(text.utf8))]), .ok)
    }

    private static func observe(_ client: any TestClientProtocol, key: String, _ observations: [[String: Any]],
                                types: [String] = ["*"]) async throws -> [[String: Any]] {
        let answer = try await client.call(.post, "/v1beta1/beaconinfo:getforobserved", key: key,
                                           json: ["observations": observations, "namespacedTypes": types])
        XCTAssertEqual(answer.status, .ok, answer.text)
        return answer.json["beacons"] as? [[String: Any]] ?? []
    }

    private static func data(_ beacon: [String: Any]) -> [String] {
        ((beacon["attachments"] as? [[String: Any]]) ?? []).map {
            String(decoding: Data(base64Encoded: $0["data"] as? String ?? "") ?? Data(), as: UTF8.self)
        }.sorted()
    }

    func testUIDsAndCurrentEIDsResolveWithTheirAttachmentsAndUnknownTokensAreAbsent() async throws {
        try await RouterWorld.each { world, client, _ in
            let secret = world.demo.secretKey
            let door = try await Self.register(client, key: secret, Self.uid([1, 2, 3, 4, 5, 6, 7, 8]))
            try await Self.attach(client, door, "door", key: secret)
            let box = try TestBeacon(hub: world.hub)
            let boxName = try await Self.register(client, key: secret, try box.registration())
            try await Self.attach(client, boxName, "slide 7", key: secret)
            try await Self.attach(client, boxName, "event 42", type: "demo/event", key: secret)
            let stranger = try TestBeacon(hub: world.hub)
            let answered = try await Self.observe(client, key: world.demo.apiKey, [
                Self.uid([1, 2, 3, 4, 5, 6, 7, 8]), try box.observation(), try stranger.observation(), Self.uid([9, 9, 9, 9, 9, 9, 9, 9]),
            ])
            XCTAssertEqual(answered.map { $0["beaconName"] as? String }, [door, boxName], "unknown tokens are absent")
            XCTAssertEqual(answered.last.map(Self.data), ["event 42", "slide 7"])
            let tokens = answered.compactMap { $0["watchToken"] as? String }
            XCTAssertEqual(Set(tokens).count, 2, "each beacon has a watch token of its own")
            let events = try await Self.observe(client, key: world.demo.apiKey, [try box.observation()], types: ["demo/event"])
            XCTAssertEqual(events.first.map(Self.data), ["event 42"])
            let none = try await Self.observe(client, key: world.demo.apiKey, [try box.observation()], types: [])
            XCTAssertEqual(none.first.map(Self.data), [], "no namespacedTypes: no attachments, as Google's API")
            // Another project's public key resolves nothing of this one's.
            let theirs = try await Self.observe(client, key: world.other.apiKey, [Self.uid([1, 2, 3, 4, 5, 6, 7, 8]), try box.observation()])
            XCTAssertTrue(theirs.isEmpty)
        }
    }

    /// One view of the beacons serves the EID table and the directory: a change costs one
    /// synchronisation, however the resolve uses it, and no change costs none.
    func testOneSynchronisationPerChangeServesTheEIDTableAndTheDirectory() async throws {
        try await RouterWorld.each { world, client, _ in
            let secret = world.demo.secretKey, index = world.hub.resolver.index
            let box = try TestBeacon(hub: world.hub)
            let boxName = try await Self.register(client, key: secret, try box.registration())
            var answered = try await Self.observe(client, key: world.demo.apiKey, [try box.observation()])
            XCTAssertEqual(answered.first?["beaconName"] as? String, boxName)
            let before = await index.synchronisations
            for _ in 0..<5 { _ = try await Self.observe(client, key: world.demo.apiKey, [try box.observation()]) }
            let idle = await index.synchronisations
            XCTAssertEqual(idle, before, "nothing changed: no synchronisation")
            try await Self.attach(client, boxName, "slide 2", key: secret)
            answered = try await Self.observe(client, key: world.demo.apiKey, [try box.observation()])
            XCTAssertEqual(answered.first?["beaconName"] as? String, boxName, "the EID table")
            XCTAssertEqual(answered.first.map(Self.data), ["slide 2"], "the directory")
            let after = await index.synchronisations
            XCTAssertEqual(after, before + 1, "one synchronisation for both")
        }
    }

    func testAWatchWithThePublicKeyNeedsTheTokenOfItsOwnBeacon() async throws {
        try await RouterWorld.each { world, client, _ in
            let secret = world.demo.secretKey
            let door = try await Self.register(client, key: secret, Self.uid([1, 2, 3, 4]))
            let stage = try await Self.register(client, key: secret, Self.uid([10, 11]))
            let stageToken = try await Self.observe(client, key: world.demo.apiKey, [Self.uid([10, 11])]).first?["watchToken"] as? String ?? ""
            for (token, why) in [(nil, "no token"), ("nonsense", "garbage"), (stageToken, "the token of another beacon")] {
                let query = token.map { "&token=\($0)" } ?? ""
                let answer = try await client.call(.get, "/v1beta1/\(door)/attachments:watch?key=\(world.demo.apiKey)\(query)")
                assertRefusal(answer, .forbidden)
                XCTAssertEqual(answer.error["field"] as? String, "token", "\(why): \(answer.text)")
            }
            assertRefusal(try await client.call(.get, "/v1beta1/\(stage)/attachments:watch?key=\(stageToken)"), .forbidden)
            assertRefusal(try await client.call(.get, "/v1beta1/beacons/3!00ff/attachments:watch", key: world.demo.secretKey), .notFound)
        }
    }

    func testBadObservationsAre400NamingTheField() async throws {
        try await RouterWorld.each { world, client, _ in
            let one: [String: Any] = Self.uid([0x31])
            var stamped = one
            stamped["timestampMs"] = "soon"
            let cases: [([String: Any], String)] = [
                (["observations": [Any]()], "observations"),
                ([:], "observations"),
                (["observations": [["advertisedId": ["type": "EDDYSTONE_EID", "id": base64([0x31, 0x32, 0x33])]]]], "observations[0].advertisedId.id"),
                (["observations": [["advertisedId": ["type": "X", "id": base64(Array("12345678".utf8))]]]], "observations[0].advertisedId.type"),
                (["observations": [stamped]], "observations[0].timestampMs"),
                (["observations": [one], "namespacedTypes": ["bad"]], "namespacedTypes[0]"),
                (["observations": Array(repeating: one, count: 101)], "observations"),
            ]
            for (body, field) in cases {
                assertRefusal(try await client.call(.post, "/v1beta1/beaconinfo:getforobserved", key: world.demo.apiKey, json: body),
                              .badRequest, field: field)
            }
        }
    }
}
