import Foundation
import NearcastCore
import NearcastDrivers
import NearcastNearby
import XCTest
@testable import NearcastApp

/// Console commands through a real ``ConsoleSession`` and the interpreter, on a daemon state for
/// the sim board, with the transport's test twin in place of a terminal: no process needed.
final class ConsoleCommandTests: XCTestCase {
    private var directory: URL!
    private var state: DaemonState!
    private var transport: MemoryConsoleTransport!
    private var session: ConsoleSession!
    private var logged: [String] = []

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("nearcast-console-\(UUID().uuidString)")
        let stateDirectory = try StateDirectory(path: directory.path)
        let board = try BoardLoader.load("\(BoardLoaderTests.boardsDirectory)/sim.json5")
        let encoder = try BurstEncoder(sampleRate: 48_000)
        let config = SchedulerConfiguration(ticksPerSecond: 48_000, audioBurstLength: Int64(encoder.rate.burstSamples))
        let manager = MessageManager(configuration: config, clock: BeaconClock(startingAt: 500), cipher: OpenSSLAES128(), seed: 3)
        state = DaemonState(board: board, state: stateDirectory, manager: manager, encoder: encoder, sampleRate: 48_000,
                            strategy: Strategy(mediums: .both, mode: .broadcast), faults: SimulatedFaults(),
                            log: { [unowned self] in self.logged.append($0) })
        transport = MemoryConsoleTransport(name: "test console")
        let state = self.state!
        session = ConsoleSession(port: transport, table: ConsoleInterpreter.table, colour: false, canClose: false) { line, session in
            ConsoleInterpreter.run(line, state, session: session)
        }
        session.service()
        _ = transport.takeLines()                      // the greeting
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: directory)
    }

    /// Types `line` and returns the reply lines (the echoed command first).
    private func run(_ line: String) -> [String] {
        transport.type(line + "\r")
        session.service()
        return Array(transport.takeLines().dropFirst())
    }

    func testEveryCommandHasUsageAndHelpListsThemAll() {
        let help = run("help")
        XCTAssertEqual(help.count, ConsoleInterpreter.commands.count + 1)
        for command in ConsoleInterpreter.commands {
            XCTAssertTrue(help.contains { $0.hasPrefix(command.nameText + " ") }, "\(command.nameText) missing from help")
            XCTAssertEqual(run("\(command.nameText) -h"), ["usage: \(command.usage)", "  \(command.summary)"])
        }
        XCTAssertEqual(Set(ConsoleInterpreter.commands.map { $0.nameText }).count, ConsoleInterpreter.commands.count, "names are unique")
    }

    func testArgumentCountsAreCheckedBeforeTheHandlerRuns() {
        XCTAssertEqual(run("version extra"), ["error: unexpected 'extra'", "usage: version"])
        XCTAssertEqual(run("unpublish"), ["error: missing arguments", "usage: unpublish ID"])
        XCTAssertEqual(run("consent grant now"), ["error: unexpected 'now'", "usage: consent grant|deny|show"])
        XCTAssertTrue(state.consentGranted, "the handler did not run")
        XCTAssertEqual(run("frobnicate"), ["error: unknown command 'frobnicate'; type help"])
    }

    func testPublishingChangesStateAndIsSavedAtOnce() throws {
        XCTAssertEqual(run("publish direct c0ffee ble"), ["published 0: direct token c0ffee over ble"])
        XCTAssertEqual(run("publications"), ["0: direct token c0ffee over ble, now c0ffee"])
        let saved = try XCTUnwrap(SavedSettings.load(from: state.state, log: { _ in }))
        XCTAssertEqual(saved.publications, ["direct:c0ffee@ble"])
        let bad = run("publish direct zz")
        XCTAssertEqual(bad.count, 2, "\(bad)")
        XCTAssertTrue(bad[0].hasPrefix("error: ") && bad[0].contains("zz"), "\(bad)")
        XCTAssertEqual(bad[1], "usage: publish direct HEX [audio|ble|both] | publish eid [K] [audio|ble|both] | publish message NAMESPACE/TYPE TEXT...[@audio|@ble]")
        XCTAssertEqual(state.publications.count, 1, "nothing published by a bad line")
        XCTAssertEqual(run("unpublish 0"), ["unpublished 0"])
        XCTAssertEqual(run("publications"), ["no publications"])
    }

    func testSimFaultsSwitchTheDriversFaultsAndListThem() {
        XCTAssertEqual(run("sim fault bluetooth-power on"), ["sim fault bluetooth-power on"])
        XCTAssertTrue(state.faults?.contains(.bluetoothPower) ?? false)
        XCTAssertEqual(run("sim fault bluetooth-power on"), ["sim fault bluetooth-power on (it already was)"])
        XCTAssertEqual(run("sim fault")[0], "faults on: bluetooth-power")
        XCTAssertEqual(run("sim fault bluetooth-power off"), ["sim fault bluetooth-power off"])
        XCTAssertEqual(run("sim fault")[0], "faults on: none")
        XCTAssertTrue(logged.contains("console: simulated fault bluetooth-power switched on"), "\(logged)")
    }

    func testStatusListsTheManagersProblemsAndTheLEDsFollowThem() throws {
        state.manager.report(.bluetoothPower, present: true)
        state.manager.report(.audioMissing, present: true)
        XCTAssertTrue(run("status").contains("drivers: audio wav ok, bluetooth sim ok; problems: audio-missing, bluetooth-power"))
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(run("status --json")[0].utf8)) as? [String: Any])
        XCTAssertEqual((json["drivers"] as? [String: Any])?["problems"] as? [String], ["audio-missing", "bluetooth-power"])
        XCTAssertEqual(state.deviceStates.audio, .missing)
        XCTAssertEqual(state.deviceStates.bluetooth, .poweredOff)
        state.manager.report(.audioMissing, present: false)
        XCTAssertEqual(state.deviceStates.audio, .ok)
    }

    func testAPINGuardsTheCommandsThatChangeTheBox() throws {
        try state.pin.set("2468")
        XCTAssertEqual(run("publish direct c0ffee"), ["error: 'publish' changes the box and needs the technician PIN: type login"])
        XCTAssertEqual(run("sim fault audio-missing on"), ["error: 'sim' changes the box and needs the technician PIN: type login"])
        XCTAssertEqual(run("sim fault")[0], "faults on: none", "listing is reading")
        XCTAssertEqual(run("status").first, "strategy: mediums both, mode broadcast")
        XCTAssertEqual(run("login"), ["PIN: "])
        transport.type("2468\r")                         // not echoed: the reply is the first line
        session.service()
        XCTAssertEqual(transport.takeLines(), ["logged in (logout ends it; 10 minutes idle end it too)"])
        XCTAssertEqual(run("publish direct c0ffee"), ["published 0: direct token c0ffee over both"])
    }
}
