import Foundation
import XCTest

/// The fixed command-line contracts (docs/design.md), through the real binary.
final class CommandEndToEndTests: XCTestCase {
    func testEncodeThenDecodeForEveryRateKindAndSampleFormat() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let cases: [(payload: String, kind: String, rate: String, float: Bool)] = [
            ("0102030405060708", "direct", "48000", false),
            ("a1b2c3", "direct", "44100", true),
            ("ca8db2444f89ec78", "eid", "44100", false),
            ("ca8db2444f89ec78", "eid", "48000", true),
        ]
        for (index, c) in cases.enumerated() {
            let path = dir.appendingPathComponent("\(index).wav").path
            var arguments = ["encode", "--payload", c.payload, "--kind", c.kind, "--rate", c.rate, "--out", path]
            if c.float { arguments.append("--float") }
            let encoded = try NearcastProcess.run(arguments)
            XCTAssertEqual(encoded.status, 0, encoded.stderr)
            let tokens = try NearcastProcess.decode(path)
            XCTAssertEqual(tokens.count, 1, "\(c)")
            XCTAssertEqual(tokens.first?["payload"] as? String, c.payload)
            XCTAssertEqual(tokens.first?["kind"] as? String, c.kind)
            XCTAssertEqual(tokens.first?["offset_s"] as? Double ?? -1, 0, accuracy: 0.002)
        }
    }

    func testDecodeOfAFileWithoutTokensExitsZero() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        // A WAV of silence: encode a burst at the lowest amplitude and zero its samples.
        let path = dir.appendingPathComponent("silence.wav").path
        var data = Data("RIFF".utf8) + le32(36 + 96_000) + Data("WAVEfmt ".utf8) + le32(16)
        data += le16(1) + le16(1) + le32(48_000) + le32(96_000) + le16(2) + le16(16) + Data("data".utf8) + le32(96_000)
        data += Data(count: 96_000)
        try data.write(to: URL(fileURLWithPath: path))
        let result = try NearcastProcess.run(["decode", path, "--json"])
        XCTAssertEqual(result.status, 0)
        XCTAssertEqual(result.stdout, "")
        let human = try NearcastProcess.run(["decode", path])
        XCTAssertTrue(human.stdout.contains("0 tokens in 1.00 s"), human.stdout)
    }

    func testEIDCommandPrintsTheVector() throws {
        let result = try NearcastProcess.run(["eid", "--key", "a2c873f26ebae374d9f7efbcd922ca1c", "--exponent", "9", "--time", "1258098495"])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(result.stdout, "ca8db2444f89ec78\n")
    }

    func testBoardsListAndCheck() throws {
        let list = try NearcastProcess.run(["boards"])
        XCTAssertEqual(list.status, 0, list.stderr)
        for name in ["rpi3b", "rpi4b", "rpi5", "zero2w", "sim", "pc"] {
            XCTAssertTrue(list.lines.contains { $0.hasPrefix(name + " ") }, "\(name) in \(list.stdout)")
        }
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let bad = dir.appendingPathComponent("bad.json5")
        try "{ name: \"bad\", gpio: { chip: 0, lines: 4 }, leds: { status: { line: 9 } } }".write(to: bad, atomically: true, encoding: .utf8)
        let check = try NearcastProcess.run(["boards", "check", bad.path])
        XCTAssertNotEqual(check.status, 0)
        XCTAssertTrue(check.stderr.contains("\(bad.path):1:"), check.stderr)
        XCTAssertTrue(check.stderr.contains("leds.status.line: 9 is out of range"), check.stderr)
    }

    /// `--version` (and the console's `version`) carry the binary's GNU build ID, as readelf sees it.
    func testVersionNamesTheBinarysBuildID() throws {
        let version = try NearcastProcess.run(["--version"])
        XCTAssertEqual(version.status, 0)
        let readelf = Process()
        readelf.executableURL = URL(fileURLWithPath: "/usr/bin/readelf")
        readelf.arguments = ["-n", NearcastProcess.binary]
        let pipe = Pipe()
        readelf.standardOutput = pipe
        try readelf.run()
        let notes = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        readelf.waitUntilExit()
        let line = try XCTUnwrap(notes.split(separator: "\n").first { $0.contains("Build ID:") }, notes)
        let id = try XCTUnwrap(line.split(separator: " ").last)
        let text = version.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        XCTAssertTrue(text.hasPrefix("nearcast ") && text.hasSuffix(" (build \(id))"), "\(text) vs build ID \(id)")
    }

    func testLEDsTestWalksTheSimBoardAndNamesTheBoardEntryWhenTheChipIsMissing() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let walk = try NearcastProcess.run(["leds", "test", "--board", "sim", "--step", "0.05", "--state-dir", dir.path])
        XCTAssertEqual(walk.status, 0, walk.stderr)
        XCTAssertEqual(walk.lines.dropFirst().prefix(4).map { String($0.prefix(11)) }, ["status   on", "audio    on", "ble      on", "consent  on"])
        let log = try String(contentsOf: dir.appendingPathComponent("leds.log"), encoding: .utf8)
        XCTAssertEqual(log.split(separator: "\n").map { $0.split(separator: " ").dropFirst(2).joined(separator: " ") },
                       ["status on", "status off", "audio on", "audio off", "ble on", "ble off", "consent on", "consent off"])
        // No GPIO chips on this machine: the Pi 4's chip is named with its board file entry.
        let missing = try NearcastProcess.run(["leds", "test", "--board", "rpi4b", "--state-dir", dir.path])
        XCTAssertEqual(missing.status, 1)
        XCTAssertTrue(missing.stderr.contains("boards/rpi4b.json5: gpio.chip: open GPIO chip pinctrl-bcm2711: No such file or directory"),
                      missing.stderr)
        let bad = try NearcastProcess.run(["leds", "test", "--step", "0"])
        XCTAssertNotEqual(bad.status, 0)
        XCTAssertTrue(bad.stderr.contains("--step 0.0: use 0.05 to 60 seconds"), bad.stderr)
    }

    func testBenchMovesAnImageMethodRoomAcrossRT60AndDistance() throws {
        // The sweep behind docs/modem.md's picture, one small cell: the room's RT60 and distance
        // come from the options, and a longer, farther room has a lower direct-to-reverberant ratio.
        func drr(_ rt60: String, _ distance: String) throws -> Double {
            let result = try NearcastProcess.run(["bench", "modem", "--conditions", "room-a", "--rt60", rt60,
                                                  "--distance", distance, "--trials", "2", "--noise-hours", "0", "--json"])
            XCTAssertEqual(result.status, 0, result.stderr)
            let row = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
            XCTAssertEqual(row["wrong"] as? Int, 0)
            return try XCTUnwrap(row["drr_db"] as? Double, result.stdout)
        }
        let near = try drr("0.3", "1")
        let far = try drr("1.0", "8")
        XCTAssertGreaterThan(near, far + 10, "RT60 0.3 s at 1 m: \(near) dB; 1.0 s at 8 m: \(far) dB")
    }

    func testBadInputGivesOneClearLineAndANonZeroExit() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let notWAV = dir.appendingPathComponent("text.wav")
        try "not audio".write(to: notWAV, atomically: true, encoding: .utf8)
        let cases: [([String], String)] = [
            (["encode", "--payload", "zz", "--out", dir.appendingPathComponent("x.wav").path], "--payload: invalid hex payload 'zz'"),
            (["encode", "--payload", "0102", "--kind", "eid", "--out", dir.appendingPathComponent("x.wav").path], "an eid token is exactly 8 bytes"),
            (["encode", "--payload", "01", "--rate", "22050", "--out", dir.appendingPathComponent("x.wav").path], "--rate 22050"),
            (["encode", "--payload", "01", "--out", "/nonexistent-dir/x.wav"], "/nonexistent-dir/x.wav: No such file or directory"),
            (["decode", dir.appendingPathComponent("missing.wav").path], "missing.wav: No such file or directory"),
            (["decode", notWAV.path], "text.wav: not a WAV file"),
            (["eid", "--key", "00", "--exponent", "9", "--time", "1"], "--key: an identity key is 16 bytes"),
            (["eid", "--key", "a2c873f26ebae374d9f7efbcd922ca1c", "--exponent", "16", "--time", "1"], "--exponent 16"),
            (["bench", "modem", "--conditions", "room-3m", "--rt60", "0.4"], "condition \"room-3m\" has no image-method room"),
            (["bench", "modem", "--conditions", "room-a", "--rt60", "5"], "--rt60 5.0: use 0.1 to 2 seconds"),
            (["bench", "modem", "--distance", "0.1", "--conditions", "room-b"], "--distance 0.1: use 0.5 to 8 metres"),
            (["bench", "channel", "--condition", "room-b", "--distance", "12", "in.wav", "out.wav"], "--distance 12.0: use 0.5 to 8 metres"),
            (["bench", "modem", "--gate", "1.5"], "--gate: use a share from 0 to 1"),
        ]
        for (arguments, message) in cases {
            let result = try NearcastProcess.run(arguments)
            XCTAssertNotEqual(result.status, 0, "\(arguments)")
            XCTAssertTrue(result.stderr.contains(message), "\(arguments): \(result.stderr)")
        }
    }
}

private func le32(_ v: Int) -> Data { Data((0..<4).map { UInt8((v >> (8 * $0)) & 0xFF) }) }
private func le16(_ v: Int) -> Data { Data([UInt8(v & 0xFF), UInt8((v >> 8) & 0xFF)]) }

/// The example program built on the NearcastNearby library (Examples/NearbyHello).
final class NearbyExampleEndToEndTests: XCTestCase {
    func testTheExampleProgramPublishesAndHearsItsOwnMessageOnBothMediums() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let binary = URL(fileURLWithPath: NearcastProcess.binary).deletingLastPathComponent().appendingPathComponent("nearby-hello")
        let process = Process()
        process.executableURL = binary
        process.arguments = [dir.path, "4"]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0, output)
        XCTAssertTrue(output.contains("found direct 68656c6c6f over "), output)
        XCTAssertTrue(output.contains("heard now: 68656c6c6f"), output)
        let decoded = try NearcastProcess.decode(dir.appendingPathComponent("nearby-hello.wav").path)
        XCTAssertGreaterThanOrEqual(decoded.filter { $0["payload"] as? String == "68656c6c6f" }.count, 2, "bursts on the speaker")
        let ble = try String(contentsOf: dir.appendingPathComponent("nearby-hello-ble.log"), encoding: .utf8)
        XCTAssertTrue(ble.contains("advertise"), ble)
    }
}
