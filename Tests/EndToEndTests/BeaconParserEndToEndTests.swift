import Foundation
import XCTest

/// `nearcast ble-frame` output read by an independently written Eddystone parser: PyPI's
/// beacontools (installed by tools/setup/install-deps).
final class BeaconParserEndToEndTests: XCTestCase {
    private func beacontools(_ hex: String) throws -> [String: String] {
        let script = """
            import sys
            from beacontools import parse_packet, EddystoneEIDFrame, EddystoneUIDFrame
            frame = parse_packet(bytes.fromhex(sys.argv[1]))
            if isinstance(frame, EddystoneEIDFrame):
                print("type=eid"); print("eid=" + frame.eid.hex()); print("tx=%d" % frame.tx_power)
            elif isinstance(frame, EddystoneUIDFrame):
                print("type=uid"); print("namespace=" + frame.namespace); print("instance=" + frame.instance)
                print("tx=%d" % frame.tx_power)
            else:
                print("type=none")
            """
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", script, hex]
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        let errors = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw NSError(domain: "beacontools", code: 1, userInfo: [NSLocalizedDescriptionKey:
                "python3 with beacontools failed (run tools/setup/install-deps): \(errors)"])
        }
        var fields: [String: String] = [:]
        for line in String(decoding: data, as: UTF8.self).split(separator: "\n") {
            let parts = line.split(separator: "=", maxSplits: 1)
            if parts.count == 2 { fields[String(parts[0])] = String(parts[1]) }
        }
        return fields
    }

    private func frame(_ arguments: [String]) throws -> String {
        let result = try NearcastProcess.run(["ble-frame"] + arguments)
        XCTAssertEqual(result.status, 0, result.stderr)
        return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    func testEIDFrameReadsBackInBeacontools() throws {
        // The first public EID vector, computed from its key by ble-frame itself.
        let hex = try frame(["--kind", "eid", "--key", "a2c873f26ebae374d9f7efbcd922ca1c", "--exponent", "9",
                             "--time", "1258098495", "--tx-power", "-12"])
        let fields = try beacontools(hex)
        XCTAssertEqual(fields["type"], "eid")
        XCTAssertEqual(fields["eid"], "ca8db2444f89ec78")
        XCTAssertEqual(fields["tx"], "-12")
    }

    func testDirectTokenReadsBackAsAUIDFrame() throws {
        let hex = try frame(["--kind", "direct", "--payload", "c0ffee0102030405", "--tx-power", "4"])
        let fields = try beacontools(hex)
        XCTAssertEqual(fields["type"], "uid")
        XCTAssertEqual(fields["namespace"], "4e45415243535408c0ff")
        XCTAssertEqual(fields["instance"], "ee0102030405")
        XCTAssertEqual(fields["tx"], "4")
    }

    func testBadArgumentsAreRefused() throws {
        let result = try NearcastProcess.run(["ble-frame", "--kind", "eid", "--payload", "0102"])
        XCTAssertNotEqual(result.status, 0)
        XCTAssertTrue(result.stderr.contains("an eid token is exactly 8 bytes"), result.stderr)
        let both = try NearcastProcess.run(["ble-frame", "--kind", "direct", "--key", "00"])
        XCTAssertNotEqual(both.status, 0)
        XCTAssertTrue(both.stderr.contains("--key, --exponent and --time are for --kind eid"), both.stderr)
    }
}
