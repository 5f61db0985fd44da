import Crypto
import Foundation
import NearcastCore
@testable import NearcastHub
import XCTest

/// The hub's pure parts; the endpoints are tested through real HTTP in hub/e2e/*.py.
final class HubUnitTests: XCTestCase {
    func testDatabaseLocationsParseAndHidePasswords() throws {
        XCTAssertEqual(try DatabaseLocation(parsing: "sqlite:hub.sqlite"), .sqlite(path: "hub.sqlite"))
        XCTAssertEqual(try DatabaseLocation(parsing: "postgres://u:secret@db/hub"), .postgres(url: "postgres://u:secret@db/hub"))
        XCTAssertEqual(try DatabaseLocation(parsing: "postgresql://u@db/hub").description, "postgresql://u@db/hub")
        XCTAssertEqual(DatabaseLocation.postgres(url: "postgres://u:secret@db/hub").description, "postgres://u:***@db/hub")
        XCTAssertThrowsError(try DatabaseLocation(parsing: "sqlite:")) { XCTAssertTrue("\($0)".contains("sqlite:hub.sqlite")) }
        XCTAssertThrowsError(try DatabaseLocation(parsing: "mysql://x")) { XCTAssertTrue("\($0)".contains("postgres://")) }
    }

    func testNamespacedTypesBelongToTheProject() throws {
        XCTAssertNoThrow(try NamespacedType.validate("demo/slide", project: "demo", field: "namespacedType"))
        for bad in ["slide", "demo/", "demo/a/b", "demo/*", "demo/two words"] {
            XCTAssertThrowsError(try NamespacedType.validate(bad, project: "demo", field: "namespacedType"), bad) {
                XCTAssertEqual(($0 as? APIError)?.status, .badRequest, bad)
            }
        }
        XCTAssertThrowsError(try NamespacedType.validate("other/slide", project: "demo", field: "namespacedType")) {
            XCTAssertEqual(($0 as? APIError)?.status, .forbidden)
        }
    }

    func testFiltersMatchAllANamespaceOrOneType() throws {
        let slides = try NamespacedTypeFilter(parsing: ["demo/slide"], field: "f")
        XCTAssertTrue(slides.matches("demo/slide"))
        XCTAssertFalse(slides.matches("demo/slides"))
        let namespace = try NamespacedTypeFilter(parsing: ["demo/*"], field: "f")
        XCTAssertTrue(namespace.matches("demo/event"))
        XCTAssertFalse(namespace.matches("demox/event"))
        XCTAssertTrue(NamespacedTypeFilter.all.matches("demo/anything"))
        XCTAssertFalse(try NamespacedTypeFilter(parsing: [], field: "f").matches("demo/slide"))
        XCTAssertThrowsError(try NamespacedTypeFilter(parsing: ["*", "nope"], field: "namespacedTypes")) {
            XCTAssertEqual(($0 as? APIError)?.field, "namespacedTypes[1]")
        }
    }

    func testDecodingErrorsNameTheField() {
        struct Body: Decodable {
            struct Inner: Decodable { var id: String }
            var advertisedId: Inner
            var list: [Int]?
        }
        func field(_ json: String) -> String? {
            let decoded = Result { try JSONDecoder().decode(Body.self, from: Data(json.utf8)) }
            guard case .failure(let error) = decoded else { return nil }
            return (error as? DecodingError).map { APIError.from($0).field } ?? "?"
        }
        XCTAssertEqual(field(#"{}"#), "advertisedId")
        XCTAssertEqual(field(#"{"advertisedId": {}}"#), "advertisedId.id")
        XCTAssertEqual(field(#"{"advertisedId": {"id": 5}}"#), "advertisedId.id")
        XCTAssertEqual(field(#"{"advertisedId": {"id": "x"}, "list": [1, "a"]}"#), "list[1]")
        XCTAssertEqual(field(#"{"#), "(body)")
    }

    /// Both sides of an Eddystone registration derive the same identity key: the beacon from the
    /// service's public key, the hub from the beacon's.
    func testTheIdentityKeyIsTheSameOnBothSides() throws {
        let service = Curve25519.KeyAgreement.PrivateKey(), beacon = Curve25519.KeyAgreement.PrivateKey()
        let hubSide = try IdentityKeyDerivation.identityKey(serviceKey: service, beaconPublicKey: beacon.publicKey.rawRepresentation)
        let shared = try beacon.sharedSecretFromKeyAgreement(with: service.publicKey)
        let beaconSide = shared.hkdfDerivedSymmetricKey(
            using: SHA256.self, salt: service.publicKey.rawRepresentation + beacon.publicKey.rawRepresentation,
            sharedInfo: Data(), outputByteCount: 16).withUnsafeBytes { Array($0) }
        XCTAssertEqual(hubSide, beaconSide)
        XCTAssertEqual(hubSide.count, 16)
        XCTAssertThrowsError(try IdentityKeyDerivation.identityKey(serviceKey: service, beaconPublicKey: Data(count: 32)),
                             "a low-order point gives an all-zero secret, which X25519 refuses")
    }

    /// The hub's AES (swift-crypto) computes the public Eddystone-EID test vectors.
    func testSwiftCryptoAESComputesTheEddystoneVectors() throws {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../../../shared/vectors/eddystone-eid.json").standardized
        let vectors = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])["vectors"] as? [[String: Any]]
        for vector in try XCTUnwrap(vectors) {
            let key = try EphemeralIdentifier.identityKey(hex: vector["identity_key"] as! String)
            let eid = try EphemeralIdentifier.compute(identityKey: key, exponent: vector["rotation_exponent"] as! Int,
                                                      time: UInt32(vector["beacon_time_seconds"] as! Int), cipher: SwiftCryptoAES128())
            XCTAssertEqual(eid.hex, vector["eid"] as? String)
        }
    }
}
