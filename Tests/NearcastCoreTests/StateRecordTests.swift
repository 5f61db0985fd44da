import Foundation
import XCTest
@testable import NearcastCore

final class StateRecordTests: XCTestCase {
    func testCRC32MatchesTheCatalogueCheckValue() {
        XCTAssertEqual(CRC32.checksum(Array("123456789".utf8)), 0xCBF4_3926)
        XCTAssertEqual(CRC32.checksum([UInt8]()), 0)
    }

    func testARecordRoundTrips() throws {
        let text = StateRecord.encode(kind: "consent", version: 1, value: "granted")
        XCTAssertTrue(text.hasPrefix("nearcast-state consent 1\ngranted\ncrc32 "), text)
        let decoded = try StateRecord.decode(text, kind: "consent", supported: 0...1)
        XCTAssertEqual(decoded.value, "granted")
        XCTAssertEqual(decoded.version, 1)
    }

    /// A file cut short anywhere, as a failing card or a torn write would leave it, is never
    /// taken for a value: in particular "4242" cut to "424" must not pass as a beacon time.
    func testEveryTruncationIsRejected() {
        let text = StateRecord.encode(kind: "beacon-clock", version: 1, value: "4242")
        let bytes = Array(text.utf8)
        for length in 0..<bytes.count {
            let prefix = String(decoding: bytes[0..<length], as: UTF8.self)
            XCTAssertThrowsError(try StateRecord.decode(prefix, kind: "beacon-clock", supported: 1...1), "length \(length) decoded")
        }
    }

    func testEverySingleBitFlipIsRejected() {
        let bytes = Array(StateRecord.encode(kind: "beacon-clock", version: 1, value: "4242").utf8)
        for index in bytes.indices {
            for bit in 0..<8 {
                var damaged = bytes
                damaged[index] ^= 1 << bit
                let text = String(decoding: damaged, as: UTF8.self)
                if let decoded = try? StateRecord.decode(text, kind: "beacon-clock", supported: 1...1) {
                    XCTFail("byte \(index) bit \(bit): decoded \(decoded.value)")
                }
            }
        }
    }

    func testErrorsNameTheProblem() {
        let good = StateRecord.encode(kind: "consent", version: 1, value: "granted")
        func error(_ text: String, kind: String = "consent", supported: ClosedRange<Int> = 1...1) -> StateRecordError? {
            do { _ = try StateRecord.decode(text, kind: kind, supported: supported); return nil } catch { return error }
        }
        XCTAssertEqual(error(good, kind: "beacon-clock"), .wrongKind("consent"))
        XCTAssertEqual(error(StateRecord.encode(kind: "consent", version: 2, value: "granted")), .unsupportedVersion(2, newest: 1))
        XCTAssertEqual(error(good.replacingOccurrences(of: "granted", with: "grantex")), .checksumMismatch)
        XCTAssertEqual(error(String(good.dropLast(3))), .truncated)
        XCTAssertEqual(error(good.replacingOccurrences(of: "crc32 ", with: "crc32 0")), .checksumMismatch)
        XCTAssertEqual(error("nearcast-state consent 1\ngranted\n"), .truncated)
        XCTAssertEqual(error("granted\n"), .notARecord, "a bare value is only read where legacy files are")
        XCTAssertEqual(error(""), .notARecord)
        XCTAssertEqual(StateRecordError.truncated.description, "truncated (the record stops before its checksum line ends)")
    }

    func testABareLegacyValueIsVersionZero() throws {
        let decoded = try StateRecord.decode("  4242\n", kind: "beacon-clock", supported: 0...1)
        XCTAssertEqual(decoded.value, "4242")
        XCTAssertEqual(decoded.version, 0)
        XCTAssertThrowsError(try StateRecord.decode("\n", kind: "beacon-clock", supported: 0...1))
        XCTAssertThrowsError(try StateRecord.decode("42\n43\n", kind: "beacon-clock", supported: 0...1))
    }

    /// Found by fuzz/targets/state_record.swift: a value ending in "\r" was written but not read
    /// back ("\r" and the line's "\n" made one Character, so the record seemed to have three
    /// lines), and a legacy file holding "\r\n" decoded to a value encode then refused.
    func testCarriageReturnsInAValueRoundTripAndCRLFIsANewline() throws {
        for value in ["\u{FFFD}\r\u{FFFD}\r", "a\r", "\r"] {
            let record = StateRecord.encode(kind: "consent", version: 1, value: value)
            let decoded = try StateRecord.decode(record, kind: "consent", supported: 1...1)
            XCTAssertEqual(decoded.value, value)
        }
        XCTAssertEqual(try StateRecord.decode("\u{FFFD}\r\n\n", kind: "consent", supported: 0...1).value, "\u{FFFD}")
        XCTAssertEqual(try StateRecord.decode("42\r\n", kind: "beacon-clock", supported: 0...1).value, "42")
        XCTAssertThrowsError(try StateRecord.decode("4\r\n2", kind: "beacon-clock", supported: 0...1)) { error in
            XCTAssertEqual(error as? StateRecordError, .notARecord)
        }
    }
}
