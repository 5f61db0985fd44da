import Foundation
import XCTest
@testable import NearcastApp
import NearcastCore
import NearcastDrivers
import NearcastNearby

/// The box's hub client (``HubLink`` driving the ``HubSync`` state machine) over an in-memory
/// hub: registration, attachments converging from any starting set, re-registration, backoff, a
/// changed service key, a refused message, and no state-directory writes per call.
final class HubLinkTests: XCTestCase {
    private var directory: URL!
    private var state: StateDirectory!
    private var hub: InMemoryHub!
    private var identity: InProcessIdentity!
    private var link: HubLink!
    private var logged: [String] = []
    private var identities: [HubIdentity?] = []
    private var now = 0.0
    private var revision = 0
    private var published: [(namespacedType: String, bytes: [UInt8])] = []
    private let settings = try! HubSettings(url: "http://hub.test", key: "ncsec_test", certificateAuthority: nil)

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("nearcast-hublink-\(UUID().uuidString)")
        state = try StateDirectory(path: directory.path)
        hub = InMemoryHub()
        identity = InProcessIdentity()
        logged = []
        identities = []
        now = 0
    }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: directory) }

    private func makeLink(exponent: Int = 10) {
        link = HubLink(settings: settings, state: state, exponent: exponent, description: "nearcast test",
                       transport: hub, identity: identity, log: { self.logged.append($0) })
    }

    private func publish(_ messages: [(String, String)]) {
        published = messages.map { (namespacedType: $0.0, bytes: Array($0.1.utf8)) }
        revision += 1
    }

    /// Services the link as the daemon's loop does (every 20 ms of its clock) for `seconds`.
    private func run(seconds: Double) {
        let end = now + seconds
        while now < end {
            link.service(now: now, beaconTime: UInt32(1000 + now), revision: revision, contents: { self.published },
                         heartbeat: { HubHeartbeat(status: "broadcasting", problems: [], version: "test") },
                         identityChanged: { self.identities.append($0) }, log: { self.logged.append($0) })
            now += 0.02
        }
    }

    /// Services the link until the hub holds what is published (fails after `limit` seconds).
    private func runUntilInSync(limit: Double = 60, file: StaticString = #filePath, line: UInt = #line) {
        let end = now + limit
        while now < end && !link.isInSync(revision: revision) { run(seconds: 0.02) }
        XCTAssertTrue(link.isInSync(revision: revision), "not in sync after \(limit) s; log: \(logged)", file: file, line: line)
    }

    private var beaconName: String { link.record?.beaconName ?? "" }

    private func hubMessages() -> [String] {
        hub.attachments(of: beaconName).map { "\($0.type)=\(String(decoding: Base64.decode($0.data) ?? [], as: UTF8.self))" }.sorted()
    }

    func testTheFirstContactDerivesTheIdentityRegistersAttachesAndSendsAHeartbeat() throws {
        makeLink()
        publish([("demo/slide", "Slide 1")])
        XCTAssertEqual(link.phase, .contacting)
        runUntilInSync()
        XCTAssertEqual(hub.requests.map { "\($0.method) \($0.path)" }, [
            "GET /v1beta1/eidparams", "POST /v1beta1/beacons:register",
            "GET /v1beta1/\(beaconName)/attachments", "POST /v1beta1/\(beaconName)/attachments",
            "POST /v1beta1/\(beaconName)/heartbeat",
        ], "the heartbeat starts as soon as the messages are there")
        XCTAssertEqual(link.phase, .ready)
        XCTAssertEqual(hubMessages(), ["demo/slide=Slide 1"])
        run(seconds: 1)
        XCTAssertEqual(hub.heartbeats, 1, "one heartbeat once the messages are there")
        XCTAssertEqual(hub.requests.last?.path, "/v1beta1/\(beaconName)/heartbeat")
        let beat = try XCTUnwrap(hub.requests.last?.body.flatMap { JSON5Node.parse(json: $0) })
        XCTAssertEqual(beat["status"]?.string, "broadcasting")
        XCTAssertEqual(beat["version"]?.string, "test")
        // The identity went to the publications, and the registration's EID is the one it makes.
        let record = try XCTUnwrap(HubRecord.load(from: state, hub: settings.url, log: { _ in }))
        XCTAssertEqual(record, link.record)
        XCTAssertEqual(record.managedTypes, ["demo/slide"])
        XCTAssertEqual(identities, [HubIdentity(identityKey: record.identityKey, exponent: 10)])
        let eid = try EphemeralIdentifier.compute(identityKey: record.identityKey, exponent: 10, time: 1000, cipher: OpenSSLAES128())
        XCTAssertEqual(beaconName, "beacons/4!" + eid.hex, "registered with the EID of the beacon time at the registration")
        // The next heartbeat a minute later, not before.
        run(seconds: 58)
        XCTAssertEqual(hub.heartbeats, 1)
        run(seconds: 2)
        XCTAssertEqual(hub.heartbeats, 2)
    }

    /// From any mix on the hub (the box's messages, stale ones, duplicates, another box's or an
    /// operator's types), the hub ends up with exactly what is published, and the types the box
    /// does not manage are left alone.
    func testAttachmentsConvergeFromAnyStartingSet() throws {
        var random = SplitMix(seed: 20261125)
        for round in 0..<60 {
            try tearDownWithError()
            try setUpWithError()
            makeLink()
            publish([])
            runUntilInSync()
            let types = ["demo/slide", "demo/event", "demo/old"]
            // demo/old was the box's once (in its record); other/notes never was.
            var record = try XCTUnwrap(link.record)
            record.managedTypes = ["demo/old", "demo/slide"]
            try record.save(to: state)
            var seeded: [(type: String, data: String)] = []
            for _ in 0..<random.next(below: 6) {
                let type = random.next(below: 4) == 0 ? "other/notes" : types[random.next(below: 3)]
                seeded.append((type, Base64.encode(Array("text \(random.next(below: 3))".utf8))))
            }
            hub.seed(beacon: record.beaconName!, attachments: seeded)
            var wanted: [(String, String)] = []
            for type in ["demo/slide", "demo/event"] where random.next(below: 3) != 0 {
                wanted.append((type, "text \(random.next(below: 3))"))
            }
            makeLink()   // a restarted box reads its record back
            publish(wanted)
            runUntilInSync()
            // A type neither in the record nor published now was never the box's: left alone.
            let managed = Set(record.managedTypes + wanted.map(\.0))
            let unmanaged = seeded.filter { !managed.contains($0.type) }
                .map { "\($0.type)=\(String(decoding: Base64.decode($0.data)!, as: UTF8.self))" }
            XCTAssertEqual(hubMessages(), (wanted.map { "\($0.0)=\($0.1)" } + unmanaged).sorted(), "round \(round): seeded \(seeded)")
            XCTAssertEqual(link.record?.managedTypes, wanted.map(\.0), "round \(round)")
            // Converged means converged: another sync finds nothing to change.
            let before = hub.requests.count
            publish(wanted)
            runUntilInSync()
            XCTAssertEqual(hub.requests.count, before + 1, "round \(round): only the list, no deletes or adds")
        }
    }

    func testTheBoxRegistersAgainWhenTheOperatorDeletedItsBeacon() {
        makeLink()
        publish([("demo/slide", "Slide 1")])
        runUntilInSync()
        let name = beaconName
        hub.deleteBeacon(name)
        publish([("demo/slide", "Slide 2")])
        runUntilInSync()
        XCTAssertEqual(hub.registrations, 2)
        XCTAssertEqual(hubMessages(), ["demo/slide=Slide 2"])
        XCTAssertTrue(logged.contains { $0.contains("no longer registered") }, "\(logged)")
        XCTAssertEqual(identity.derivations, 1, "the same identity registers again")
    }

    func testAnUnreachableHubIsRetriedWithBackoffUpToFifteenSecondsAndAnswersAgain() {
        makeLink()
        hub.down = true
        publish([("demo/slide", "Slide 1")])
        run(seconds: 70)
        // Tries at 0, 1, 3, 7, 15, 30, 45, 60 (waits 1, 2, 4, 8, then 15 s each).
        // Each wait counts from the failed reply (collected the period after the try), and the
        // next try is made in the first period (20 ms) after it is due.
        let waits = zip(hub.requestTimes.dropFirst(), hub.requestTimes).map { $0 - $1 }
        XCTAssertEqual(waits.count, 7, "tries at \(hub.requestTimes)")
        for (wait, wanted) in zip(waits, [1.0, 2, 4, 8, 15, 15, 15]) {
            XCTAssertTrue((wanted...(wanted + 0.045)).contains(wait), "waited \(wait) s for \(wanted) s")
        }
        XCTAssertEqual(link.phase, .contacting)
        XCTAssertTrue(link.lastError?.contains("Connection refused") == true, link.lastError ?? "no error")
        XCTAssertEqual(logged.filter { $0.contains("retrying with backoff") }.count, 1, "the same failure is logged once")
        XCTAssertNotNil(link.retryAt)
        hub.down = false
        runUntilInSync(limit: 16)
        XCTAssertNil(link.lastError)
        XCTAssertTrue(logged.contains("hub: http://hub.test answers again"), "\(logged)")
    }

    func testAHubWithANewServiceKeyGetsANewIdentity() throws {
        makeLink()
        publish([("demo/slide", "Slide 1")])
        runUntilInSync()
        let first = try XCTUnwrap(link.record)
        // The hub's database is replaced: another key, no beacons.
        hub.deleteBeacon(first.beaconName!)
        hub.serviceKey = Array(repeating: 9, count: 32)
        publish([("demo/slide", "Slide 2")])
        runUntilInSync()
        let second = try XCTUnwrap(link.record)
        XCTAssertNotEqual(second.identityKey, first.identityKey)
        XCTAssertEqual(second.serviceKey, hub.serviceKey)
        XCTAssertEqual(identities, [HubIdentity(identityKey: first.identityKey, exponent: 10), nil,
                                    HubIdentity(identityKey: second.identityKey, exponent: 10)],
                       "the messages went off air and back with the new identity")
        XCTAssertEqual(try XCTUnwrap(HubRecord.load(from: state, hub: settings.url, log: { _ in })), second)
        XCTAssertEqual(hubMessages(), ["demo/slide=Slide 2"])
    }

    func testARefusedMessageIsLoggedAndTheOthersStillReachTheHub() {
        hub.refusedTypes = ["other/x"]
        makeLink()
        publish([("other/x", "not ours"), ("demo/slide", "Slide 1")])
        runUntilInSync()
        XCTAssertEqual(hubMessages(), ["demo/slide=Slide 1"])
        XCTAssertTrue(logged.contains { $0.hasPrefix("error: hub:") && $0.contains("refuses the message of type other/x") }, "\(logged)")
        let calls = hub.requests.count
        run(seconds: 30)
        XCTAssertEqual(hub.requests.count, calls, "the refused message is not retried for ever")
    }

    /// The SD card's budget: calls write nothing to the state directory; only a change to the
    /// record (a registration, a new managed type) does.
    func testHeartbeatsAndSyncsWriteNothingToTheStateDirectory() throws {
        makeLink()
        publish([("demo/slide", "Slide 1")])
        runUntilInSync()
        let file = state.file(HubRecord.fileName)
        let before = try FileManager.default.attributesOfItem(atPath: file)
        let listing = try FileManager.default.contentsOfDirectory(atPath: state.path).sorted()
        for slide in 2...5 {
            publish([("demo/slide", "Slide \(slide)")])
            runUntilInSync()
        }
        run(seconds: 600)
        XCTAssertGreaterThanOrEqual(hub.heartbeats, 10)
        let after = try FileManager.default.attributesOfItem(atPath: file)
        XCTAssertEqual(after[.modificationDate] as? Date, before[.modificationDate] as? Date, "hub.json not rewritten")
        XCTAssertEqual(after[.systemFileNumber] as? Int, before[.systemFileNumber] as? Int)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: state.path).sorted(), listing)
    }

    func testWithoutCurlTheLinkSaysSoAndDoesNothing() {
        link = HubLink(settings: settings, state: state, exponent: 10, description: "nearcast test",
                       transport: nil, identity: identity, log: { _ in })
        publish([("demo/slide", "Slide 1")])
        run(seconds: 5)
        XCTAssertEqual(link.lastError, CurlTransport.missingCurl)
        XCTAssertEqual(identity.derivations, 0)
    }

    /// curl's output is the body, a newline and the status; its errors are its first line.
    func testCurlRepliesAreRead() {
        XCTAssertEqual(CurlTransport.reply(status: .exited(0), output: Array("{\"a\":1}\n200".utf8), errors: [], overflowed: false),
                       .answered(status: 200, body: "{\"a\":1}"))
        XCTAssertEqual(CurlTransport.reply(status: .exited(0), output: Array("line\nline\n\n404".utf8), errors: [], overflowed: false),
                       .answered(status: 404, body: "line\nline\n"))
        XCTAssertEqual(CurlTransport.reply(status: .exited(0), output: Array("\n000".utf8), errors: [], overflowed: false),
                       .failed("no HTTP answer"))
        XCTAssertEqual(CurlTransport.reply(status: .exited(7), output: [],
                                           errors: Array("curl: (7) Failed to connect to h port 1: Connection refused\nadvice\n".utf8),
                                           overflowed: false),
                       .failed("(7) Failed to connect to h port 1: Connection refused"))
        XCTAssertEqual(CurlTransport.reply(status: .exited(0), output: [], errors: [], overflowed: true),
                       .failed("the answer is larger than 4 MiB"))
        let config = CurlTransport.config(for: HubRequest(method: "POST", path: "/v1beta1/x", body: "{\"t\":\"a\\\"b\"}"), settings: settings)
        XCTAssertTrue(config.contains("url = \"http://hub.test/v1beta1/x\"\n"), config)
        XCTAssertTrue(config.contains("header = \"X-Api-Key: ncsec_test\"\n"), config)
        XCTAssertTrue(config.contains(#"data-binary = "{\"t\":\"a\\\"b\"}""#), config)
    }
}

/// A small seeded generator (SplitMix64) for the convergence test's starting sets.
struct SplitMix {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next(below bound: Int) -> Int {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return Int((z ^ (z >> 31)) % UInt64(bound))
    }
}
