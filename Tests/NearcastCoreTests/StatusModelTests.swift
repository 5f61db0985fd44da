import XCTest
import NearcastCore

final class StatusModelTests: XCTestCase {
    func testPatternsBlinkAtTheirRates() {
        func litMilliseconds(_ pattern: LEDPattern, over span: Int64) -> Int {
            (0..<span).filter { pattern.isLit(atMilliseconds: $0) }.count
        }
        XCTAssertEqual(litMilliseconds(.off, over: 2_000), 0)
        XCTAssertEqual(litMilliseconds(.on, over: 2_000), 2_000)
        XCTAssertEqual(litMilliseconds(.slowBlink, over: 2_000), 1_000)
        XCTAssertTrue(LEDPattern.slowBlink.isLit(atMilliseconds: 0))
        XCTAssertFalse(LEDPattern.slowBlink.isLit(atMilliseconds: 500))
        XCTAssertEqual(litMilliseconds(.fastBlink, over: 1_000), 500)
        // 5 Hz: five separate lit stretches in a second.
        let edges = (1..<1_000).filter { LEDPattern.fastBlink.isLit(atMilliseconds: Int64($0)) && !LEDPattern.fastBlink.isLit(atMilliseconds: Int64($0 - 1)) }
        XCTAssertEqual(edges.count, 4, "rising edges at 200, 400, 600, 800 ms (and 0)")
        // Three pulses of 150 ms, then a gap: 3 × 150 ms lit in a 1.9 s cycle, and the cycle repeats.
        XCTAssertEqual(litMilliseconds(.pulses(count: 3), over: 1_900), 450)
        XCTAssertEqual(LEDPattern.pulses(count: 3).isLit(atMilliseconds: 1_900), true)
        XCTAssertFalse(LEDPattern.pulses(count: 3).isLit(atMilliseconds: 1_000))
        XCTAssertTrue(LEDPattern.slowBlink.isLit(atMilliseconds: -900), "negative times still blink")
        XCTAssertEqual(LEDPattern.pulses(count: 2).name, "pulse-2")
    }

    /// Every row and column of the LED table (docs/design.md).
    func testTheStatusModelIsTheDesignTable() {
        func patterns(_ states: DeviceStates) -> [LEDPattern] { StatusLED.allCases.map { StatusModel.pattern(for: $0, states) } }
        XCTAssertEqual(patterns(DeviceStates(broadcasting: false)), [.off, .off, .off, .off], "stopped, all ok, consent given")
        XCTAssertEqual(patterns(DeviceStates(broadcasting: true)), [.slowBlink, .off, .off, .off], "the heartbeat")
        XCTAssertEqual(StatusModel.pattern(for: .status, DeviceStates(broadcasting: true, fatal: true)), .fastBlink, "fatal wins")
        // The status LED's "on" cell (docs/design.md's LED table): state not saved, broadcasting or not.
        XCTAssertEqual(patterns(DeviceStates(broadcasting: true, stateNotSaved: true)), [.on, .off, .off, .off])
        XCTAssertEqual(StatusModel.pattern(for: .status, DeviceStates(broadcasting: false, stateNotSaved: true)), .on)
        XCTAssertEqual(StatusModel.pattern(for: .status, DeviceStates(fatal: true, stateNotSaved: true)), .fastBlink, "fatal still wins")
        XCTAssertEqual(StatusModel.pattern(for: .audio, DeviceStates(audio: .permissionDenied)), .on)
        XCTAssertEqual(StatusModel.pattern(for: .audio, DeviceStates(audio: .missing)), .slowBlink)
        XCTAssertEqual(StatusModel.pattern(for: .audio, DeviceStates(audio: .underruns)), .fastBlink)
        XCTAssertEqual(StatusModel.pattern(for: .ble, DeviceStates(bluetooth: .permissionDenied)), .on)
        XCTAssertEqual(StatusModel.pattern(for: .ble, DeviceStates(bluetooth: .poweredOff)), .slowBlink)
        XCTAssertEqual(StatusModel.pattern(for: .ble, DeviceStates(bluetooth: .noAdapter)), .fastBlink)
        XCTAssertEqual(StatusModel.pattern(for: .consent, DeviceStates(consentGranted: false)), .on)
        XCTAssertEqual(StatusModel.pattern(for: .status, DeviceStates(broadcasting: false, consentGranted: false)), .off)
        // Priorities among a driver's states: the worse one shows.
        XCTAssertEqual([AudioHealth.underruns, .permissionDenied, .missing].max(), .permissionDenied)
        XCTAssertEqual([BluetoothHealth.poweredOff, .noAdapter].max(), .noAdapter)
    }

    func testThePanelReportsOnlyChangesAndWalksEachLEDAloneThenResumes() {
        var panel = LEDPanel()
        var changes: [(StatusLED, Bool, Int64)] = []
        let states = DeviceStates(broadcasting: true, consentGranted: false)
        func run(_ from: Int64, _ to: Int64) {
            for t in stride(from: from, to: to, by: 10) { panel.update(states: states, atMilliseconds: t) { changes.append(($0, $1, t)) } }
        }
        run(0, 10)
        XCTAssertEqual(changes.map(\.0), StatusLED.allCases, "the first update sets every line")
        XCTAssertEqual(changes.map(\.1), [true, false, false, true])
        changes.removeAll()
        run(10, 2_000)
        XCTAssertEqual(changes.map { "\($0.0.rawValue) \($0.1) \($0.2)" }, ["status false 500", "status true 1000", "status false 1500"])
        changes.removeAll()
        panel.startWalk(atMilliseconds: 2_000)
        XCTAssertTrue(panel.isWalking)
        run(2_000, 7_000)
        XCTAssertFalse(panel.isWalking)
        let walk = changes.filter { $0.2 < 6_000 }.map { "\($0.0.rawValue) \($0.1) \($0.2)" }
        XCTAssertEqual(walk, ["status true 2000", "consent false 2000",
                              "status false 3000", "audio true 3000",
                              "audio false 4000", "ble true 4000",
                              "ble false 5000", "consent true 5000"])
        XCTAssertEqual(changes.filter { $0.2 >= 6_000 }.map { "\($0.0.rawValue) \($0.1) \($0.2)" },
                       ["status true 6000", "status false 6500"], "back to the heartbeat; consent stays on")
        XCTAssertEqual(panel.pattern(of: .consent), .on)
        XCTAssertTrue(panel.isLit(.consent))
    }
}
