import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import NearcastCore
@testable import NearcastHub
import NIOConcurrencyHelpers
import XCTest

/// Reactions' proof of presence judged against a clock the test moves: the router, its
/// middleware and the stores over a real SQLite file, without a socket.
final class PresentRouterTests: XCTestCase {
    /// A hub clock the test sets.
    final class ManualClock: Sendable {
        let ms = NIOLockedValueBox<Int64>(1_800_000_000_000)
        var clock: HubClock { HubClock { [ms] in ms.withLockedValue { $0 } } }
        func advance(seconds: Int64) { ms.withLockedValue { $0 += seconds * 1000 } }
    }

    struct World {
        var hub: HubServices
        var clock: ManualClock
        var keys: CreatedProject
        var beaconName: String
        var identityKey: [UInt8]
        var beaconClock: UInt32
        var directory: URL
    }

    /// A project, an EID beacon (exponent 7) registered through the API, a stored deck and a show.
    private func world() async throws -> World {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("nearcast-present-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let database = try await HubDatabase.open(.sqlite(path: directory.appendingPathComponent("hub.sqlite").path),
                                                  logger: Logger(label: "test"))
        let clock = ManualClock()
        let hub = try await HubServices.make(database: database, logger: Logger(label: "test"), clock: clock.clock)
        let keys = try await hub.projects.create(name: "demo")
        let beacon = Curve25519.KeyAgreement.PrivateKey()
        let identityKey = try IdentityKeyDerivation.identityKey(serviceKey: hub.serviceKey.privateKey,
                                                                beaconPublicKey: beacon.publicKey.rawRepresentation)
        let beaconClock: UInt32 = 1_000_064   // the middle of a 128 s period
        let initial = try EphemeralIdentifier.compute(identityKey: identityKey, exponent: 7, time: beaconClock, cipher: SwiftCryptoAES128())
        let registration = RegisterBeaconRequest(
            advertisedId: AdvertisedID(type: "EDDYSTONE_EID", id: Base64Field.encode(initial.bytes)),
            ephemeralIdRegistration: EphemeralIDRegistration(
                beaconEcdhPublicKey: Base64Field.encode(beacon.publicKey.rawRepresentation),
                serviceEcdhPublicKey: Base64Field.encode(hub.serviceKey.publicKey), rotationPeriodExponent: 7,
                initialClockValue: Int64(beaconClock), initialEid: Base64Field.encode(initial.bytes)))
        let record = try BeaconRoutes.makeRecord(registration, project: "demo", hub: hub)
        _ = try await hub.beacons.register(record)
        let page = DeckRenderer.Page(full: [0xFF, 0xD8], thumbnail: [0xFF, 0xD8])
        let deck = try await hub.decks.add(project: "demo", title: "t", sourceBytes: 1,
                                           rendered: .init(pages: [page, page], width: 16, height: 9))
        _ = try await hub.shows.put(project: "demo", beaconName: record.beaconName, deckID: deck.deckID, page: 1)
        return World(hub: hub, clock: clock, keys: keys, beaconName: record.beaconName, identityKey: identityKey,
                     beaconClock: beaconClock, directory: directory)
    }

    private static func react(_ client: some TestClientProtocol, _ world: World, observed: AdvertisedID, phone: String = "phone-1",
                       reaction: String = "👏") async throws -> (HTTPResponse.Status, String) {
        let body = try JSONEncoder().encode(ReactionRequest(observed: observed, reaction: reaction, phone: phone))
        return try await client.execute(uri: "/v1/reactions", method: .post,
                                        headers: [.contentType: "application/json", HTTPField.Name("X-Api-Key")!: world.keys.apiKey],
                                        body: ByteBuffer(data: body)) { response in
            (response.status, String(buffer: response.body))
        }
    }

    private static func eid(_ world: World, beaconTime: UInt32) throws -> AdvertisedID {
        let eid = try EphemeralIdentifier.compute(identityKey: world.identityKey, exponent: 7, time: beaconTime, cipher: SwiftCryptoAES128())
        return AdvertisedID(type: "EDDYSTONE_EID", id: Base64Field.encode(eid.bytes))
    }

    func testOnlyTheCurrentOrPreviousRotationPeriodProvesPresence() async throws {
        let world = try await world()
        defer { try? FileManager.default.removeItem(at: world.directory) }
        let app = Application(router: HubServer.router(world.hub))
        try await app.test(.router) { client in
            let first = try Self.eid(world, beaconTime: world.beaconClock)
            var (status, text) = try await Self.react(client, world, observed: first)
            XCTAssertEqual(status, .accepted, text)
            // One period on, the EID heard then is the period before: still accepted.
            world.clock.advance(seconds: 128)
            (status, text) = try await Self.react(client, world, observed: first)
            XCTAssertEqual(status, .accepted, text)
            // Two periods on, it is not.
            world.clock.advance(seconds: 128)
            (status, text) = try await Self.react(client, world, observed: first)
            XCTAssertEqual(status, .forbidden, text)
            XCTAssertTrue(text.contains("2 rotation periods old"), text)
            // The beacon's EID now is.
            (status, text) = try await Self.react(client, world, observed: try Self.eid(world, beaconTime: world.beaconClock + 256))
            XCTAssertEqual(status, .accepted, text)
            // A made-up EID, a UID, a value not offered, a key no project has.
            (status, text) = try await Self.react(client, world, observed: AdvertisedID(type: "EDDYSTONE_EID", id: "AAAAAAAAAAA="))
            XCTAssertEqual(status, .forbidden, text)
            (status, text) = try await Self.react(client, world, observed: AdvertisedID(type: "EDDYSTONE", id: "AAAAAAAAAAA="))
            XCTAssertEqual(status, .badRequest, text)
            (status, text) = try await Self.react(client, world, observed: try Self.eid(world, beaconTime: world.beaconClock + 256), reaction: "🦖")
            XCTAssertEqual(status, .badRequest, text)
        }
        await world.hub.database.close()
    }

    func testAPassProvesPresenceUntilItExpires() async throws {
        let world = try await world()
        defer { try? FileManager.default.removeItem(at: world.directory) }
        let app = Application(router: HubServer.router(world.hub))
        try await app.test(.router) { client in
            let live = try await world.hub.shows.liveBeacon(project: "demo", beaconName: world.beaconName)
            let beacon = try XCTUnwrap(live)
            let code = try XCTUnwrap(try world.hub.presence.codes(for: beacon, nowMs: world.clock.clock.nowMs()).first).code
            let pass: PresenceJSON = try await client.execute(
                uri: "/v1/presence", method: .post, headers: [.contentType: "application/json"],
                body: ByteBuffer(string: #"{"code": "\#(code.lowercased())"}"#)) { response in
                XCTAssertEqual(response.status, .ok, String(buffer: response.body))
                let json = try JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [String: Any]
                return PresenceJSON(pass: json?["pass"] as? String ?? "", beaconName: json?["beaconName"] as? String ?? "",
                                    expiresTime: "", expiresMs: 0)
            }
            XCTAssertEqual(pass.beaconName, world.beaconName)
            var (status, text) = try await Self.react(client, world, observed: AdvertisedID(type: "NEARCAST_PASS", id: pass.pass))
            XCTAssertEqual(status, .accepted, text)
            // A code from three periods ago earns nothing.
            world.clock.advance(seconds: 3 * 128)
            try await client.execute(uri: "/v1/presence", method: .post, headers: [.contentType: "application/json"],
                                     body: ByteBuffer(string: #"{"code": "\#(code)"}"#)) { response in
                XCTAssertEqual(response.status, .forbidden)
            }
            world.clock.advance(seconds: 10 * 60)
            (status, text) = try await Self.react(client, world, observed: AdvertisedID(type: "NEARCAST_PASS", id: pass.pass))
            XCTAssertEqual(status, .forbidden, text)
        }
        await world.hub.database.close()
    }

    /// The public key sees a page only once the show has shown it; the secret key sees any.
    func testThePublicKeySeesOnlyPagesShown() async throws {
        let world = try await world()
        defer { try? FileManager.default.removeItem(at: world.directory) }
        let decks = try await world.hub.decks.list(project: "demo")
        let deck = try XCTUnwrap(decks.first).deckID
        let app = Application(router: HubServer.router(world.hub))
        try await app.test(.router) { client in
            func status(_ page: Int, key: String) async throws -> HTTPResponse.Status {
                try await client.execute(uri: "/v1/decks/\(deck)/pages/\(page)", method: .get,
                                         headers: [HTTPField.Name("X-Api-Key")!: key]) { $0.status }
            }
            let shown = try await status(1, key: world.keys.apiKey)
            XCTAssertEqual(shown, .ok)
            let ahead = try await status(2, key: world.keys.apiKey)
            XCTAssertEqual(ahead, .forbidden)
            let presenter = try await status(2, key: world.keys.secretKey)
            XCTAssertEqual(presenter, .ok)
            let missing = try await status(3, key: world.keys.secretKey)
            XCTAssertEqual(missing, .notFound)
        }
        await world.hub.database.close()
    }
}
