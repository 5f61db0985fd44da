import XCTest
@testable import NearcastApp
import NearcastCore
import NearcastDrivers

/// The box's hub client pieces that need no hub: message specs, hub settings, the hub record,
/// the curl config's quoting, and the config file's hub and publications.
final class HubClientTests: XCTestCase {
    func testMessageSpecsKeepColonsAndAtSignsInTheText() throws {
        let spec = try PublicationSpec.parse("message:demo/slide:Q&A at 10:30 @ room 2", defaultExponent: 10)
        XCTAssertEqual(spec.kind, .message(namespacedType: "demo/slide", text: "Q&A at 10:30 @ room 2"))
        XCTAssertEqual(spec.mediums, .both)
        let ble = try PublicationSpec.parse("message:demo/event:42@ble", defaultExponent: 10)
        XCTAssertEqual(ble.kind, .message(namespacedType: "demo/event", text: "42"))
        XCTAssertEqual(ble.mediums, .ble)
        XCTAssertEqual(ble.text, "message:demo/event:42@ble")
        XCTAssertEqual(try PublicationSpec.parse(ble.text, defaultExponent: 10), ble, "the saved form reads back")
        for bad in ["message:", "message:slide:x", "message:demo/slide", "message:demo/slide:", "message:/x:y", "message:a b/c:d"] {
            XCTAssertThrowsError(try PublicationSpec.parse(bad, defaultExponent: 10), bad)
        }
        let big = "message:demo/x:" + String(repeating: "a", count: 100 * 1024 + 1)
        XCTAssertThrowsError(try PublicationSpec.parse(big, defaultExponent: 10)) { XCTAssertTrue("\($0)".contains("100 KiB")) }
    }

    func testHubSettingsAreCheckedAndTrimmed() throws {
        let settings = try HubSettings(url: "https://hub.example.org/", key: "ncsec_abc-_1", certificateAuthority: nil)
        XCTAssertEqual(settings.url, "https://hub.example.org")
        for (url, key, ca) in [("ftp://h", "k", nil), ("http://", "k", nil), ("http://h h", "k", nil), ("http://h", "", nil),
                               ("http://h", "a\"b", nil), ("http://h", "k", "relative.pem")] as [(String, String, String?)] {
            XCTAssertThrowsError(try HubSettings(url: url, key: key, certificateAuthority: ca), "\(url) \(key) \(ca ?? "")")
        }
    }

    func testTheHubRecordReadsBackAndRefusesDamage() throws {
        let record = HubRecord(hub: "http://h", serviceKey: Array(repeating: 1, count: 32), beaconPublicKey: Array(0..<32),
                               identityKey: Array(0..<16), exponent: 10, beaconName: "beacons/4!0011", managedTypes: ["demo/slide"])
        XCTAssertEqual(HubRecord.parse(record.text), record)
        var text = record.text
        text = text.replacingOccurrences(of: "\"exponent\":10", with: "\"exponent\":99")
        XCTAssertNil(HubRecord.parse(text))
        XCTAssertNil(HubRecord.parse("{"))
        XCTAssertNil(HubRecord.parse(record.text.replacingOccurrences(of: Hex.format(Array(0..<16)), with: "00")))
    }

    func testCurlConfigValuesAreQuotedSoNoValueStartsALine() {
        XCTAssertEqual(CurlTransport.quoted(#"a"b\c"#), #""a\"b\\c""#)
        XCTAssertEqual(CurlTransport.quoted("x\noutput = /etc/passwd"), #""x\noutput = /etc/passwd""#)
        XCTAssertFalse(CurlTransport.quoted("a\r\n\u{0}b").contains("\n"))
    }

    /// Names from the hub's answers go into URLs and curl's config: only the hub's shapes pass.
    func testOnlyBeaconAndAttachmentNamesOfTheHubsShapeAreTaken() {
        XCTAssertTrue(HubNames.isBeaconName("beacons/4!0011aabb"))
        XCTAssertTrue(HubNames.isBeaconName("beacons/3!01"))
        for bad in ["beacons/4!", "beacons/5!00", "beacons/4!00\nurl", "beacons/4!00/../x", "beacons/4!AA", "x"] {
            XCTAssertFalse(HubNames.isBeaconName(bad), bad)
        }
        XCTAssertTrue(HubNames.isAttachmentName("beacons/4!00/attachments/0a1b", of: "beacons/4!00"))
        for bad in ["beacons/4!01/attachments/0a", "beacons/4!00/attachments/", "beacons/4!00/attachments/a\nb",
                    "beacons/4!00/attachments/a/../b"] {
            XCTAssertFalse(HubNames.isAttachmentName(bad, of: "beacons/4!00"), bad)
        }
        XCTAssertFalse(HubNames.isAttachmentName("beacons/4!00/attachments/0a", of: nil))
    }

    func testTheConfigFileTakesAHubAndPublications() throws {
        let config = try StaticConfig.parse("""
            { publications: ["message:demo/slide:Slide 1", "direct:c0ffee@ble"],
              hub: { url: "https://hub.example.org", key: "ncsec_x", ca: "/etc/nearcast/ca.pem" } }
            """, file: "n.json5")
        XCTAssertEqual(config.publications, ["message:demo/slide:Slide 1", "direct:c0ffee@ble"])
        XCTAssertEqual(config.hub, try HubSettings(url: "https://hub.example.org", key: "ncsec_x", certificateAuthority: "/etc/nearcast/ca.pem"))
        XCTAssertEqual(config.publications, config.publications)
        for (text, key) in [("{ hub: { url: \"x\", key: \"k\" } }", "hub.url"), ("{ hub: { url: \"http://h\" } }", "hub.key"),
                            ("{ hub: { url: \"http://h\", key: \"k\", port: 1 } }", "hub.port"),
                            ("{ publications: [\"message:slide\"] }", "publications"), ("{ publications: \"direct:00\" }", "publications")] {
            XCTAssertThrowsError(try StaticConfig.parse(text, file: "n.json5"), text) { XCTAssertTrue("\($0)".contains(key), "\($0)") }
        }
    }
}
