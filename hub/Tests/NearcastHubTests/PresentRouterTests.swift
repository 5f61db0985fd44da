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
/// middleware and the stores, in memory and over a real SQLite file, without a socket.
final class PresentRouterTests: XCTestCase {
    /// A hub clock the test sets.
    final class ManualClock: Sendable {
        let ms = NIOLockedValueBox<Int64>(1_800_000_000_000)
        var clock: HubClock { HubClock { [ms] in ms.withLockedValue { $0 } } }
        func advance(seconds: Int64) { ms.withLockedValue { $0 += seconds * 1000 } }
    }

    struct World: Sendable {
        var hub: HubServices
        var clock: ManualClock
        var keys: CreatedProject
        var beaconName: String
        var identityKey: [UInt8]
        var beaconClock: UInt32
        var directory: URL
        /// Phone ids the tests' phones were given, by the tests' names for them.
        var ids = NIOLockedValueBox<[String: String]>([:])
    }

    /// Runs `body` over a world in memory and one over SQLite (`RouterWorld.Storage`), each
    /// removed after: through the router (no address), or `live` on a socket (the client at
    /// 127.0.0.1, so the per-address limits apply), with `limits` changed as the test needs.
    func eachWorld(live: Bool = false, limits: @Sendable (inout HubLimits) -> Void = { _ in },
                   _ body: @Sendable (World, any TestClientProtocol) async throws -> Void) async throws {
        for storage in RouterWorld.Storage.allCases {
            let world = try await world(storage, limits: limits)
            defer { try? FileManager.default.removeItem(at: world.directory) }
            try await Application(router: buildRouter(world.hub)).test(live ? .live : .router) { client in try await body(world, client) }
            await world.hub.present.showFeed.stop()   // its reads done before the database closes
            await world.hub.backend.close()
        }
    }

    /// A project, an EID beacon (exponent 7) registered through the API, a stored deck and a show.
    private func world(_ storage: RouterWorld.Storage, limits change: (inout HubLimits) -> Void) async throws -> World {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("nearcast-present-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let clock = ManualClock()
        var limits = HubLimits()
        limits.guessing.phoneIdWorkBits = Self.workBits   // quick ids: the work is the pages' (and tested below)
        change(&limits)
        let hub = try await HubServices.make(backend: try await storage.backend(in: directory), logger: Logger(label: "test"), clock: clock.clock, limits: limits)
        let keys = try await hub.repositories.projects.create(name: "demo")
        let beacon = Curve25519.KeyAgreement.PrivateKey()
        let identityKey = try IdentityKeyDerivation.identityKey(serviceKey: hub.resolver.serviceKey.privateKey,
                                                                beaconPublicKey: beacon.publicKey.rawRepresentation)
        let beaconClock: UInt32 = 1_000_064   // the middle of a 128 s period
        let initial = try EphemeralIdentifier.compute(identityKey: identityKey, exponent: 7, time: beaconClock, cipher: SwiftCryptoAES128())
        let registration = RegisterBeaconRequest(
            advertisedId: AdvertisedID(type: "EDDYSTONE_EID", id: Base64Field.encode(initial.bytes)),
            ephemeralIdRegistration: EphemeralIDRegistration(
                beaconEcdhPublicKey: Base64Field.encode(beacon.publicKey.rawRepresentation),
                serviceEcdhPublicKey: Base64Field.encode(hub.resolver.serviceKey.publicKey), rotationPeriodExponent: 7,
                initialClockValue: Int64(beaconClock), initialEid: Base64Field.encode(initial.bytes)))
        let record = try BeaconController(beacons: hub.repositories.beacons, serviceKey: hub.resolver.serviceKey, clock: hub.clock, logger: hub.logger, keys: hub.keys).makeRecord(registration, project: "demo")
        _ = try await hub.repositories.beacons.register(record)
        let page = DeckRenderer.Page(full: [0xFF, 0xD8], thumbnail: [0xFF, 0xD8])
        let deck = try await hub.repositories.decks.add(project: "demo", title: "t", sourceBytes: 1,
                                           rendered: .init(pages: [page, page], width: 16, height: 9))
        _ = try await hub.repositories.shows.put(BeaconRef(project: "demo", beaconName: record.beaconName),  deckID: deck.deckID, page: 1)
        return World(hub: hub, clock: clock, keys: keys, beaconName: record.beaconName, identityKey: identityKey,
                     beaconClock: beaconClock, directory: directory)
    }

    static let workBits = 6

    /// A solution of `challenge` at `bits`, the way the page's worker finds one.
    static func solve(_ challenge: String, bits: Int) -> String {
        var nonce = 0
        while PhoneIDs.leadingZeroBits(challenge: challenge, nonce: String(nonce)) < bits { nonce += 1 }
        return String(nonce)
    }

    /// A phone id for the show, earned with `observed` as the proof: (status, id or error text).
    static func phoneID(_ client: some TestClientProtocol, _ world: World, observed: AdvertisedID,
                                bits: Int = workBits) async throws -> (HTTPResponse.Status, String) {
        let key: HTTPFields = [HTTPField.Name("X-Api-Key")!: world.keys.apiKey]
        let challenge: String = try await client.execute(uri: "/v1/phones/challenge", method: .get, headers: key) { response in
            let json = try JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [String: Any]
            return json?["challenge"] as? String ?? ""
        }
        let body = try JSONEncoder().encode(PhoneRequest(challenge: challenge, nonce: solve(challenge, bits: bits), observed: observed))
        var headers = key
        headers[.contentType] = "application/json"
        return try await client.execute(uri: "/v1/phones", method: .post, headers: headers,
                                        body: ByteBuffer(data: body)) { response in
            let text = String(buffer: response.body)
            let json = try? JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [String: Any]
            return (response.status, json?["phone"] as? String ?? text)
        }
    }

    static func react(_ client: some TestClientProtocol, _ world: World, observed: AdvertisedID, phone: String = "phone-1",
                       reaction: String = "👏", tap: String? = nil) async throws -> (HTTPResponse.Status, String) {
        // Each named phone gets its id once, with a proof that holds now.
        let id: String
        if phone.hasPrefix(PhoneIDs.idPrefix) {
            id = phone
        } else if let known = world.ids.withLockedValue({ $0[phone] }) {
            id = known
        } else {
            let now = try eid(world, beaconTime: UInt32(world.beaconClock) + UInt32((world.clock.clock.nowMs() - 1_800_000_000_000) / 1000))
            let (status, minted) = try await phoneID(client, world, observed: now)
            XCTAssertEqual(status, .ok, minted)
            world.ids.withLockedValue { $0[phone] = minted }
            id = minted
        }
        let body = try JSONEncoder().encode(ReactionRequest(observed: observed, reaction: reaction, phone: id))
        var headers: HTTPFields = [.contentType: "application/json", HTTPField.Name("X-Api-Key")!: world.keys.apiKey]
        if let tap { headers[HTTPField.Name("Idempotency-Key")!] = tap }
        return try await client.execute(uri: "/v1/reactions", method: .post, headers: headers, body: ByteBuffer(data: body)) { response in
            (response.status, String(buffer: response.body))
        }
    }

    static func eid(_ world: World, beaconTime: UInt32) throws -> AdvertisedID {
        let eid = try EphemeralIdentifier.compute(identityKey: world.identityKey, exponent: 7, time: beaconTime, cipher: SwiftCryptoAES128())
        return AdvertisedID(type: "EDDYSTONE_EID", id: Base64Field.encode(eid.bytes))
    }

    func testOnlyTheCurrentOrPreviousRotationPeriodProvesPresence() async throws {
        try await eachWorld { world, client in
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
    }

    func testAPassProvesPresenceUntilItExpires() async throws {
        try await eachWorld { world, client in
            let live = try await world.hub.repositories.shows.liveBeacon(BeaconRef(project: "demo", beaconName: world.beaconName))
            let beacon = try XCTUnwrap(live)
            let code = try XCTUnwrap(try world.hub.present.presence.codes(for: beacon, nowMs: world.clock.clock.nowMs()).first).code
            let pass: PresenceJSON = try await client.execute(
                uri: "/v1/presence", method: .post, headers: [.contentType: "application/json"],
                body: ByteBuffer(string: #"{"code": "\#(code.lowercased())"}"#)) { response in
                XCTAssertEqual(response.status, .ok, String(buffer: response.body))
                let json = try JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [String: Any]
                XCTAssertEqual(json?["proof"] as? String, "seen")
                return PresenceJSON(pass: json?["pass"] as? String ?? "", beaconName: json?["beaconName"] as? String ?? "",
                                    expiresTime: "", expiresMs: 0, proof: "seen")
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
    }

    /// The public key (with the watch token of the box showing the deck) sees a page only once
    /// the show has shown it; the secret key sees any.
    func testThePublicKeySeesOnlyPagesShown() async throws {
        try await eachWorld { world, client in
            let decks = try await world.hub.repositories.decks.list(project: "demo")
            let deck = try XCTUnwrap(decks.first).deckID
            let token = try await Self.watchToken(client, world)
            func status(_ page: Int, key: String) async throws -> HTTPResponse.Status {
                try await client.execute(uri: "/v1/decks/\(deck)/pages/\(page)?token=\(token)", method: .get,
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
    }
    /// `POST /v1/presence` with a heard EID: what keeps a phone that joined by the QR code (it holds
    /// only a pass) in the show while it hears the box. A pass alone never buys another.
    func testHearingTheBoxRenewsAPassAndAPassAloneDoesNot() async throws {
        try await eachWorld { world, client in
            func presence(_ body: String, key: String?) async throws -> (HTTPResponse.Status, [String: Any]) {
                var headers: HTTPFields = [.contentType: "application/json"]
                if let key { headers[HTTPField.Name("X-Api-Key")!] = key }
                return try await client.execute(uri: "/v1/presence", method: .post, headers: headers,
                                                body: ByteBuffer(string: body)) { response in
                    (response.status, (try? JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [String: Any]) ?? [:])
                }
            }
            let live = try await world.hub.repositories.shows.liveBeacon(BeaconRef(project: "demo", beaconName: world.beaconName))
            let code = try XCTUnwrap(try world.hub.present.presence.codes(for: try XCTUnwrap(live), nowMs: world.clock.clock.nowMs()).first).code
            let (joined, seen) = try await presence(#"{"code": "\#(code)"}"#, key: nil)
            XCTAssertEqual(joined, .ok)
            let pass = try XCTUnwrap(seen["pass"] as? String)
            let firstExpiry = try XCTUnwrap(seen["expiresMs"] as? Int64)

            // Eight minutes on, the phone hears the box's EID of now: a fresh pass, proof "heard".
            world.clock.advance(seconds: 8 * 60)
            let heardNow = try Self.eid(world, beaconTime: world.beaconClock + 8 * 60)
            let observed = #"{"observed": {"type": "EDDYSTONE_EID", "id": "\#(heardNow.id)"}}"#
            let (renewed, answer) = try await presence(observed, key: pass)
            XCTAssertEqual(renewed, .ok, "\(answer)")
            XCTAssertEqual(answer["proof"] as? String, "heard")
            XCTAssertEqual(answer["beaconName"] as? String, world.beaconName)
            let renewedPass = try XCTUnwrap(answer["pass"] as? String)
            XCTAssertGreaterThan(try XCTUnwrap(answer["expiresMs"] as? Int64), firstExpiry + 7 * 60_000)
            // The public key may trade a heard EID too (it could react with it anyway).
            let (byPublic, _) = try await presence(observed, key: world.keys.apiKey)
            XCTAssertEqual(byPublic, .ok)

            // Refused: a pass as the proof, an EID three periods old, no key at all.
            let (passForPass, refusal) = try await presence(#"{"observed": {"type": "NEARCAST_PASS", "id": "\#(pass)"}}"#, key: pass)
            XCTAssertEqual(passForPass, .badRequest, "\(refusal)")
            let stale = try Self.eid(world, beaconTime: world.beaconClock)
            world.clock.advance(seconds: 3 * 128)
            let (old, _) = try await presence(#"{"observed": {"type": "EDDYSTONE_EID", "id": "\#(stale.id)"}}"#, key: renewedPass)
            XCTAssertEqual(old, .forbidden)
            let (keyless, _) = try await presence(observed, key: nil)
            XCTAssertEqual(keyless, .unauthorized)
            let (both, _) = try await presence(#"{"code": "\#(code)", "observed": {"type": "EDDYSTONE_EID", "id": "\#(heardNow.id)"}}"#, key: pass)
            XCTAssertEqual(both, .badRequest)
            // The first pass has expired by now; the renewed one has not.
            world.clock.advance(seconds: 60)
            let (expired, _) = try await presence(observed, key: pass)
            XCTAssertEqual(expired, .forbidden)
        }
    }

    /// A page counts as shown once it stayed on the screen for 2 s: End then Home does not hand the
    /// audience the last page, nor do the pages a thumbnail jump passed.
    func testAPageIsShownToTheAudienceOnlyOnceItStayedOnTheScreen() async throws {
        try await eachWorld { world, client in
            let decks = try await world.hub.repositories.decks.list(project: "demo")
            let deck = try XCTUnwrap(decks.first).deckID
            let token = try await Self.watchToken(client, world)
            func publicSees(_ page: Int) async throws -> Bool {
                try await client.execute(uri: "/v1/decks/\(deck)/pages/\(page)?token=\(token)", method: .get,
                                         headers: [HTTPField.Name("X-Api-Key")!: world.keys.apiKey]) { $0.status == .ok }
            }
            func move(to page: Int) async throws -> Show {
                try await world.hub.repositories.shows.put(BeaconRef(project: "demo", beaconName: world.beaconName),  deckID: deck, page: page)
            }
            // Page 1 for a second, then 2 (End on a two-page deck), then back to 1 at once.
            world.clock.advance(seconds: 1)
            var show = try await move(to: 2)
            XCTAssertEqual(show.openPages.pages, [2], "1 was on the screen for 1 s only")
            show = try await move(to: 1)
            XCTAssertEqual(show.openPages.pages, [1])
            XCTAssertEqual(show.shownUpTo, 1)
            var sees2 = try await publicSees(2)
            XCTAssertFalse(sees2, "the page End flashed up is not handed out")
            // Two seconds on 1, then 2 for two seconds, then back: both shown.
            world.clock.advance(seconds: 2)
            show = try await move(to: 2)
            world.clock.advance(seconds: 2)
            show = try await move(to: 1)
            XCTAssertEqual(show.shown.pages, [1, 2])
            sees2 = try await publicSees(2)
            XCTAssertTrue(sees2)
            // The show's JSON says so to the audience.
            let json = try await world.hub.present.views.json(show, presenter: false)
            XCTAssertEqual(json.audience.shown, [1, 2])
            XCTAssertNil(json.presenter, "the audience is not told the presenter's hints")
        }
    }

    /// The presenter's page says why no phone follows: the box silent, not heard by any phone,
    /// heard but nobody following; and shows the box by the name it sent with its heartbeat.
    func testThePresenterIsToldWhyNoPhoneFollowsAndSeesTheBoxsName() async throws {
        try await eachWorld { world, client in
            func presenterView() async throws -> ShowJSON.Presenter {
                let show = try await world.hub.repositories.shows.get(BeaconRef(project: "demo", beaconName: world.beaconName))
                let json = try await world.hub.present.views.json(try XCTUnwrap(show), presenter: true)
                return try XCTUnwrap(json.presenter)
            }
            // The show has just started: its first phones are joining, nothing is wrong yet.
            var view = try await presenterView()
            XCTAssertEqual(view.reach?.state, "waiting", "a show 0 s old is not blamed on the room's sound")
            XCTAssertEqual(view.reach?.message, "Waiting for the first phones… 0 following.")
            world.clock.advance(seconds: 119)
            view = try await presenterView()
            XCTAssertEqual(view.reach?.state, "waiting", "still within the 2 minutes")
            world.clock.advance(seconds: 1)
            view = try await presenterView()
            XCTAssertEqual(view.reach?.state, "not-heard", "2 minutes in, nobody has resolved it")
            XCTAssertNil(view.box?.lastResolvedTime)
            XCTAssertTrue(view.reach?.message.contains("join with the code") == true, view.reach?.message ?? "")
            // With joining by the code turned off, the hint does not offer it.
            _ = try await world.hub.repositories.shows.setCode(BeaconRef(project: "demo", beaconName: world.beaconName),  joining: false, share: nil, rotate: false)
            view = try await presenterView()
            XCTAssertEqual(view.reach?.state, "not-heard")
            XCTAssertFalse(view.reach?.message.contains("join with the code") == true, view.reach?.message ?? "")
            XCTAssertTrue(view.reach?.message.contains("Joining with the code is off") == true, view.reach?.message ?? "")
            _ = try await world.hub.repositories.shows.setCode(BeaconRef(project: "demo", beaconName: world.beaconName),  joining: true, share: nil, rotate: false)

            // A phone resolves what it heard.
            let heard = try Self.eid(world, beaconTime: world.beaconClock)
            let body = #"{"observations": [{"advertisedId": {"type": "EDDYSTONE_EID", "id": "\#(heard.id)"}}]}"#
            try await client.execute(uri: "/v1beta1/beaconinfo:getforobserved", method: .post,
                                     headers: [.contentType: "application/json", HTTPField.Name("X-Api-Key")!: world.keys.apiKey],
                                     body: ByteBuffer(string: body)) { XCTAssertEqual($0.status, .ok) }
            view = try await presenterView()
            XCTAssertEqual(view.reach?.state, "no-followers")
            XCTAssertNotNil(view.box?.lastResolvedTime)

            // Four minutes without a heartbeat: the box is silent, whatever phones did before.
            world.clock.advance(seconds: 4 * 60)
            view = try await presenterView()
            XCTAssertEqual(view.reach?.state, "box-silent")
            XCTAssertTrue(view.reach?.message.contains("has not contacted the hub") == true, view.reach?.message ?? "")

            // Its heartbeat, with the name the venue gave it.
            let beacon = world.beaconName.replacingOccurrences(of: "beacons/", with: "")
            try await client.execute(uri: "/v1beta1/beacons/\(beacon)/heartbeat", method: .post,
                                     headers: [.contentType: "application/json", HTTPField.Name("X-Api-Key")!: world.keys.secretKey],
                                     body: ByteBuffer(string: #"{"status": "broadcasting", "name": "Room 101"}"#)) {
                XCTAssertEqual($0.status, .ok, String(buffer: $0.body))
            }
            view = try await presenterView()
            XCTAssertEqual(view.box?.name, "Room 101")
            XCTAssertEqual(view.reach?.state, "not-heard", "in touch again; the last phone heard it 4 minutes ago")
            let listed = try await world.hub.repositories.beacons.get(BeaconRef(project: "demo", beaconName: world.beaconName))
            XCTAssertEqual(listed.description, "Room 101", "the operators' list shows the name")
            // A name with a control character is refused, naming the field.
            try await client.execute(uri: "/v1beta1/beacons/\(beacon)/heartbeat", method: .post,
                                     headers: [.contentType: "application/json", HTTPField.Name("X-Api-Key")!: world.keys.secretKey],
                                     body: ByteBuffer(string: #"{"name": "Room\u0007"}"#)) {
                XCTAssertEqual($0.status, .badRequest)
                XCTAssertTrue(String(buffer: $0.body).contains("name"), String(buffer: $0.body))
            }
        }
    }

    /// While a show is young (2 minutes), the presenter is told the phones as they join, not that
    /// the box went unheard; a silent box is said at once; after the window, the reasons as before.
    func testBoxReachCountsTheFirstPhonesWhileTheShowIsYoung() {
        let start: Int64 = 1_000_000_000
        func reach(at secondsIn: Int64, followers: Int, seenSecondsAgo: Int64? = 30, resolvedSecondsAgo: Int64? = nil) -> BoxReach {
            let now = start + secondsIn * 1000
            return BoxReach.of(boxName: "Room 101", lastSeenMs: seenSecondsAgo.map { now - $0 * 1000 },
                               lastResolvedMs: resolvedSecondsAgo.map { now - $0 * 1000 }, followers: followers,
                               codeJoining: true, startedMs: start, nowMs: now)
        }
        XCTAssertEqual(reach(at: 10, followers: 0), BoxReach(state: .waiting, message: "Waiting for the first phones… 0 following."))
        XCTAssertEqual(reach(at: 30, followers: 3), BoxReach(state: .waiting, message: "Waiting for the first phones… 3 following."))
        XCTAssertEqual(reach(at: 30, followers: 0, resolvedSecondsAgo: 5).state, .waiting, "a phone opening the show as we speak")
        XCTAssertEqual(reach(at: 10, followers: 0, seenSecondsAgo: 200).state, .boxSilent, "a silent box is no young show's fault")
        XCTAssertEqual(reach(at: 10, followers: 0, seenSecondsAgo: nil).state, .boxSilent)
        XCTAssertEqual(reach(at: 10, followers: 2, seenSecondsAgo: nil).state, .waiting, "phones follow (by the code) all the same")
        XCTAssertEqual(reach(at: 120, followers: 3), BoxReach(state: .ok, message: "3 phones following."))
        XCTAssertEqual(reach(at: 120, followers: 0).state, .notHeard)
        XCTAssertEqual(reach(at: 120, followers: 0, resolvedSecondsAgo: 5).state, .noFollowers)
    }

    func testShownPagesKeepRangesAndReadTheirText() {
        var pages = ShownPages(text: "1-3,5")
        XCTAssertEqual(pages.pages, [1, 2, 3, 5])
        pages.insert(4)
        XCTAssertEqual(pages.text, "1-5")
        pages.insert(9)
        pages.insert(7)
        XCTAssertEqual(pages.text, "1-5,7,9")
        XCTAssertTrue(pages.contains(7))
        XCTAssertFalse(pages.contains(8))
        XCTAssertEqual(pages.highest, 9)
        XCTAssertEqual(ShownPages(text: "").pages, [])
        XCTAssertEqual(ShownPages(text: "x,3-1,0,2").pages, [2], "what does not parse is left out")
    }
    /// Resolving and reacting never move a beacon's clock: a reaction with a future EID of the
    /// beacon (as from someone holding its key, or a recording of a box whose clock ran ahead)
    /// is refused, and the real current EID is still accepted after it.
    func testAFutureEIDMovesNoClockAndTheCurrentOneStillProvesPresence() async throws {
        try await eachWorld { world, client in
            let before = try await world.hub.repositories.beacons.get(BeaconRef(project: "demo", beaconName: world.beaconName))
            let future = try Self.eid(world, beaconTime: world.beaconClock + 20 * 128)
            var (status, text) = try await Self.react(client, world, observed: future)
            XCTAssertEqual(status, .forbidden, text)
            XCTAssertTrue(text.contains("ahead"), text)
            let body = #"{"observations": [{"advertisedId": {"type": "EDDYSTONE_EID", "id": "\#(future.id)"}}]}"#
            try await client.execute(uri: "/v1beta1/beaconinfo:getforobserved", method: .post,
                                     headers: [.contentType: "application/json", HTTPField.Name("X-Api-Key")!: world.keys.apiKey],
                                     body: ByteBuffer(string: body)) { XCTAssertEqual($0.status, .ok) }
            let after = try await world.hub.repositories.beacons.get(BeaconRef(project: "demo", beaconName: world.beaconName))
            XCTAssertEqual(after.eidRegistration?.clock, before.eidRegistration?.clock, "hearing moved no clock")
            (status, text) = try await Self.react(client, world, observed: try Self.eid(world, beaconTime: world.beaconClock))
            XCTAssertEqual(status, .accepted, text)
            // A box a little fast (the next period, before its heartbeat says so) still proves presence.
            (status, text) = try await Self.react(client, world, observed: try Self.eid(world, beaconTime: world.beaconClock + 128),
                                                  phone: "phone-2")
            XCTAssertEqual(status, .accepted, text)
        }
    }
    /// A reaction counts as one phone's: only an id the hub gave (for work and a proof of
    /// presence) is taken, each with its own rate; an invented one is refused.
    func testOnlyPhoneIDsTheHubGaveReactEachAtItsOwnRate() async throws {
        try await eachWorld { world, client in
            let heard = try Self.eid(world, beaconTime: world.beaconClock)
            func react(as phone: String) async throws -> (HTTPResponse.Status, String) {
                try await Self.react(client, world, observed: heard, phone: phone)
            }
            // Invented ids: refused, naming the field; so is a forged one.
            for invented in ["phone-\(UUID())", PhoneIDs.idPrefix + "AAAA.BBBB"] {
                let (status, text) = try await react(as: invented.hasPrefix(PhoneIDs.idPrefix) ? invented : PhoneIDs.idPrefix + invented)
                XCTAssertEqual(status, .forbidden, text)
                XCTAssertTrue(text.contains("\"field\":\"phone\""), text)
            }
            // The work undone: refused.
            let key: HTTPFields = [HTTPField.Name("X-Api-Key")!: world.keys.apiKey, .contentType: "application/json"]
            let challenge: String = try await client.execute(uri: "/v1/phones/challenge", method: .get, headers: key) { response in
                let json = try JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [String: Any]
                XCTAssertEqual(json?["bits"] as? Int, Self.workBits)
                return json?["challenge"] as? String ?? ""
            }
            var unsolved = 0
            while PhoneIDs.leadingZeroBits(challenge: challenge, nonce: String(unsolved)) >= Self.workBits { unsolved += 1 }
            func trade(_ nonce: String) async throws -> (HTTPResponse.Status, String) {
                let body = try JSONEncoder().encode(PhoneRequest(challenge: challenge, nonce: nonce, observed: heard))
                return try await client.execute(uri: "/v1/phones", method: .post, headers: key, body: ByteBuffer(data: body)) { response in
                    let json = try? JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [String: Any]
                    return (response.status, json?["phone"] as? String ?? String(buffer: response.body))
                }
            }
            var (status, text) = try await trade(String(unsolved))
            XCTAssertEqual(status, .forbidden, text)
            XCTAssertTrue(text.contains("nonce"), text)
            // Solved: an id; the same solution again is the same id, not a second phone.
            let solution = Self.solve(challenge, bits: Self.workBits)
            let (first, id) = try await trade(solution)
            XCTAssertEqual(first, .ok, id)
            XCTAssertTrue(id.hasPrefix(PhoneIDs.idPrefix))
            let (again, same) = try await trade(solution)
            XCTAssertEqual(again, .ok)
            XCTAssertEqual(same, id, "one challenge, one id")
            // The id reacts, 12 at once and then at its own rate; another id is not held up by it.
            for _ in 0..<12 {
                (status, text) = try await react(as: id)
                XCTAssertEqual(status, .accepted, text)
            }
            (status, text) = try await react(as: id)
            XCTAssertEqual(status, .tooManyRequests, text)
            (status, text) = try await react(as: "another phone")
            XCTAssertEqual(status, .accepted, text)
            // A new show (ended and started again) takes none of the old show's ids.
            let decks = try await world.hub.repositories.decks.list(project: "demo")
            _ = try await world.hub.repositories.shows.delete(BeaconRef(project: "demo", beaconName: world.beaconName))
            world.clock.advance(seconds: 1)
            _ = try await world.hub.repositories.shows.put(BeaconRef(project: "demo", beaconName: world.beaconName),  deckID: try XCTUnwrap(decks.first).deckID, page: 1)
            world.hub.present.showCache.forget(project: "demo")
            (status, text) = try await react(as: "another phone")
            XCTAssertEqual(status, .forbidden, text)
            XCTAssertTrue(text.contains("another show"), text)
        }
    }

    /// A tap's key (`Idempotency-Key`) is taken quoted, as the draft writes it, or bare; anything
    /// else is a 400 naming the header, and nothing is counted (the storage's rules:
    /// `StorageRulesTests.testATapSentAgainWithItsKeyIsCountedOnceWhicheverBatchItComesIn`).
    func testATapsKeyIsALetterDigitOrPunctuationStringAndAnythingElseIsA400() async throws {
        try await eachWorld { world, client in
            let heard = try Self.eid(world, beaconTime: world.beaconClock)
            for good in ["\"8e03978e-40d5-43e8-bc93-6894a57f9324\"", "8e03978e-40d5-43e8-bc93-6894a57f9324", "a", String(repeating: "k", count: 64),
                         "tap:1/2+3=4~5_6.7"] {
                let (status, text) = try await Self.react(client, world, observed: heard, phone: "phone-\(good.count)", tap: good)
                XCTAssertEqual(status, .accepted, "\(good): \(text)")
            }
            for bad in ["", "\"\"", String(repeating: "k", count: 65), "two words", "quote\"inside", "é"] {
                let (status, text) = try await Self.react(client, world, observed: heard, tap: bad)
                XCTAssertEqual(status, .badRequest, "\(bad): \(text)")
                XCTAssertTrue(text.contains(#""field":"Idempotency-Key""#), text)
            }
        }
    }
}
