import Foundation
import XCTest

/// Device health end to end: a fault injected on the sim board's console (`sim fault NAME on`)
/// makes a simulated driver fail as its real twin does, and the failure reaches the Nearby error
/// handler (its log line), `status --json`'s problems and the right LED pattern, and all of it
/// clears when the fault does. Real drivers' failures (a missing ALSA card, a missing UART
/// controller) take the same path, and faults cannot be injected on a real board.
final class DeviceFaultEndToEndTests: XCTestCase {
    /// Each fault, the handler line it raises, and the LED and pattern it shows.
    private let faults: [(name: String, handler: String, led: String, pattern: String)] = [
        ("bluetooth-power", "onBluetoothPowerError", "ble", "slow-blink"),
        ("bluetooth-permission", "onBluetoothPermissionError", "ble", "on"),
        ("bluetooth-no-adapter", "onProblem", "ble", "fast-blink"),
        ("audio-missing", "onProblem", "audio", "slow-blink"),
        ("audio-permission", "onProblem", "audio", "on"),
        ("microphone-permission", "onMicrophonePermissionError", "audio", "on"),
        ("audio-underruns", "onProblem", "audio", "fast-blink"),
    ]


    private func led(_ name: String, _ status: [String: Any]) -> String? {
        (status["leds"] as? [String: String])?[name]
    }

    func testEachInjectedFaultReachesTheHandlerStatusAndLEDsAndClears() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let terminal = try PseudoTerminal()
        let daemon = try NearcastProcess.start(["run", "--board", "sim", "--state-dir", dir.path, "--console", terminal.slavePath])
        XCTAssertNotNil(terminal.wait(for: "nearcast> "), terminal.screen)
        // Listening over audio opens the simulated microphone (its fault needs it open).
        terminal.command("strategy mode both", expecting: "strategy: mediums both, mode both")
        var status = try terminal.statusJSON()
        XCTAssertEqual(PseudoTerminal.problems(status), [])
        XCTAssertEqual((status["drivers"] as? [String: Any])?["simulated_faults"] as? [String], [])

        terminal.command("sim fault", expecting: "faults on: none")
        terminal.command("sim fault bluetooth-melted on", expecting: "error: no fault 'bluetooth-melted'")
        terminal.command("sim fault audio-missing sideways", expecting: "error: sim fault NAME on|off")

        for fault in faults {
            var mark = terminal.length
            terminal.command("sim fault \(fault.name) on", expecting: "sim fault \(fault.name) on")
            XCTAssertNotNil(terminal.wait(for: "nearby: \(fault.handler)(true): \(fault.name)", after: mark, timeout: 15),
                            "\(fault.name): no handler line\n\(terminal.screen)")
            // The LEDs follow the problems at the next audio period: wait for both.
            status = try terminal.waitForStatus(timeout: 10) {
                PseudoTerminal.problems($0).contains(fault.name) && led(fault.led, $0) == fault.pattern
            }
            XCTAssertEqual(PseudoTerminal.problems(status), [fault.name], fault.name)
            XCTAssertEqual(led(fault.led, status), fault.pattern, "\(fault.name): \(status["leds"] ?? "")")
            XCTAssertEqual((status["drivers"] as? [String: Any])?["simulated_faults"] as? [String], [fault.name])

            mark = terminal.length
            terminal.command("sim fault \(fault.name) off", expecting: "sim fault \(fault.name) off")
            // Bluetooth comes back at the radio's next retry (1 s after a short fault); underruns
            // stay "recent" for the LED's 10 s hold.
            XCTAssertNotNil(terminal.wait(for: "nearby: \(fault.handler)(false): \(fault.name) cleared", after: mark, timeout: 20),
                            "\(fault.name): not cleared\n\(terminal.screen)")
            status = try terminal.waitForStatus(timeout: 5) { PseudoTerminal.problems($0).isEmpty && led(fault.led, $0) == "off" }
            XCTAssertEqual(PseudoTerminal.problems(status), [], fault.name)
            XCTAssertEqual(led(fault.led, status), "off", "\(fault.name): \(status["leds"] ?? "")")
        }
        kill(daemon.process.processIdentifier, SIGTERM)
        let result = try NearcastProcess.wait(daemon, timeout: 60)
        XCTAssertEqual(result.status, 0, result.stderr)

        // The LEDs really did what status said, and the controller's log shows the losses and
        // the sets put back on the air after each.
        let leds = try String(contentsOf: dir.appendingPathComponent("leds.log"), encoding: .utf8)
        XCTAssertTrue(leds.contains("led ble on") && leds.contains("led audio on"), leds)
        let ble = try String(contentsOf: dir.appendingPathComponent("ble.log"), encoding: .utf8)
        for name in ["bluetooth-power", "bluetooth-permission", "bluetooth-no-adapter"] {
            let lost = try XCTUnwrap(ble.range(of: "controller lost (simulated fault \(name))"), ble)
            XCTAssertTrue(ble[lost.upperBound...].contains("advertise"), "advertising again after \(name):\n\(ble)")
        }
        // The daemon's own log has the radio's and the speaker's words for it.
        XCTAssertTrue(result.stdout.contains("bluetooth: controller back after: bluetooth powered off"), result.stdout)
        XCTAssertTrue(result.stdout.contains("audio device missing"), result.stdout)
    }

    /// A board with a missing ALSA card and a missing UART controller: the real drivers' problems
    /// reach the handlers and status the same way, and `sim fault` is refused.
    func testRealDriversReportTheirProblemsAndFaultsAreRefusedOnARealBoard() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let (board, config) = try writeBrokenBoard(in: dir)
        let terminal = try PseudoTerminal()
        let daemon = try NearcastProcess.start(["run", "--board", board.path, "--state-dir", dir.path, "--console", terminal.slavePath],
                                               environment: ["ALSA_CONFIG_PATH": config.path])
        XCTAssertNotNil(terminal.wait(for: "nearcast> "), terminal.screen)
        let status = try terminal.waitForStatus(timeout: 10) { PseudoTerminal.problems($0).count == 2 }
        XCTAssertEqual(PseudoTerminal.problems(status), ["audio-missing", "bluetooth-no-adapter"])
        XCTAssertEqual(led("audio", status), "slow-blink")
        XCTAssertEqual(led("ble", status), "fast-blink")
        let drivers = try XCTUnwrap(status["drivers"] as? [String: Any])
        XCTAssertTrue((drivers["bluetooth_detail"] as? String ?? "").contains("no-such-uart"), "\(drivers)")
        XCTAssertNil(drivers["simulated_faults"], "a real board has no fault switches")
        terminal.command("sim fault bluetooth-power on", expecting: "error: board broken is not the simulated board")
        kill(daemon.process.processIdentifier, SIGTERM)
        let result = try NearcastProcess.wait(daemon, timeout: 60)
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stdout.contains("nearby: onProblem(true): audio-missing (audio device missing)"), result.stdout)
        XCTAssertTrue(result.stdout.contains("nearby: onProblem(true): bluetooth-no-adapter (no bluetooth adapter)"), result.stdout)
    }
}
