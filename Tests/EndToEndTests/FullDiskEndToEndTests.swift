import Foundation
import XCTest

/// The box on a full disk: the sim board with its state directory on a 4 MiB tmpfs (the speaker's
/// WAV file lives there too), filled while the daemon runs. A device that fails is a problem to
/// report and recover from, never a reason to stop: the speaker's writes fail and are reported
/// (status, LED, log), a console change says it was not saved and still holds, broadcasting goes
/// on, and once space returns the speaker plays again and the next save succeeds. Needs root to
/// mount the tmpfs (skipped otherwise).
final class FullDiskEndToEndTests: XCTestCase {

    /// Writes zeros into `path` until the file system refuses (ENOSPC).
    private func fill(_ path: String) {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        precondition(descriptor >= 0, "open \(path): errno \(errno)")
        defer { close(descriptor) }
        let block = [UInt8](repeating: 0, count: 64 * 1024)
        while block.withUnsafeBytes({ write(descriptor, $0.baseAddress, $0.count) }) > 0 {}
    }

    func testAFullStateDiskIsReportedTheBoxGoesOnAndRecoversWhenSpaceReturns() throws {
        let dir = try makeTemporaryDirectory()
        defer {
            _ = umount2(dir.path, Int32(MNT_DETACH))
            try? FileManager.default.removeItem(at: dir)
        }
        guard mount("tmpfs", dir.path, "tmpfs", 0, "size=4m,mode=0700") == 0 else {
            throw XCTSkip("cannot mount a tmpfs at \(dir.path) (errno \(errno)): needs root")
        }
        let terminal = try PseudoTerminal()
        let daemon = try NearcastProcess.start(["run", "--board", "sim", "--state-dir", dir.path, "--console", terminal.slavePath])
        XCTAssertNotNil(terminal.wait(for: "nearcast> "), terminal.screen)
        terminal.command("config save", expecting: "the box starts with these")
        XCTAssertEqual(PseudoTerminal.problems(try terminal.statusJSON()), [])

        // The disk fills up under the running daemon.
        let filler = dir.appendingPathComponent("filler").path
        var mark = terminal.length
        fill(filler)
        var status = try terminal.waitForStatus(timeout: 15) { PseudoTerminal.problems($0).contains("audio-missing") }
        XCTAssertEqual(PseudoTerminal.problems(status), ["audio-missing"], "the speaker's failed writes are a device problem")
        XCTAssertEqual((status["leds"] as? [String: String])?["audio"], "slow-blink")
        XCTAssertNotNil(terminal.wait(for: "No space left on device", after: mark, timeout: 10), terminal.screen)
        terminal.command("audio level 30", expecting: "warning: not saved (")
        terminal.command("audio level", expecting: "audio level 30")   // the change holds meanwhile
        // The schedule goes on while the speaker cannot write: bursts are still rendered and
        // the beacon clock moves.
        let burstsBefore = try XCTUnwrap(status["bursts"] as? Int, "\(status)")
        let timeBefore = try XCTUnwrap(status["beacon_time"] as? Int, "\(status)")
        status = try terminal.waitForStatus(timeout: 15) { ($0["bursts"] as? Int ?? 0) > burstsBefore }
        XCTAssertGreaterThan(status["bursts"] as? Int ?? 0, burstsBefore, "no burst while the disk was full")
        XCTAssertGreaterThan(status["beacon_time"] as? Int ?? 0, timeBefore)
        XCTAssertTrue(daemon.process.isRunning, "the daemon stopped on a full disk")

        // Space returns: the speaker plays again and the next change is saved.
        mark = terminal.length
        try FileManager.default.removeItem(atPath: filler)
        status = try terminal.waitForStatus(timeout: 15) { PseudoTerminal.problems($0).isEmpty }
        XCTAssertEqual(PseudoTerminal.problems(status), [], "the problem clears once the writes succeed")
        XCTAssertNotNil(terminal.wait(for: "playing again", after: mark, timeout: 10), terminal.screen)
        terminal.command("audio level 35", expecting: "audio level 35")
        kill(daemon.process.processIdentifier, SIGTERM)
        let result = try NearcastProcess.wait(daemon, timeout: 60)
        XCTAssertEqual(result.status, 0, result.stderr)
        let saved = try String(contentsOf: dir.appendingPathComponent("settings.json5"), encoding: .utf8)
        XCTAssertTrue(saved.contains("35"), saved)

        // The speaker's file is still a valid WAV file: its header's sizes match what is in it.
        let wav = try Data(contentsOf: dir.appendingPathComponent("audio.wav"))
        XCTAssertGreaterThan(wav.count, 44)
        let dataBytes = wav[40..<44].enumerated().reduce(0) { $0 | Int($1.element) << (8 * $1.offset) }
        XCTAssertEqual(dataBytes, wav.count - 44, "the data chunk's size is the bytes after the header")
        XCTAssertEqual(dataBytes % 2, 0, "whole 16-bit frames")
    }
}
