import Foundation
import XCTest

/// The box on a full disk: the sim board with its state directory on a 4 MiB tmpfs (the speaker's
/// WAV file lives there too), filled while the daemon runs. A device that fails is a problem to
/// report and recover from, never a reason to stop: the speaker's writes fail and are reported
/// (status, LED, log), a console change says it was not saved and still holds, broadcasting goes
/// on, and once space returns the speaker plays again and the next save succeeds. Needs root to
/// mount the tmpfs (skipped otherwise).
final class FullDiskEndToEndTests: XCTestCase {

    /// A tmpfs of `megabytes` on a new temporary directory (skips the test without root).
    private func mountTmpfs(megabytes: Int) throws -> URL {
        let dir = try makeTemporaryDirectory()
        guard mount("tmpfs", dir.path, "tmpfs", 0, "size=\(megabytes)m,mode=0700") == 0 else {
            let error = errno
            try? FileManager.default.removeItem(at: dir)
            throw XCTSkip("cannot mount a tmpfs at \(dir.path) (errno \(error)): needs root")
        }
        return dir
    }

    private func unmount(_ dir: URL) {
        _ = umount2(dir.path, Int32(MNT_DETACH))
        try? FileManager.default.removeItem(at: dir)
    }

    /// Writes zeros into `path` until the file system refuses (ENOSPC).
    private func fill(_ path: String) {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        precondition(descriptor >= 0, "open \(path): errno \(errno)")
        defer { close(descriptor) }
        let block = [UInt8](repeating: 0, count: 64 * 1024)
        while block.withUnsafeBytes({ write(descriptor, $0.baseAddress, $0.count) }) > 0 {}
    }

    /// A disk full before the daemon starts: the beacon clock's reservation cannot be saved (a
    /// power cut now could send the clock back), which `status` and the status LED (lit steadily
    /// where the heartbeat blinks) show while the box broadcasts; once space returns, the save
    /// retried a minute later succeeds and both clear.
    func testAStateDiskFullAtStartIsShownOnTheStatusLEDUntilASaveSucceeds() throws {
        let dir = try mountTmpfs(megabytes: 16)
        defer { unmount(dir) }
        // 16 MiB: the sim speaker's WAV file (96 kB/s) must not fill the freed space again
        // before the save is retried a minute later.
        let filler = dir.appendingPathComponent("filler").path
        fill(filler)
        let terminal = try PseudoTerminal()
        let daemon = try NearcastProcess.start(["run", "--board", "sim", "--state-dir", dir.path, "--console", terminal.slavePath])
        XCTAssertNotNil(terminal.wait(for: "nearcast> "), terminal.screen)
        var status = try terminal.waitForStatus(timeout: 15) {
            ($0["drivers"] as? [String: Any])?["state_detail"] is String && ($0["leds"] as? [String: String])?["status"] == "on"
        }
        let detail = (status["drivers"] as? [String: Any])?["state_detail"] as? String
        XCTAssertTrue(detail?.contains("No space left on device") == true, "\(status)")
        XCTAssertEqual((status["leds"] as? [String: String])?["status"], "on", "the status LED lit steadily: \(status)")
        terminal.command("status", expecting: "state: not saved (")
        let burstsBefore = try XCTUnwrap(status["bursts"] as? Int, "\(status)")
        status = try terminal.waitForStatus(timeout: 15) { ($0["bursts"] as? Int ?? 0) > burstsBefore }
        XCTAssertGreaterThan(status["bursts"] as? Int ?? 0, burstsBefore, "broadcasting goes on")

        try FileManager.default.removeItem(atPath: filler)
        // The retry comes BeaconClockReservation.retrySeconds (60 s) after the failed write.
        // (The LEDs follow at the next audio period: wait for both, or a status read between
        // the save and that period sees the problem gone and the LED still lit.)
        status = try terminal.waitForStatus(timeout: 90) {
            ($0["drivers"] as? [String: Any])?["state_detail"] is NSNull && ($0["leds"] as? [String: String])?["status"] == "slow-blink"
        }
        XCTAssertTrue((status["drivers"] as? [String: Any])?["state_detail"] is NSNull, "\(status)")
        XCTAssertEqual((status["leds"] as? [String: String])?["status"], "slow-blink", "the heartbeat is back")
        let saved = try String(contentsOf: dir.appendingPathComponent("beacon-clock"), encoding: .utf8)
        XCTAssertFalse(saved.isEmpty)
        kill(daemon.process.processIdentifier, SIGTERM)
        let result = try NearcastProcess.wait(daemon, timeout: 60)
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stdout.contains("warning: beacon clock reservation not saved"), result.stdout)
        XCTAssertTrue(result.stdout.contains("state directory writable again"), result.stdout)
    }

    func testAFullStateDiskIsReportedTheBoxGoesOnAndRecoversWhenSpaceReturns() throws {
        let dir = try mountTmpfs(megabytes: 4)
        defer { unmount(dir) }
        let terminal = try PseudoTerminal()
        let daemon = try NearcastProcess.start(["run", "--board", "sim", "--state-dir", dir.path, "--console", terminal.slavePath])
        XCTAssertNotNil(terminal.wait(for: "nearcast> "), terminal.screen)
        terminal.command("config save", expecting: "the box starts with these")
        XCTAssertEqual(PseudoTerminal.problems(try terminal.statusJSON()), [])

        // The disk fills up under the running daemon.
        let filler = dir.appendingPathComponent("filler").path
        var mark = terminal.length
        fill(filler)
        var status = try terminal.waitForStatus(timeout: 15) {   // the LEDs follow at the next period
            PseudoTerminal.problems($0).contains("audio-missing") && ($0["leds"] as? [String: String])?["audio"] == "slow-blink"
        }
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
