import Foundation
import XCTest
@testable import NearcastCore

/// HCI LE advertising report events: byte layouts from the Core spec (Vol 4, Part E, 7.7.65.2 and
/// 7.7.65.13) by hand, malformed events, and events written by an independent encoder (Bumble).
final class LEAdvertisingReportTests: XCTestCase {
    func testLegacyReportLayout() throws {
        // LE Meta, 33 parameter bytes, subevent 0x02, 1 report: ADV_NONCONN_IND (3), random address
        // 06:55:44:33:22:11 (sent LSB first), 21 data bytes (an Eddystone EID frame), RSSI -60.
        let event = try Hex.parse("3e21" + "0201" + "03" + "01" + "112233445506" + "15"
                                  + "0201060303aafe0d16aafe30f4ca8db2444f89ec78" + "c4")
        let reports = try LEAdvertisingReports.parse(event: event)
        XCTAssertEqual(reports.count, 1)
        let report = try XCTUnwrap(reports.first)
        XCTAssertEqual(report.eventType, 3)
        XCTAssertFalse(report.isExtended)
        XCTAssertEqual(report.addressType, 1)
        XCTAssertEqual(report.address.description, "06:55:44:33:22:11")
        XCTAssertEqual(report.rssi, -60)
        let frame = try XCTUnwrap(EddystoneFrame.token(in: try XCTUnwrap(report.data)))
        XCTAssertEqual(frame.token, try Token(kind: .eid, hex: "ca8db2444f89ec78"))
        XCTAssertEqual(frame.txPower, -12)
    }

    func testExtendedReportLayout() throws {
        // Subevent 0x0D: event type 0x0010 (legacy PDU, complete), address type 1, address, primary
        // PHY 1, secondary PHY 0, SID 0xFF, TX power 0x7F, RSSI -70 (0xBA), periodic interval 0,
        // direct address type 0, direct address 0, 3 data bytes.
        let body = "0d01" + "1000" + "01" + "aabbccddeeff" + "01" + "00" + "ff" + "7f" + "ba" + "0000"
            + "00" + "000000000000" + "03" + "020106"
        let event = try Hex.parse("3e" + Hex.format(UInt64(body.count / 2), byteCount: 1) + body)
        let report = try XCTUnwrap(LEAdvertisingReports.parse(event: event).first)
        XCTAssertTrue(report.isExtended)
        XCTAssertEqual(report.eventType, 0x10)
        XCTAssertEqual(report.address.description, "FF:EE:DD:CC:BB:AA")
        XCTAssertEqual(report.rssi, -70)
        XCTAssertEqual(report.data?.bytes, [0x02, 0x01, 0x06])
    }

    func testMalformedEventsAreRejectedWithTheirReason() throws {
        func reason(_ hex: String) -> String {
            do {
                _ = try LEAdvertisingReports.parse(event: try Hex.parse(hex))
                return "accepted"
            } catch {
                return "\(error)"
            }
        }
        let good = "3e21" + "0201" + "03" + "01" + "112233445506" + "15" + "0201060303aafe0d16aafe30f4ca8db2444f89ec78" + "c4"
        XCTAssertEqual(reason(good), "accepted")
        XCTAssertEqual(reason("0e0401"), "HCI event 0x0e is not an LE advertising report")
        XCTAssertEqual(reason("3e0201" + "00"), "HCI event 0x3e, subevent 0x01 is not an LE advertising report")
        XCTAssertEqual(reason("3e05" + "0201" + "00"), "HCI event declares 5 parameter bytes but carries 3")
        XCTAssertEqual(reason("3e020200"), "HCI advertising report event with 0 reports (1 to 25 allowed)")
        // The data length runs past the end (the length byte is fixed up to match).
        XCTAssertTrue(reason("3e0d" + "0201" + "03" + "01" + "112233445506" + "1f" + "0201").hasPrefix("HCI event truncated"))
        // Two reports announced, one present.
        XCTAssertTrue(reason("3e21" + "0202" + String(good.dropFirst(8))).hasPrefix("HCI event truncated"))
    }

    func testRandomBytesNeverCrashTheParserNorYieldReportsBeyondTheEvent() {
        var generator = SplitMix64(seed: 77)
        var accepted = 0
        for _ in 0..<20_000 {
            let length = Int(generator.next() % 60)
            var bytes = (0..<length).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
            if bytes.count >= 4 {
                bytes[0] = 0x3E; bytes[1] = UInt8(bytes.count - 2)
                bytes[2] = generator.next() % 2 == 0 ? 0x02 : 0x0D
                bytes[3] = UInt8(1 + generator.next() % 2)
            }
            if let reports = try? LEAdvertisingReports.parse(event: bytes) {
                accepted += 1
                XCTAssertFalse(reports.isEmpty)
                // Every report's data came from inside the event, after its 4 header bytes.
                let data = reports.reduce(0) { $0 + ($1.data?.count ?? 0) }
                XCTAssertLessThanOrEqual(data, bytes.count - 4)
            }
        }
        XCTAssertLessThan(accepted, 20_000, "random bytes are mostly malformed")
    }

    /// Bumble (PyPI, a Python Bluetooth stack) encodes random legacy and extended report events;
    /// every field Nearcast reads must match what Bumble put in.
    func testEventsEncodedByBumbleParseToTheSameFields() throws {
        let script = #"""
import json, random, sys
from bumble.hci import Address, HCI_LE_Advertising_Report_Event as L, HCI_LE_Extended_Advertising_Report_Event as X
random.seed(5)
out = []
for n in range(300):
    extended = n % 2 == 1
    reports, expect = [], []
    for _ in range(random.randint(1, 3)):
        raw = bytes(random.getrandbits(8) for _ in range(6))
        kind = random.randint(0, 1)
        address = Address(raw, kind)
        rssi = random.randint(-100, 20)
        if random.random() < 0.5:
            eid = bytes(random.getrandbits(8) for _ in range(8))
            data = bytes.fromhex("0201060303aafe0d16aafe30") + bytes([random.getrandbits(8)]) + eid
            token = eid.hex()
        else:
            data = bytes(random.getrandbits(8) for _ in range(random.randint(0, 31)))
            token = None
        if extended:
            etype = 0x10 | random.choice([0, 1, 2, 3])
            reports.append(X.Report(event_type=etype, address_type=kind, address=address, primary_phy=1,
                secondary_phy=0, advertising_sid=0xFF, tx_power=0x7F, rssi=rssi,
                periodic_advertising_interval=0, direct_address_type=0,
                direct_address=Address(bytes(6), 0), data=data))
        else:
            etype = random.randint(0, 4)
            reports.append(L.Report(event_type=etype, address_type=kind, address=address, data=data, rssi=rssi))
        expect.append({"type": etype, "address_type": kind, "address": int.from_bytes(raw, "little"),
                       "rssi": rssi, "data": data.hex(), "eid": token})
    event = X(reports=reports) if extended else L(reports=reports)
    packet = bytes(event)
    assert packet[0] == 4  # H4 event indicator, as a UART or a BlueZ raw socket delivers it
    out.append({"hex": packet[1:].hex(), "reports": expect})
json.dump(out, sys.stdout)
"""#
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", script]
        let output = Pipe(), errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        let errorText = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0, "python3 with bumble failed (run tools/setup/install-deps): \(errorText)")
        let events = try XCTUnwrap(try JSONSerialization.jsonObject(with: data) as? [[String: Any]])
        XCTAssertEqual(events.count, 300)
        var eids = 0
        for event in events {
            let bytes = try Hex.parse(try XCTUnwrap(event["hex"] as? String))
            let parsed = try LEAdvertisingReports.parse(event: bytes)
            let expected = try XCTUnwrap(event["reports"] as? [[String: Any]])
            XCTAssertEqual(parsed.count, expected.count)
            for (report, want) in zip(parsed, expected) {
                XCTAssertEqual(Int(report.eventType), want["type"] as? Int)
                XCTAssertEqual(Int(report.addressType), want["address_type"] as? Int)
                XCTAssertEqual(report.address.value, (want["address"] as? NSNumber)?.uint64Value)
                XCTAssertEqual(Int(report.rssi), want["rssi"] as? Int)
                XCTAssertEqual(report.data?.description ?? "", want["data"] as? String)
                let token = report.data.flatMap { EddystoneFrame.token(in: $0) }?.token
                if let eid = want["eid"] as? String {
                    XCTAssertEqual(token, try Token(kind: .eid, hex: eid))
                    eids += 1
                }
            }
        }
        XCTAssertGreaterThan(eids, 100)
    }
}
