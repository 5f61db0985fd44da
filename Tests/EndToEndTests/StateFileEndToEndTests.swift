import Foundation
import XCTest

/// Damaged state files give a clear line and never cost what is stored.
final class StateFileEndToEndTests: XCTestCase {
    func testCorruptBeaconClockFallsBackToItsBackupAndIsReported() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        try "garbage\u{0}\n".write(to: dir.appendingPathComponent("beacon-clock"), atomically: true, encoding: .utf8)
        try "4242\n".write(to: dir.appendingPathComponent("beacon-clock.previous"), atomically: true, encoding: .utf8)
        let run = try NearcastProcess.run(["run", "--duration", "1", "--state-dir", dir.path])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertTrue(run.stdout.contains("beacon-clock: the value is not a beacon time; kept aside as beacon-clock.damaged and the last good copy (beacon-clock.previous) restored"), run.stdout)
        // The previous reservation plus one lease: ahead of anything the lost file covered.
        XCTAssertTrue(run.stdout.contains("beacon time starts at 4842"), run.stdout)
        XCTAssertEqual(try stateValue(dir.appendingPathComponent("beacon-clock")), "4843", "the clock went on from the backup")
        XCTAssertEqual(try String(contentsOf: dir.appendingPathComponent("beacon-clock.damaged"), encoding: .utf8), "garbage\u{0}\n",
                       "the damaged file is kept for inspection")
    }

    func testCorruptIdentityKeyStopsWithAClearErrorAndIsKept() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let keyFile = dir.appendingPathComponent("identity-key")
        try "not-a-key\n".write(to: keyFile, atomically: true, encoding: .utf8)
        let run = try NearcastProcess.run(["run", "--duration", "1", "--state-dir", dir.path, "--kind", "eid"])
        XCTAssertNotEqual(run.status, 0)
        XCTAssertTrue(run.stderr.contains("identity-key: not a 16-byte hex identity key"), run.stderr)
        XCTAssertEqual(try String(contentsOf: keyFile, encoding: .utf8), "not-a-key\n", "the key file is left for inspection")
    }

    /// A box that needs consent (a real board) with a damaged consent file asks for consent
    /// again, even though the previous copy says granted (it may predate a lost "deny").
    func testDamagedConsentFileMeansConsentIsAskedAgain() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let boardText = try String(contentsOf: packageRoot.appendingPathComponent("boards/sim.json5"), encoding: .utf8)
            .replacingOccurrences(of: "consent: \"granted\"", with: "consent: \"required\"")
            .replacingOccurrences(of: "name: \"sim\"", with: "name: \"sim-consent\"")
        let board = dir.appendingPathComponent("sim-consent.json5")
        try boardText.write(to: board, atomically: true, encoding: .utf8)

        // Grant consent twice through the console socket, so a previous copy exists.
        let daemon = try NearcastProcess.start(["run", "--board", board.path, "--state-dir", dir.path, "--console", "none"])
        let socket = dir.appendingPathComponent("console.sock").path
        NearcastProcess.waitForConsoleSocket(socket, timeout: 15)
        for _ in 0..<2 {
            let console = try NearcastProcess.sendConsoleLine("consent grant", socket: socket)
            // The reply comes once the command has run (and saved the consent file).
            XCTAssertNotNil(NearcastProcess.readConsole(console, until: "consent granted: broadcasting"), "no reply to consent grant")
            close(console)
        }
        kill(daemon.process.processIdentifier, SIGTERM)
        XCTAssertEqual(try NearcastProcess.wait(daemon, timeout: 30).status, 0)
        XCTAssertEqual(try stateValue(dir.appendingPathComponent("consent")), "granted")
        XCTAssertEqual(try stateValue(dir.appendingPathComponent("consent.previous")), "granted")

        let good = try NearcastProcess.run(["run", "--board", board.path, "--state-dir", dir.path, "--console", "none", "--duration", "1"])
        XCTAssertTrue(good.stdout.contains("consent granted: broadcasting"), good.stdout)

        // Cut short: an error line, the file left for the next save to keep aside, no broadcast.
        let consent = dir.appendingPathComponent("consent")
        let whole = try Data(contentsOf: consent)
        try whole.prefix(whole.count - 5).write(to: consent)
        let run = try NearcastProcess.run(["run", "--board", board.path, "--state-dir", dir.path, "--console", "none", "--duration", "1"])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertTrue(run.stdout.contains("consent: truncated (the record stops before its checksum line ends); no previous copy that can stand in for it"),
                      run.stdout)
        XCTAssertTrue(run.stdout.contains("consent not granted: broadcasting nothing"), run.stdout)
        XCTAssertEqual(try stateValue(dir.appendingPathComponent("consent.previous")), "granted", "the copies are left as they were")
    }

    /// A config file broken after the box was set up: the box starts from the last config that
    /// loaded (kept in the state directory), says so, and broadcasts.
    func testBrokenConfigFileAtStartUsesTheLastGoodCopy() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let config = dir.appendingPathComponent("nearcast.json5")
        try "{ board: \"sim\", audioLevel: 30 }\n".write(to: config, atomically: true, encoding: .utf8)
        let good = try NearcastProcess.run(["run", "--config", config.path, "--state-dir", dir.path, "--console", "none", "--duration", "1"])
        XCTAssertEqual(good.status, 0, good.stderr)
        XCTAssertEqual(try String(contentsOf: dir.appendingPathComponent("config.last-good.json5"), encoding: .utf8),
                       "{ board: \"sim\", audioLevel: 30 }\n")
        for broken in ["{ board: \"sim\", audioLevel: 3O }\n", "{ board: \"sim\", audi"] {
            try broken.write(to: config, atomically: true, encoding: .utf8)
            let run = try NearcastProcess.run(["run", "--config", config.path, "--state-dir", dir.path, "--console", "none", "--duration", "1"])
            XCTAssertEqual(run.status, 0, run.stderr)
            XCTAssertTrue(run.stdout.contains("error: \(config.path):1:"), run.stdout)
            XCTAssertTrue(run.stdout.contains("starting from the last good configuration, \(dir.path)/config.last-good.json5"), run.stdout)
            XCTAssertTrue(run.stdout.contains("burst #1"), run.stdout)
        }
        // A board misnamed in the file: the box starts from the last good config's board.
        try "{ board: \"simm\", audioLevel: 30 }\n".write(to: config, atomically: true, encoding: .utf8)
        let misnamed = try NearcastProcess.run(["run", "--config", config.path, "--state-dir", dir.path, "--console", "none", "--duration", "1"])
        XCTAssertEqual(misnamed.status, 0, misnamed.stderr)
        XCTAssertTrue(misnamed.stdout.contains("error: \(config.path): simm: no such board"), misnamed.stdout)
        XCTAssertTrue(misnamed.stdout.contains("starting from the last good configuration"), misnamed.stdout)
        XCTAssertEqual(try String(contentsOf: dir.appendingPathComponent("config.last-good.json5"), encoding: .utf8),
                       "{ board: \"sim\", audioLevel: 30 }\n", "a file whose board does not load never becomes the last good copy")

        // A first start with a broken file and no copy is still refused, with the place named.
        try FileManager.default.removeItem(at: dir.appendingPathComponent("config.last-good.json5"))
        try "{ board: \"sim\", audi".write(to: config, atomically: true, encoding: .utf8)
        let refused = try NearcastProcess.run(["run", "--config", config.path, "--state-dir", dir.path, "--console", "none", "--duration", "1"])
        XCTAssertEqual(refused.status, 1)
        XCTAssertTrue(refused.stderr.contains("\(config.path):1:"), refused.stderr)
    }
}
