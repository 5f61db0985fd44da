import Foundation
import NearcastCore
import NearcastDrivers
import NearcastNearby
import XCTest
@testable import NearcastApp

/// Console commands through a real ``ConsoleSession`` and the interpreter, on the parts of a box for
/// the sim board, with the transport's test twin in place of a terminal: no process needed.
final class ConsoleCommandTests: XCTestCase {
    private var directory: URL!
    private var box: Box!
    private var interpreter: ConsoleInterpreter!
    private var transport: MemoryConsoleTransport!
    private var session: ConsoleSession!
    private var logged: [String] = []

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("nearcast-console-\(UUID().uuidString)")
        let stateDirectory = try StateDirectory(path: directory.path)
        let board = try BoardLoader.load("\(BoardLoaderTests.boardsDirectory)/sim.json5")
        let encoder = try MultiBandEncoder(sampleRate: 48_000)
        let config = SchedulerConfiguration(ticksPerSecond: 48_000, audioBurstLength: Int64(encoder.rate.burstSamples))
        let manager = MessageManager(configuration: config, clock: BeaconClock(startingAt: 500), cipher: OpenSSLAES128(), seed: 3)
        let devices = try Devices.open(board, state: stateDirectory, log: { _ in })
        box = Box(board: board, stateDirectory: stateDirectory, manager: manager, encoder: encoder, devices: devices,
                  strategy: Strategy(mediums: .both, mode: .broadcast), listenMediums: .both,
                  advertising: AdvertisingSettings(txPower: -12, intervalMilliseconds: 100), hub: nil,
                  reservation: BeaconClockReservation(saved: 500),
                  log: { [unowned self] in self.logged.append($0) })
        transport = MemoryConsoleTransport(name: "test console")
        let interpreter = ConsoleInterpreter(box: box)
        self.interpreter = interpreter
        session = ConsoleSession(port: transport, table: interpreter.table, colour: false, canClose: false) { line, session in
            interpreter.run(line, session: session)
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
        XCTAssertEqual(help.count, interpreter.commands.count + 1)
        for command in interpreter.commands {
            XCTAssertTrue(help.contains { $0.hasPrefix(command.nameText + " ") }, "\(command.nameText) missing from help")
            XCTAssertEqual(run("\(command.nameText) -h"), ["usage: \(command.usage)", "  \(command.summary)"])
        }
        XCTAssertEqual(Set(interpreter.commands.map { $0.nameText }).count, interpreter.commands.count, "names are unique")
    }

    func testArgumentCountsAreCheckedBeforeTheHandlerRuns() {
        XCTAssertEqual(run("version extra"), ["error: unexpected 'extra'", "usage: version"])
        XCTAssertEqual(run("unpublish"), ["error: missing arguments", "usage: unpublish ID"])
        XCTAssertEqual(run("consent grant now"), ["error: unexpected 'now'", "usage: consent grant|deny|show"])
        XCTAssertTrue(box.consent.isGranted, "the handler did not run")
        XCTAssertEqual(run("frobnicate"), ["error: unknown command 'frobnicate'; type help"])
    }

    func testPublishingChangesStateAndIsSavedAtOnce() throws {
        XCTAssertEqual(run("publish direct c0ffee ble"), ["published 0: direct token c0ffee over ble"])
        XCTAssertEqual(run("publications"), ["0: direct token c0ffee over ble, now c0ffee"])
        let saved = try XCTUnwrap(SavedSettings.load(from: box.stateDirectory, log: { _ in }))
        XCTAssertEqual(saved.publications, ["direct:c0ffee@ble"])
        let bad = run("publish direct zz")
        XCTAssertEqual(bad.count, 2, "\(bad)")
        XCTAssertTrue(bad[0].hasPrefix("error: ") && bad[0].contains("zz"), "\(bad)")
        XCTAssertEqual(bad[1], "usage: publish direct HEX [audio|ble|both] | publish eid [K] [audio|ble|both] | publish message NAMESPACE/TYPE TEXT...[@audio|@ble] | publish hub [audio|ble|both]")
        XCTAssertEqual(run("publish eid 16")[0], "error: the rotation exponent must be 0 to 15, not 16",
                       "checked by PublicationSpec, as --publish eid:16 is")
        XCTAssertEqual(run("publish direct c0ffee radio")[0], "error: mediums 'radio' must be audio, ble or both")
        XCTAssertEqual(box.publications.entries.count, 1, "nothing published by a bad line")
        XCTAssertEqual(run("unpublish 0"), ["unpublished 0"])
        XCTAssertEqual(run("publications"), ["no publications"])
    }

    func testSimFaultsSwitchTheDriversFaultsAndListThem() {
        XCTAssertEqual(run("sim fault bluetooth-power on"), ["sim fault bluetooth-power on"])
        XCTAssertTrue(box.faults?.contains(.bluetoothPower) ?? false)
        XCTAssertEqual(run("sim fault bluetooth-power on"), ["sim fault bluetooth-power on (it already was)"])
        XCTAssertEqual(run("sim fault")[0], "faults on: bluetooth-power")
        XCTAssertEqual(run("sim fault bluetooth-power off"), ["sim fault bluetooth-power off"])
        XCTAssertEqual(run("sim fault")[0], "faults on: none")
        XCTAssertTrue(logged.contains("console: simulated fault bluetooth-power switched on"), "\(logged)")
    }

    func testStatusListsTheManagersProblemsAndTheLEDsFollowThem() throws {
        box.manager.report(.bluetoothPower, present: true)
        box.manager.report(.audioMissing, present: true)
        XCTAssertTrue(run("status").contains("drivers: audio wav ok, bluetooth sim ok; problems: audio-missing, bluetooth-power"))
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(run("status --json")[0].utf8)) as? [String: Any])
        XCTAssertEqual((json["drivers"] as? [String: Any])?["problems"] as? [String], ["audio-missing", "bluetooth-power"])
        XCTAssertEqual(box.lights.deviceStates.audio, .missing)
        XCTAssertEqual(box.lights.deviceStates.bluetooth, .poweredOff)
        box.manager.report(.audioMissing, present: false)
        XCTAssertEqual(box.lights.deviceStates.audio, .ok)
    }

    func testAPINGuardsTheCommandsThatChangeTheBox() throws {
        try box.pin.set("2468")
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

    /// A `nearcast console` client reading a script says hello and gets, for each line, the
    /// reply's lines and whether the line failed: no greeting after the hello, no prompt, no
    /// echo, no terminal codes, no log lines. A wrong PIN is a failure too.
    func testAScriptSessionAnswersEachLineWithItsReplyAndWhetherItFailed() throws {
        try box.pin.set("2468")
        let transport = MemoryConsoleTransport(name: "script")
        let interpreter = self.interpreter!
        let session = ConsoleSession(port: transport, table: interpreter.table, colour: true, canClose: true) { line, session in
            interpreter.run(line, session: session)
        }
        session.service()
        XCTAssertTrue(String(decoding: transport.takeOutput(), as: UTF8.self).contains("nearcast> "), "a terminal session first")
        transport.type(String(decoding: ConsoleScript.hello, as: UTF8.self) + "consent show\r\npublish direct c0ffee\nlog")
        session.service()
        session.logLine("[    1.000 s] a log line a script does not get")
        transport.type("in\n1357\nlogin\n2468\n\tpublish   direct c0ffee ble\nexit\n")
        session.service()
        let output = String(decoding: transport.takeOutput(), as: UTF8.self)
        XCTAssertEqual(output, """
            \u{1E}nearcast-script 1
            consent granted: broadcasting
            \u{1E}ok
            error: 'publish' changes the box and needs the technician PIN: type login
            \u{1E}failed
            \u{1E}ok
            wrong PIN
            \u{1E}failed
            \u{1E}ok
            logged in (logout ends it; 10 minutes idle end it too)
            \u{1E}ok
            published 0: direct token c0ffee over ble
            \u{1E}ok
            bye
            \u{1E}ok

            """)
        XCTAssertTrue(session.isClosed)
    }

    /// The script's hello is only taken as the first bytes of a socket client; anything else
    /// goes to the line editor as typed.
    func testAnythingButTheHelloKeepsATerminalSession() {
        let transport = MemoryConsoleTransport(name: "socket client")
        let interpreter = self.interpreter!
        let session = ConsoleSession(port: transport, table: interpreter.table, colour: false, canClose: true) { line, session in
            interpreter.run(line, session: session)
        }
        session.service()
        _ = transport.takeLines()
        transport.type("\u{1E}nearcast-version\r")
        session.service()
        XCTAssertEqual(transport.takeLines(), ["nearcast-version", "error: unknown command 'nearcast-version'; type help"])
    }
}
