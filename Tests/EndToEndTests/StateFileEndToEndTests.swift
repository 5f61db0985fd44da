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
        XCTAssertTrue(run.stdout.contains("beacon-clock: not a beacon time, ignored"), run.stdout)
        XCTAssertTrue(run.stdout.contains("beacon time starts at 4242"), run.stdout)
        let saved = try String(contentsOf: dir.appendingPathComponent("beacon-clock"), encoding: .utf8)
        XCTAssertEqual(saved, "4243\n", "the clock went on from the backup")
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
}
