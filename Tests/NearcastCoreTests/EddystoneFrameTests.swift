import XCTest
@testable import NearcastCore

/// Byte layouts from the Eddystone protocol specification (google/eddystone, protocol-specification.md,
/// eddystone-uid and eddystone-eid), written out by hand.
final class EddystoneFrameTests: XCTestCase {
    func testEIDFrameLayout() throws {
        let token = try Token(kind: .eid, hex: "ca8db2444f89ec78")
        let data = EddystoneFrame.advertisingData(for: token, txPower: -12)
        XCTAssertEqual(data.description, "020106" + "0303aafe" + "0d16aafe30f4" + "ca8db2444f89ec78")
        XCTAssertEqual(data.count, 21)
    }

    func testUIDFrameLayoutForDirectTokens() throws {
        let full = EddystoneFrame.advertisingData(for: try Token(kind: .direct, hex: "0102030405060708"), txPower: 0)
        XCTAssertEqual(full.description, "020106" + "0303aafe" + "1716aafe0000" + "4e454152435354" + "08" + "0102" + "030405060708" + "0000")
        XCTAssertEqual(full.count, 31, "a UID frame fills the legacy advertisement exactly")
        let short = EddystoneFrame.advertisingData(for: try Token(kind: .direct, hex: "abcd"), txPower: 20)
        XCTAssertEqual(short.description, "020106" + "0303aafe" + "1716aafe0014" + "4e454152435354" + "02" + "abcd" + "000000000000" + "0000")
    }

    func testParsingRoundTripsAndRejectsOthers() throws {
        var generator = SeededGenerator(seed: 30)
        for _ in 0..<100 {
            let token = TestSignals.randomToken(using: &generator)
            let tx = Int8.random(in: -100...20, using: &generator)
            let parsed = EddystoneFrame.token(in: EddystoneFrame.advertisingData(for: token, txPower: tx))
            XCTAssertEqual(parsed?.token, token)
            XCTAssertEqual(parsed?.txPower, tx)
        }
        func parse(_ hex: String) throws -> Token? {
            EddystoneFrame.token(in: try XCTUnwrap(AdvertisingData(bytes: try Hex.parse(hex))))?.token
        }
        // Another beacon's UID namespace, an iBeacon, a truncated structure, a length running off the end.
        XCTAssertNil(try parse("0201060303aafe1716aafe00f4" + "00112233445566778899" + "aabbccddeeff0000"))
        XCTAssertNil(try parse("0201061aff4c000215" + "00112233445566778899aabbccddeeff" + "00010002c5"))
        XCTAssertNil(try parse("0201060303aafe0d16aafe30f4ca8db2"))
        XCTAssertNil(try parse("0201061f16aafe30"))
        XCTAssertNil(AdvertisingData(bytes: [UInt8](repeating: 0, count: 32)))
    }
}
