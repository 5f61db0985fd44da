import Foundation
import NotifySocketSupport
import XCTest

/// The daemon under a stand-in for systemd: the test binds the Unix datagram socket that
/// `$NOTIFY_SOCKET` names and reads what the daemon sends (sd_notify protocol).
final class SystemdEndToEndTests: XCTestCase {
    func testReadinessWatchdogAndStopAreNotified() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let socket = try NotifySocketListener(path: dir.appendingPathComponent("notify").path)
        let started = try NearcastProcess.start(["run", "--board", "sim", "--state-dir", dir.path, "--publish", "direct:abcd"],
                                                environment: ["NOTIFY_SOCKET": socket.path, "WATCHDOG_USEC": "1000000"])
        // Ready first, with a status line; then a watchdog ping every half second.
        let beforeStop = socket.receive(for: 3.5)
        kill(started.process.processIdentifier, SIGTERM)
        let afterStop = socket.receive(for: 10) { $0.contains("STOPPING=1") }
        let result = try NearcastProcess.wait(started, timeout: 30)
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stdout.contains("systemd: notifying readiness, watchdog ping every 0.5 s"), result.stdout)

        let first = try XCTUnwrap(beforeStop.first, "nothing was notified")
        XCTAssertTrue(first.text.hasPrefix("READY=1\n"), first.text)
        XCTAssertTrue(first.text.contains("STATUS=broadcasting 1 publication; audio ok; bluetooth ok"), first.text)
        XCTAssertEqual(beforeStop.filter { $0.text.contains("READY=1") }.count, 1, "READY=1 is sent once")
        let pings = beforeStop.filter { $0.text == "WATCHDOG=1" }.map(\.at)
        XCTAssertGreaterThanOrEqual(pings.count, 5, "\(beforeStop)")
        // Stopping is announced before the daemon lets go of its devices.
        XCTAssertTrue(afterStop.contains { $0.text.hasPrefix("STOPPING=1\nSTATUS=stopping (SIGTERM)") }, "\(afterStop)")
        XCTAssertTrue(result.stdout.contains("stopped (SIGTERM)"), result.stdout)
    }

    /// The watchdog pings come from the daemon's loop: when the loop hangs (`debug stall` on the
    /// console blocks it, as a deadlock would), the pings stop, so systemd's WatchdogSec
    /// restarts the daemon; when the loop runs again, so do the pings.
    func testWatchdogPingsStopWhileTheLoopHangs() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let socket = try NotifySocketListener(path: dir.appendingPathComponent("notify").path)
        let started = try NearcastProcess.start(["run", "--board", "sim", "--state-dir", dir.path, "--publish", "direct:abcd",
                                                 "--console", "none"],
                                                environment: ["NOTIFY_SOCKET": socket.path, "WATCHDOG_USEC": "1000000"])
        XCTAssertFalse(socket.receive(for: 15) { $0.contains("READY=1") }.isEmpty, "never ready")
        let consolePath = dir.appendingPathComponent("console.sock").path
        NearcastProcess.waitForConsoleSocket(consolePath, timeout: 10)
        let console = try NearcastProcess.sendConsoleLine("debug stall 3", socket: consolePath)
        defer { close(console) }
        let notes = socket.receive(for: 6)
        kill(started.process.processIdentifier, SIGTERM)
        let result = try NearcastProcess.wait(started, timeout: 30)
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stdout.contains("warning: the loop stalls for 3 s on the console's request (debug stall)"), result.stdout)
        XCTAssertTrue(result.stdout.contains("the loop runs again after the 3 s stall"), result.stdout)

        // Pings every half second, then a silence as long as the stall, then pings again. (The
        // receiving starts as the line is sent, so 0 stands for a ping just before the stall.)
        let pings = [0.0] + notes.filter { $0.text == "WATCHDOG=1" }.map(\.at)
        let gaps = zip(pings, pings.dropFirst()).map { $1 - $0 }
        let longest = try XCTUnwrap(gaps.max(), "no pings: \(notes)")
        XCTAssertGreaterThanOrEqual(longest, 2.9, "no ping may come while the loop hangs: \(pings)")
        let stallEnd = pings[try XCTUnwrap(gaps.firstIndex(of: longest)) + 1]
        XCTAssertGreaterThanOrEqual(pings.filter { $0 > stallEnd }.count, 2, "the pings resume after the stall: \(pings)")
    }

    /// SIGHUP reads the config file again: the tunables change without a gap in the broadcast,
    /// a board change waits for a restart, and a broken file changes nothing.
    func testSIGHUPReloadsTheConfigWithoutDroppingTheBroadcast() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let config = dir.appendingPathComponent("nearcast.json5")
        try "{ board: \"sim\", audioLevel: 50, bleInterval: 100 }\n".write(to: config, atomically: true, encoding: .utf8)
        let socket = try NotifySocketListener(path: dir.appendingPathComponent("notify").path)
        let started = try NearcastProcess.start(["run", "--config", config.path, "--state-dir", dir.path, "--publish", "direct:abcd"],
                                                environment: ["NOTIFY_SOCKET": socket.path])
        XCTAssertTrue(socket.receive(for: 10) { $0.contains("READY=1") }.contains { $0.text.contains("READY=1") }, "never ready")
        let pid = started.process.processIdentifier
        // The first burst is played whole at the old level: the second has started.
        XCTAssertNotNil(NearcastProcess.waitForOutput(started) { NearcastProcess.burstCount(in: $0) >= 2 },
                        NearcastProcess.output(of: started))
        try "{ board: \"rpi4b\", audioLevel: 25, bleInterval: 100 }\n".write(to: config, atomically: true, encoding: .utf8)
        kill(pid, SIGHUP)
        let reload = socket.receive(for: 5) { $0.contains("READY=1") }
        // A burst started after the reload (at the new level) is played whole: the next one has
        // started after it.
        let applied = "SIGHUP: \(config.path) reloaded: applied audioLevel 50 -> 25"
        XCTAssertNotNil(NearcastProcess.waitForOutput(started) { log in
            log.range(of: applied).map { NearcastProcess.burstCount(in: log[$0.upperBound...]) >= 2 } ?? false
        }, NearcastProcess.output(of: started))
        try "{ board: \"sim\",\n  audioLevel: \"loud\" }\n".write(to: config, atomically: true, encoding: .utf8)
        kill(pid, SIGHUP)
        XCTAssertNotNil(NearcastProcess.waitForOutput(started, containing: "the running configuration is kept"),
                        NearcastProcess.output(of: started))
        kill(pid, SIGTERM)
        let result = try NearcastProcess.wait(started, timeout: 30)
        XCTAssertEqual(result.status, 0, result.stderr)
        // RELOADING comes with the monotonic time the reload began (Type=notify-reload asks for it).
        XCTAssertTrue(reload.map(\.text).first?.hasPrefix("RELOADING=1\nMONOTONIC_USEC=") ?? false, "\(reload)")
        XCTAssertTrue(result.stdout.contains("SIGHUP: \(config.path) reloaded: applied audioLevel 50 -> 25; needs a restart: board sim -> rpi4b"),
                      result.stdout)
        XCTAssertTrue(result.stdout.contains("error: SIGHUP: \(config.path):2:15: audioLevel: expected a whole number"), result.stdout)
        XCTAssertTrue(result.stdout.contains("the running configuration is kept"), result.stdout)

        // The broadcast went on through both reloads, a burst every 1.44 s (a 0.72 s burst under
        // the 50 % duty cap), and the bursts after
        // the first reload are played at the new level (25 % instead of 50 %).
        let bursts = try NearcastProcess.decode(dir.appendingPathComponent("audio.wav").path)
        let starts = bursts.compactMap { $0["offset_s"] as? Double }
        XCTAssertGreaterThanOrEqual(starts.count, 3, "\(bursts)")
        for (a, b) in zip(starts, starts.dropFirst()) { XCTAssertEqual(b - a, 1.44, accuracy: 0.05, "a gap in the broadcast: \(starts)") }
        // Peak of each burst, from the 16-bit samples after the WAV's data chunk header.
        let wav = try Data(contentsOf: dir.appendingPathComponent("audio.wav"))
        let dataStart = try XCTUnwrap(wav.range(of: Data("data".utf8))).upperBound + 4
        let peaks = starts.map { start -> Double in
            let first = dataStart + Int(start * 48_000) * 2, last = min(wav.count - 1, first + 34_560 * 2)
            var peak = 0
            for index in stride(from: first, to: last, by: 2) {
                peak = max(peak, abs(Int(Int16(bitPattern: UInt16(wav[index]) | UInt16(wav[index + 1]) << 8))))
            }
            return Double(peak) / 32_767
        }
        XCTAssertEqual(peaks.first ?? 0, 0.5, accuracy: 0.03, "\(peaks)")
        XCTAssertEqual(peaks.last ?? 0, 0.25, accuracy: 0.03, "the level followed the reloaded config: \(peaks)")
    }

    func testWithoutANotifySocketNothingIsAttempted() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        // As the unit file runs it: no console on the terminal, the log still on stdout.
        let result = try NearcastProcess.run(["run", "--board", "sim", "--state-dir", dir.path, "--duration", "1", "--console", "none"])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertFalse(result.stdout.contains("systemd"), result.stdout)
        XCTAssertTrue(result.stdout.contains("stopped (duration reached)"), "--console none keeps the log: \(result.stdout)")
    }

    func testLogLinesCarryJournalLevelsWhenWritingToTheJournal() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        // The journal is recognised by JOURNAL_STREAM naming stdout's device and inode: a file
        // used as stdout is given that identity. A damaged beacon clock gives a warning line.
        try "garbage".write(to: dir.appendingPathComponent("beacon-clock"), atomically: true, encoding: .utf8)
        let out = dir.appendingPathComponent("journal.out")
        XCTAssertTrue(FileManager.default.createFile(atPath: out.path, contents: nil))
        var info = stat()
        XCTAssertEqual(stat(out.path, &info), 0)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: NearcastProcess.binary)
        process.arguments = ["run", "--board", "sim", "--state-dir", dir.path, "--duration", "1", "--publish", "direct:ab"]
        process.environment = ProcessInfo.processInfo.environment.merging(["JOURNAL_STREAM": "\(info.st_dev):\(info.st_ino)"]) { $1 }
        process.standardOutput = try FileHandle(forWritingTo: out)
        process.standardInput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0)
        let lines = try String(contentsOf: out, encoding: .utf8).split(separator: "\n")
        XCTAssertFalse(lines.isEmpty)
        for line in lines { XCTAssertTrue(line.hasPrefix("<6>") || line.hasPrefix("<4>") || line.hasPrefix("<3>"), String(line)) }
        XCTAssertTrue(lines.contains { $0.hasPrefix("<6>nearcast ") }, "\(lines)")
        XCTAssertTrue(lines.contains { $0.hasPrefix("<3>error: ") && $0.contains("beacon-clock: the value is not a beacon time") }, "\(lines)")
        XCTAssertTrue(lines.contains { $0.hasPrefix("<4>warning: the beacon clock starts again from 0") }, "\(lines)")
    }
}
