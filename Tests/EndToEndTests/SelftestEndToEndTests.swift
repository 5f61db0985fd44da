import Foundation
import XCTest

/// `nearcast selftest`, as a hardware tester runs it.
final class SelftestEndToEndTests: XCTestCase {
    func testTheSimBoardPassesEveryCheck() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let result = try NearcastProcess.run(["selftest", "--board", "sim", "--state-dir", dir.path, "--step", "0.1"])
        XCTAssertEqual(result.status, 0, result.stdout + result.stderr)
        for row in ["leds        PASS", "audio out   PASS", "audio in    PASS   the simulated microphone", "bluetooth   PASS"] {
            XCTAssertTrue(result.stdout.contains(row), "\(row) missing:\n\(result.stdout)")
        }
        XCTAssertTrue(result.stdout.contains("selftest passed (4 passed, 0 skipped)"), result.stdout)
        // What the checks did is there to see: each LED on then off, the burst in the WAV file.
        let leds = try String(contentsOf: dir.appendingPathComponent("leds.log"), encoding: .utf8)
        for name in ["status", "audio", "ble", "consent"] {
            XCTAssertTrue(leds.contains("led \(name) on") && leds.contains("led \(name) off"), leds)
        }
        let bursts = try NearcastProcess.decode(dir.appendingPathComponent("selftest.wav").path)
        XCTAssertEqual(bursts.compactMap { $0["payload"] as? String }, ["73656c6674657374"])
    }

    func testABoardWithMissingDevicesFailsWithAReasonPerCheck() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let (board, config) = try writeBrokenBoard(in: dir)
        let started = try NearcastProcess.start(["selftest", "--board", board.path, "--state-dir", dir.path, "--step", "0.05"],
                                                environment: ["ALSA_CONFIG_PATH": config.path])
        let result = try NearcastProcess.wait(started, timeout: 60)
        XCTAssertEqual(result.status, 1, result.stdout + result.stderr)
        XCTAssertTrue(result.stdout.contains("leds        PASS"), result.stdout)
        XCTAssertTrue(result.stdout.contains("audio out   FAIL   audio device missing: hw:CARD=Headphones,DEV=0 (open: "), result.stdout)
        XCTAssertTrue(result.stdout.contains("audio in    SKIP   the speaker failed"), result.stdout)
        XCTAssertTrue(result.stdout.contains("bluetooth   FAIL   no bluetooth adapter: "), result.stdout)
        XCTAssertTrue(result.stdout.contains("no-such-uart"), result.stdout)
        XCTAssertTrue(result.stdout.contains("selftest FAILED: 2 of 4 checks"), result.stdout)

        // Without --board, the board is the static config's, as on an installed box.
        let staticConfig = dir.appendingPathComponent("nearcast.json5")
        try "{ board: \"\(board.path)\" }\n".write(to: staticConfig, atomically: true, encoding: .utf8)
        let fromConfig = try NearcastProcess.wait(
            try NearcastProcess.start(["selftest", "--config", staticConfig.path, "--state-dir", dir.path, "--step", "0.05"],
                                      environment: ["ALSA_CONFIG_PATH": config.path]), timeout: 60)
        XCTAssertEqual(fromConfig.status, 1, fromConfig.stdout + fromConfig.stderr)
        XCTAssertTrue(fromConfig.stdout.contains("board broken (a board whose sound card and controller are missing)"), fromConfig.stdout)
    }
}
