import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import NearcastCore
import Prometheus
@testable import NearcastHub
@testable import NearcastHubStorage
import XCTest

/// A hub for router tests: the whole router (`buildRouter`) over a `HubServices` whose storage
/// is in memory (`.memory`: `MemoryHubData`) or in a SQLite file (`.sqlite`), driven through
/// `app.test(.router)`. The API's contract holds for both.
struct RouterWorld: Sendable {
    enum Storage: String, CaseIterable, Sendable {
        case memory, sqlite

        /// Memory (no database at all), or an SQLite file in `directory`.
        func backend(in directory: URL) async throws -> any HubBackend {
            switch self {
            case .memory: return MemoryBackend()
            case .sqlite:
                return SQLBackend(database: try await HubDatabase.open(.sqlite(path: directory.appendingPathComponent("hub.sqlite").path),
                                                                       logger: Logger(label: "test")))
            }
        }
    }

    let hub: HubServices
    let demo: CreatedProject
    let other: CreatedProject
    let directory: URL

    static func make(_ storage: Storage, limits: HubLimits = .off, clock: HubClock = .system,
                     decks: DeckLimits = DeckLimits(), metrics: PrometheusCollectorRegistry? = nil) async throws -> RouterWorld {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("nearcast-router-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let hub = try await HubServices.make(backend: try await storage.backend(in: directory), metricsRegistry: metrics, logger: Logger(label: "test"),
                                             clock: clock, limits: limits, decks: decks)
        let demo = try await hub.repositories.projects.create(name: "demo")
        let other = try await hub.repositories.projects.create(name: "other")
        return RouterWorld(hub: hub, demo: demo, other: other, directory: directory)
    }

    /// Runs `body` against each storage's world with a test client, removing the world after.
    /// `metrics` is what `/metrics` emits; `listener`, the pages the hub serves.
    static func each(limits: HubLimits = .off, clock: HubClock = .system, decks: DeckLimits = DeckLimits(),
                     metrics: PrometheusCollectorRegistry? = nil, listener: ListenerFiles? = nil,
                     _ storages: [Storage] = Storage.allCases,
                     _ body: @Sendable (RouterWorld, any TestClientProtocol, Storage) async throws -> Void) async throws {
        for storage in storages {
            let world = try await make(storage, limits: limits, clock: clock, decks: decks, metrics: metrics)
            defer { try? FileManager.default.removeItem(at: world.directory) }
            let app = Application(router: buildRouter(world.hub, listener: listener))
            try await app.test(.router) { client in try await body(world, client, storage) }
            await world.hub.present.showFeed.stop()   // its reads done before the database closes
            await world.hub.backend.close()
        }
    }
}

/// An answer: its status, its body as JSON (an empty object when it is not) and as text.
struct Answer: Sendable {
    let status: HTTPResponse.Status
    let bytes: [UInt8]
    let headers: HTTPFields

    var text: String { String(decoding: bytes, as: UTF8.self) }

    var json: [String: Any] { (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any] ?? [:] }
    var error: [String: Any] { json["error"] as? [String: Any] ?? [:] }
}

extension TestClientProtocol {
    /// `method uri` with `key` in X-Api-Key and `json` (any JSON value) or `raw` as the body.
    func call(_ method: HTTPRequest.Method, _ uri: String, key: String? = nil, json: Any? = nil,
              raw: [UInt8]? = nil, contentType: String = "application/json", headers given: HTTPFields = [:]) async throws -> Answer {
        var headers = given
        if let key { headers[HTTPField.Name("X-Api-Key")!] = key }
        var body: ByteBuffer?
        if let json {
            headers[.contentType] = "application/json"
            body = ByteBuffer(data: try JSONSerialization.data(withJSONObject: json, options: [.fragmentsAllowed]))
        } else if let raw {
            headers[.contentType] = contentType
            body = ByteBuffer(bytes: raw)
        }
        return try await execute(uri: uri, method: method, headers: headers, body: body) { response in
            Answer(status: response.status, bytes: Array(response.body.readableBytesView), headers: response.headers)
        }
    }
}

/// Asserts `answer` is the hub's error shape: `status`, its code in the body, a message, and
/// the field named when `field` is given.
func assertRefusal(_ answer: Answer, _ status: HTTPResponse.Status, field: String? = nil,
                   file: StaticString = #filePath, line: UInt = #line) {
    XCTAssertEqual(answer.status, status, answer.text, file: file, line: line)
    XCTAssertEqual(answer.error["code"] as? Int, status.code, answer.text, file: file, line: line)
    XCTAssertFalse((answer.error["message"] as? String ?? "").isEmpty, answer.text, file: file, line: line)
    if let field { XCTAssertEqual(answer.error["field"] as? String, field, answer.text, file: file, line: line) }
}

/// Asserts `answer`'s status (a function, so `try await` may sit in its argument).
func assertStatus(_ answer: Answer, _ status: HTTPResponse.Status, _ message: String = "",
                  file: StaticString = #filePath, line: UInt = #line) {
    XCTAssertEqual(answer.status, status, "\(message) \(answer.text)", file: file, line: line)
}

func base64(_ bytes: [UInt8]) -> String { Data(bytes).base64EncodedString() }

/// An Eddystone-EID beacon as a box makes one: an X25519 key, a rotation exponent and a clock,
/// its identity key agreed with the hub's service key.
struct TestBeacon {
    let key = Curve25519.KeyAgreement.PrivateKey()
    let exponent: Int
    let clock: UInt32
    let identityKey: [UInt8]
    let servicePublicKey: [UInt8]

    init(hub: HubServices, exponent: Int = 10, clock: UInt32 = 1_000_000) throws {
        self.exponent = exponent
        self.clock = clock
        servicePublicKey = [UInt8](hub.resolver.serviceKey.publicKey)
        identityKey = try IdentityKeyDerivation.identityKey(serviceKey: hub.resolver.serviceKey.privateKey,
                                                            beaconPublicKey: key.publicKey.rawRepresentation)
    }

    func eid(at time: UInt32? = nil) throws -> [UInt8] {
        try EphemeralIdentifier.compute(identityKey: identityKey, exponent: exponent, time: time ?? clock,
                                        cipher: SwiftCryptoAES128()).bytes
    }

    var name: String { get throws { "beacons/4!" + Hex.format(try eid()) } }

    /// The registration's JSON, as the box sends it.
    func registration(description: String? = nil) throws -> [String: Any] {
        let initial = base64(try eid())
        var body: [String: Any] = [
            "advertisedId": ["type": "EDDYSTONE_EID", "id": initial],
            "ephemeralIdRegistration": [
                "beaconEcdhPublicKey": base64([UInt8](key.publicKey.rawRepresentation)),
                "serviceEcdhPublicKey": base64(servicePublicKey), "rotationPeriodExponent": exponent,
                "initialClockValue": Int(clock), "initialEid": initial,
            ] as [String: Any],
        ]
        if let description { body["description"] = description }
        return body
    }

    func observation(at time: UInt32? = nil) throws -> [String: Any] {
        ["advertisedId": ["type": "EDDYSTONE_EID", "id": base64(try eid(at: time))]]
    }
}
