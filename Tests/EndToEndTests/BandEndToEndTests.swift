import Foundation
import XCTest

/// The second band through the real binary: `encode --band`, `decode --band` and its JSON's
/// band, and a sim box sending both bands, switched on its console and saved.
final class BandEndToEndTests: XCTestCase {
    func testALowBandBurstIsDecodedAndSaysItsBandAndAHighOnlyDecodeDoesNotHearIt() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("low.wav").path
        let encoded = try NearcastProcess.run(["encode", "--payload", "c0ffee", "--band", "low", "--out", path])
        XCTAssertEqual(encoded.status, 0, encoded.stderr)
        XCTAssertTrue(encoded.stdout.contains("in the low band (15000-16500 Hz)"), encoded.stdout)

        let tokens = try NearcastProcess.decode(path)
        XCTAssertEqual(tokens.map { $0["payload"] as? String }, ["c0ffee"])
        XCTAssertEqual(tokens.map { $0["band"] as? String }, ["low"])
        let highOnly = try NearcastProcess.run(["decode", path, "--json", "--band", "high"])
        XCTAssertEqual(highOnly.status, 0, highOnly.stderr)
        XCTAssertEqual(highOnly.stdout, "", "the high band's decoder does not hear a low-band burst")
        let text = try NearcastProcess.run(["decode", path, "--band", "low"])
        XCTAssertTrue(text.stdout.contains("c0ffee") && text.stdout.contains("low band)"), text.stdout)

        for (arguments, message) in [
            (["encode", "--payload", "01", "--band", "mid", "--out", path], "--band"),
            (["decode", path, "--band", "all"], "--band"),
            (["run", "--board", "sim", "--band", "ultra", "--duration", "1", "--state-dir", dir.path], "--band"),
        ] {
            let result = try NearcastProcess.run(arguments)
            XCTAssertNotEqual(result.status, 0, "\(arguments)")
            XCTAssertTrue(result.stderr.contains(message) && result.stderr.contains("high"), "\(arguments): \(result.stderr)")
        }
    }

    func testABoxSendingBothBandsAlternatesThemBurstByBurst() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        // Bursts at 0, 1.44, 2.88 and 4.32 s.
        let run = try NearcastProcess.run(["run", "--board", "sim", "--duration", "5", "--state-dir", dir.path,
                                           "--payload", "c0ffee0000000002", "--band", "both", "--console", "none"])
        XCTAssertEqual(run.status, 0, run.stderr)
        let tokens = try NearcastProcess.decode(dir.appendingPathComponent("audio.wav").path)
        XCTAssertEqual(tokens.map { $0["payload"] as? String }, Array(repeating: "c0ffee0000000002", count: 4), "\(tokens)")
        XCTAssertEqual(tokens.map { $0["band"] as? String }, ["high", "low", "high", "low"])
    }

    func testTheConsoleSwitchesTheBandFromTheNextBurstAndConfigSaveKeepsIt() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let terminal = try PseudoTerminal()
        let daemon = try NearcastProcess.start(["run", "--board", "sim", "--state-dir", dir.path, "--payload", "c0ffee",
                                                "--console", terminal.slavePath])
        XCTAssertNotNil(terminal.wait(for: "nearcast> "), terminal.screen)
        terminal.command("audio band", expecting: "audio band high (18500-20000 Hz")
        var status = try terminal.statusJSON()
        XCTAssertEqual(status["audio_band"] as? String, "high")
        terminal.command("audio band low", expecting: "audio band low (15000-16500 Hz; from the next burst)")
        terminal.command("audio band sideways", expecting: "band must be high, low or both")
        status = try terminal.statusJSON()
        XCTAssertEqual(status["audio_band"] as? String, "low")
        // Two more bursts: at least one of them whole in the low band.
        let bursts = status["bursts"] as? Int ?? 0
        status = try terminal.waitForStatus(timeout: 15) { ($0["bursts"] as? Int ?? 0) >= bursts + 2 }
        terminal.command("config save", expecting: "the box starts with these")
        let saved = try String(contentsOf: dir.appendingPathComponent("settings.json5"), encoding: .utf8)
        XCTAssertTrue(saved.contains("audioBand: \"low\""), saved)
        kill(daemon.process.processIdentifier, SIGTERM)
        let result = try NearcastProcess.wait(daemon, timeout: 60)
        XCTAssertEqual(result.status, 0, result.stderr)
        let bands = try NearcastProcess.decode(dir.appendingPathComponent("audio.wav").path).map { $0["band"] as? String ?? "?" }
        XCTAssertEqual(bands.first, "high", "\(bands)")
        XCTAssertEqual(bands.last, "low", "\(bands)")
        XCTAssertEqual(bands.drop { $0 == "high" }.filter { $0 == "high" }, [], "no high burst after the switch: \(bands)")

        // The saved band is the one the box starts with.
        let again = try NearcastProcess.run(["run", "--board", "sim", "--state-dir", dir.path, "--duration", "2", "--console", "none"])
        XCTAssertEqual(again.status, 0, again.stderr)
        XCTAssertTrue(again.stdout.contains("band low"), again.stdout)
        let restarted = try NearcastProcess.decode(dir.appendingPathComponent("audio.wav").path)
        XCTAssertFalse(restarted.isEmpty)
        XCTAssertEqual(Set(restarted.map { $0["band"] as? String ?? "?" }), ["low"])
    }
}
