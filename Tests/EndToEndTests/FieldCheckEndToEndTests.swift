import Foundation
import XCTest

/// The field check through the real binary: `encode --field-check` and `check`, and a sim box
/// playing the sequence on its console's `audio sweep`, once and repeated, measured by `check`
/// in what its speaker played.
final class FieldCheckEndToEndTests: XCTestCase {
    private func sweeps(_ path: String) throws -> [[String: Any]] {
        let result = try NearcastProcess.run(["check", path, "--json"])
        XCTAssertEqual(result.status, 0, result.stderr)
        return try result.stdout.split(separator: "\n").map {
            try XCTUnwrap(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
    }

    private func bands(_ sweep: [String: Any]) -> [String: [String: Any]] {
        Dictionary(uniqueKeysWithValues: (sweep["bands"] as? [[String: Any]] ?? []).map { ($0["band"] as? String ?? "?", $0) })
    }

    func testTheSequenceFileIsMeasuredAsHeardInBothBands() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("check.wav").path
        let written = try NearcastProcess.run(["encode", "--field-check", "--rate", "44100", "--out", path])
        XCTAssertEqual(written.status, 0, written.stderr)
        XCTAssertTrue(written.stdout.contains("the field check's sequence, 3.94 s at 44100 Hz"), written.stdout)
        let found = try sweeps(path)
        XCTAssertEqual(found.count, 1)
        XCTAssertEqual(found.first?["verdict"] as? String, "both")
        XCTAssertEqual((found.first?["tones"] as? [Any])?.count, 19)
        for (name, band) in bands(try XCTUnwrap(found.first)) {
            XCTAssertEqual(band["decoded"] as? Bool, true, name)
            XCTAssertEqual(band["level_db"] as? Double ?? 0, -6.0, accuracy: 0.5, name)
        }
        let text = try NearcastProcess.run(["check", path])
        XCTAssertTrue(text.stdout.contains("use both"), text.stdout)
        XCTAssertTrue(text.stdout.contains("1 sweep in 3.94 s"), text.stdout)

        let refused = try NearcastProcess.run(["encode", "--field-check", "--payload", "01", "--out", path])
        XCTAssertEqual(refused.status, 64)
        XCTAssertTrue(refused.stderr.contains("leave out --payload"), refused.stderr)
        let missing = try NearcastProcess.run(["check", dir.appendingPathComponent("none.wav").path])
        XCTAssertNotEqual(missing.status, 0)
        XCTAssertTrue(missing.stderr.contains("none.wav"), missing.stderr)
    }

    func testSweepEveryOnTheCommandLinePlaysTheCheckFromTheStart() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let run = try NearcastProcess.run(["run", "--board", "sim", "--state-dir", dir.path, "--duration", "12", "--payload", "c0ffee",
                                           "--sweep-every", "5", "--console", "none"])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertTrue(run.stdout.contains("field check: the sweep plays every 5 s (from the command line"), run.stdout)
        let found = try sweeps(dir.appendingPathComponent("audio.wav").path)
        XCTAssertGreaterThanOrEqual(found.count, 2, "\(found)")
        XCTAssertEqual(Set(found.map { $0["verdict"] as? String ?? "?" }), ["both"])
        let refused = try NearcastProcess.run(["run", "--board", "sim", "--state-dir", dir.path, "--duration", "1", "--sweep-every", "2"])
        XCTAssertEqual(refused.status, 64)
        XCTAssertTrue(refused.stderr.contains("--sweep-every 2: use 5 to 3600 seconds"), refused.stderr)
    }

    func testTheConfigFilesSweepStartsWithTheBoxAndSIGHUPWithoutItStopsIt() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let config = dir.appendingPathComponent("nearcast.json5")
        try "{ board: \"sim\", audioSweepEvery: 5 }\n".write(to: config, atomically: true, encoding: .utf8)
        let started = try NearcastProcess.start(["run", "--config", config.path, "--state-dir", dir.path, "--publish", "direct:abcd",
                                                 "--console", "none"])
        let sequence = "audio sweep: the field check's sequence"
        XCTAssertNotNil(NearcastProcess.waitForOutput(started) { $0.components(separatedBy: sequence).count - 1 >= 2 },
                        NearcastProcess.output(of: started))
        try "{ board: \"sim\" }\n".write(to: config, atomically: true, encoding: .utf8)
        kill(started.process.processIdentifier, SIGHUP)
        let applied = "applied audioSweepEvery 5 -> (default) (no more sweeps)"
        // After the reload: 6 bursts (8.6 s, more than one interval) and no sweep among them.
        XCTAssertNotNil(NearcastProcess.waitForOutput(started) { log in
            log.range(of: applied).map { NearcastProcess.burstCount(in: log[$0.upperBound...]) >= 6 } ?? false
        }, NearcastProcess.output(of: started))
        kill(started.process.processIdentifier, SIGTERM)
        let result = try NearcastProcess.wait(started, timeout: 30)
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stdout.contains("field check: the sweep plays every 5 s (from the config file"), result.stdout)
        let afterReload = try XCTUnwrap(result.stdout.range(of: applied)).upperBound
        XCTAssertFalse(result.stdout[afterReload...].contains(sequence), "a sweep after the reload: \(result.stdout)")
    }

    func testTheConsolesSweepPlaysTheSequenceOnceAndThenEveryNSeconds() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let terminal = try PseudoTerminal()
        let daemon = try NearcastProcess.start(["run", "--board", "sim", "--state-dir", dir.path, "--payload", "c0ffee",
                                                "--band", "both", "--console", terminal.slavePath])
        XCTAssertNotNil(terminal.wait(for: "nearcast> "), terminal.screen)
        terminal.command("audio band", expecting: "alternating 18500-20000 Hz and 15000-16500 Hz burst by burst")
        terminal.command("audio sweep", expecting: "19 tones from 12000 to 21000 Hz")
        terminal.command("audio sweep every 2", expecting: "every takes 5 to 3600 seconds, not '2'")
        terminal.command("audio sweep sideways", expecting: "audio sweep [every SECONDS|off]")
        // The first sweep plays within a burst's length and lasts 3.94 s; then one every 5 s
        // (at +0, +5 and +10 s of stream time: three more).
        func uptime(_ status: [String: Any]) -> Double { status["uptime_s"] as? Double ?? 0 }
        let asked = uptime(try terminal.statusJSON())
        _ = try terminal.waitForStatus(timeout: 30) { uptime($0) >= asked + 6 }
        XCTAssertTrue(try terminal.statusJSON()["audio_sweep_every_s"] is NSNull)
        terminal.command("audio sweep every 5", expecting: "audio sweep every 5 s")
        terminal.command("status", expecting: "audio sweep every 5 s (audio sweep off stops it)")
        let repeated = uptime(try terminal.statusJSON())
        XCTAssertEqual(try terminal.statusJSON()["audio_sweep_every_s"] as? Int, 5)
        _ = try terminal.waitForStatus(timeout: 60) { uptime($0) >= repeated + 15 }
        terminal.command("audio sweep off", expecting: "no more repeated sweeps")
        _ = try terminal.waitForStatus(timeout: 10) { $0["audio_sweep_every_s"] is NSNull }
        kill(daemon.process.processIdentifier, SIGTERM)
        let result = try NearcastProcess.wait(daemon, timeout: 60)
        XCTAssertEqual(result.status, 0, result.stderr)
        let log = result.stdout
        XCTAssertGreaterThanOrEqual(log.components(separatedBy: "audio sweep: the field check's sequence (3.94 s)").count - 1, 4, log)
        XCTAssertTrue(log.contains("audio burst left out while the field check plays"), log)
        let found = try sweeps(dir.appendingPathComponent("audio.wav").path)
        XCTAssertGreaterThanOrEqual(found.count, 4, "\(found)")
        for sweep in found {
            XCTAssertEqual(sweep["verdict"] as? String, "both", "\(sweep)")
            for (name, band) in bands(sweep) { XCTAssertEqual(band["decoded"] as? Bool, true, "\(name): \(sweep)") }
        }
    }
}
