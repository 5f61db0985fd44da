import Foundation
import NearcastDrivers
import XCTest

final class ConsoleEndToEndTests: XCTestCase {
    /// The daemon with its console on the terminal, running until ``stop(_:)`` (no --duration, so
    /// a slow machine cannot end the run before the test has typed everything).
    private func startDaemon(_ terminal: PseudoTerminal, dir: URL) throws -> NearcastProcess.Started {
        try NearcastProcess.start(["run", "--board", "sim", "--state-dir", dir.path, "--console", terminal.slavePath])
    }

    private func stop(_ daemon: NearcastProcess.Started) throws -> NearcastProcess.Result {
        kill(daemon.process.processIdentifier, SIGTERM)
        return try NearcastProcess.wait(daemon, timeout: 60)
    }

    func testScriptedSessionPublishesChangesStrategyGrantsConsentAndReadsStatus() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let terminal = try PseudoTerminal()
        let daemon = try startDaemon(terminal, dir: dir)
        XCTAssertNotNil(terminal.wait(for: "nearcast> "), terminal.screen)

        terminal.command("consent deny", expecting: "consent not granted")
        XCTAssertEqual(try stateValue(dir.appendingPathComponent("consent")), "denied")
        var status = try terminal.statusJSON()
        XCTAssertEqual(status["consent"] as? Bool, false)

        terminal.command("publish direct c0ffee ble", expecting: "published 1: direct token c0ffee over ble")
        terminal.command("strategy mediums ble mode broadcast", expecting: "strategy: mediums ble, mode broadcast")
        terminal.command("consent grant", expecting: "consent granted: broadcasting")

        status = try terminal.statusJSON()
        XCTAssertEqual(status["consent"] as? Bool, true)
        XCTAssertEqual(status["mediums"] as? String, "ble")
        XCTAssertEqual(status["mode"] as? String, "broadcast")
        let publications = try XCTUnwrap(status["publications"] as? [[String: Any]])
        XCTAssertEqual(publications.compactMap { $0["token"] as? String }, ["6e65617263617374", "c0ffee"])
        XCTAssertEqual(publications.compactMap { $0["mediums"] as? String }, ["ble", "ble"])
        XCTAssertEqual((status["leds"] as? [String: String])?["consent"], "off")

        terminal.command("unpublish 7", expecting: "error: no publication 7")
        terminal.command("frobnicate", expecting: "error: unknown command 'frobnicate'; type help")
        terminal.command("publish -h", expecting: "usage: publish direct HEX")

        // BLE carries the new publication once consent is back (the legacy set rotates a second
        // each); denied consent stopped the set.
        let log = dir.appendingPathComponent("ble.log")
        _ = waitUntil(timeout: 15, interval: 0.1) { (try? String(contentsOf: log, encoding: .utf8))?.contains("03c0ffee") ?? false }
        let result = try stop(daemon)
        XCTAssertEqual(result.status, 0, result.stderr)
        let ble = try String(contentsOf: log, encoding: .utf8)
        XCTAssertTrue(ble.contains("stop"), ble)
        XCTAssertTrue(ble.contains("4e4541524353540"), ble)
        XCTAssertTrue(ble.contains("03c0ffee"), "the direct token c0ffee in a UID frame: \(ble)")
    }

    /// `strategy mode both` makes the daemon listen (on the sim board it hears its own speaker
    /// and advertiser); `mode broadcast` stops listening and forgets what it heard.
    func testStrategyModeScanMakesTheDaemonListen() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let terminal = try PseudoTerminal()
        let daemon = try startDaemon(terminal, dir: dir)
        XCTAssertNotNil(terminal.wait(for: "nearcast> "), terminal.screen)
        terminal.command("status", expecting: "mode broadcast")
        XCTAssertFalse(terminal.screen.contains("heard:"))
        terminal.command("strategy mode both", expecting: "strategy: mediums both, mode both")
        let heard = waitUntil(timeout: 20, interval: 0.3) {
            let mark = terminal.length
            terminal.type("status\r")
            return (terminal.wait(for: "leds:", after: mark) ?? "").contains("heard: direct 6e65617263617374")
        }
        XCTAssertTrue(heard, terminal.screen)
        terminal.command("strategy mode broadcast", expecting: "strategy: mediums both, mode broadcast")
        let mark = terminal.length
        terminal.type("status\r")
        let reply = try XCTUnwrap(terminal.wait(for: "leds:", after: mark), terminal.screen)
        XCTAssertFalse(reply.contains("heard:"), reply)
        let result = try stop(daemon)
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stdout.contains("listening over both"), result.stdout)
        XCTAssertTrue(result.stdout.contains("found direct 6e65617263617374"), result.stdout)
        XCTAssertTrue(result.stdout.contains("listening stopped"), result.stdout)
    }

    /// Console changes are saved at once (and `config save` saves on demand): publications,
    /// strategy and tunables come back after a restart; a damaged settings file is reported,
    /// kept aside as `.damaged`, and the previous good copy used.
    func testConfigSaveSurvivesARestartAndADamagedFileFallsBackToThePreviousCopy() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let terminal = try PseudoTerminal()
        var daemon = try startDaemon(terminal, dir: dir)
        XCTAssertNotNil(terminal.wait(for: "nearcast> "), terminal.screen)
        terminal.command("config show", expecting: "not saved: the box starts from the board's defaults")
        terminal.command("publish direct c0ffee ble", expecting: "published 1")
        terminal.command("strategy mediums ble", expecting: "strategy: mediums ble, mode broadcast")
        terminal.command("config save", expecting: "mediums ble, mode broadcast, 2 publications; the box starts with these")
        terminal.command("audio level 30", expecting: "audio level 30")
        terminal.command("ble txpower -4", expecting: "ble txpower -4 dBm")
        terminal.command("config show", expecting: "saved in \(dir.path)/settings.json5: the box starts with these")
        XCTAssertEqual(try stop(daemon).status, 0)

        daemon = try startDaemon(terminal, dir: dir)
        XCTAssertNotNil(terminal.wait(for: "nearcast> ", after: terminal.length), terminal.screen)
        terminal.command("publications", expecting: "1: direct token c0ffee over ble")
        terminal.command("config show", expecting: "saved in \(dir.path)/settings.json5: the box starts with these")
        let status = try terminal.statusJSON()
        XCTAssertEqual(status["mediums"] as? String, "ble")
        XCTAssertEqual((status["publications"] as? [[String: Any]])?.compactMap { $0["token"] as? String }, ["6e65617263617374", "c0ffee"])
        terminal.command("config show", expecting: "audio level 30")
        XCTAssertEqual(try stop(daemon).status, 0)

        // A power cut mid-write cannot truncate it (the write is atomic), but a bad SD card can.
        let file = dir.appendingPathComponent("settings.json5")
        let damaged = String(try String(contentsOf: file, encoding: .utf8).prefix(200))
        try damaged.write(to: file, atomically: true, encoding: .utf8)
        daemon = try startDaemon(terminal, dir: dir)
        XCTAssertNotNil(terminal.wait(for: "nearcast> ", after: terminal.length), terminal.screen)
        // The previous copy is the one before the last change (txpower), with the level already 30.
        terminal.command("config show", expecting: "txpower -12 dBm")
        terminal.command("config show", expecting: "audio level 30")
        terminal.command("publications", expecting: "1: direct token c0ffee over ble")
        let result = try stop(daemon)
        XCTAssertTrue(result.stdout.contains("error: \(file.path):"), result.stdout)
        XCTAssertTrue(result.stdout.contains("kept aside as \(file.path).damaged"), result.stdout)
        XCTAssertTrue(result.stdout.contains("using the previous saved settings"), result.stdout)
        XCTAssertEqual(try String(contentsOf: file.appendingPathExtension("damaged"), encoding: .utf8), damaged,
                       "the damaged file is kept for inspection")
    }

    /// `leds test` walks the LEDs (recorded by the simulated GPIO in leds.log), then the status
    /// model's patterns come back; denying consent lights the consent LED.
    func testLEDsTestWalksEachLEDAloneAndConsentLightsItsLED() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let terminal = try PseudoTerminal()
        let daemon = try startDaemon(terminal, dir: dir)
        XCTAssertNotNil(terminal.wait(for: "nearcast> "), terminal.screen)
        terminal.command("leds", expecting: "slow-blink")
        terminal.command("leds test", expecting: "status, audio, ble, consent each alone on for 1 s")
        terminal.command("leds", expecting: "walk")
        // The walk is over when `leds` shows the patterns again.
        let walked = waitUntil(timeout: 15, interval: 0.25) {
            let mark = terminal.length
            terminal.type("leds\r")
            guard let reply = terminal.wait(for: "nearcast> ", after: mark) else { return false }
            return reply.contains("consent ") && !reply.contains("walk")
        }
        XCTAssertTrue(walked, "the walk never ended: \(terminal.screen)")
        terminal.command("consent deny", expecting: "consent not granted")
        terminal.command("leds", expecting: "consent  on")
        let result = try stop(daemon)
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stdout.contains("leds: status=off audio=off ble=off consent=on"), result.stdout)
        XCTAssertTrue(result.stdout.contains("leds: all off and released"), result.stdout)
        // leds.log: "SECONDS led NAME on|off". During the walk exactly one LED is lit at a time,
        // in table order, each for 1 s of stream time.
        let events = try String(contentsOf: dir.appendingPathComponent("leds.log"), encoding: .utf8)
            .split(separator: "\n").map { $0.split(separator: " ") }
        let audioOn = try XCTUnwrap(events.firstIndex { $0[2] == "audio" && $0[3] == "on" }, "\(events)")
        var lit: Set<Substring> = []
        for event in events[..<audioOn] { if event[3] == "on" { lit.insert(event[2]) } else { lit.remove(event[2]) } }
        var order: [Substring] = []
        var start: [Substring: Double] = [:]
        for event in events[audioOn...] {
            if event[3] == "on" { lit.insert(event[2]) } else { lit.remove(event[2]) }
            if event[3] == "on" && !order.contains(event[2]) && order.count < 3 { order.append(event[2]); start[event[2]] = Double(event[0]) }
            if order.count == 3 && event[2] == "consent" && event[3] == "on" { break }
            if event[3] == "on" { XCTAssertEqual(lit.count, 1, "one LED at a time during the walk: \(event)") }
        }
        XCTAssertEqual(order, ["audio", "ble", "consent"])
        XCTAssertEqual(try XCTUnwrap(start["ble"]) - (try XCTUnwrap(start["audio"])), 1, accuracy: 0.03)
        XCTAssertEqual(events.last.map { "\($0[2]) \($0[3])" }, "consent off", "released: all off")
    }

    func testEditingKeysAndHistoryOnARealTerminal() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let terminal = try PseudoTerminal()
        let daemon = try startDaemon(terminal, dir: dir)
        XCTAssertNotNil(terminal.wait(for: "nearcast> "))
        // "vresion", fixed with left arrows, backspace and an insert; then Ctrl-A/Ctrl-K and Ctrl-U.
        terminal.type("vresion\u{1B}[D\u{1B}[D\u{1B}[D\u{1B}[D\u{7F}\u{7F}er\r")
        XCTAssertNotNil(terminal.wait(for: "nearcast 0."), terminal.screen)
        var mark = terminal.length
        terminal.type("junk\u{01}\u{0B}boa\t\r")
        XCTAssertNotNil(terminal.wait(for: "sim: Simulated board", after: mark), terminal.screen)
        // Up twice recalls "version"; CRLF ends it once.
        mark = terminal.length
        terminal.type("\u{1B}[A\u{1B}[A\r\n")
        XCTAssertNotNil(terminal.wait(for: "nearcast 0.", after: mark), terminal.screen)
        mark = terminal.length
        terminal.type(String(repeating: "x", count: 400) + "\r")
        XCTAssertNotNil(terminal.wait(for: "error: line of 400 bytes is longer than 256; not run", after: mark))
        XCTAssertEqual(try stop(daemon).status, 0)
    }

    /// 10^6 random bytes, with escape sequences, NULs and overlong lines mixed in: afterwards the
    /// console still answers and the daemon never stopped broadcasting.
    func testAMillionRandomBytesDoNotStopTheConsoleOrTheBroadcast() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let terminal = try PseudoTerminal()
        let daemon = try startDaemon(terminal, dir: dir)
        XCTAssertNotNil(terminal.wait(for: "nearcast> "))
        var generator = SystemRandomNumberGenerator()
        var bytes: [UInt8] = []
        bytes.reserveCapacity(1_000_000)
        let pieces: [[UInt8]] = [[0x1B, 0x5B], [0x1B, 0x4F], [0x00], [0x1B, 0x5B, 0x33, 0x7E], [0x03], [0x15], [0x09], [0x0D]]
        while bytes.count < 1_000_000 {
            switch UInt8.random(in: 0...9, using: &generator) {
            case 0: bytes += pieces.randomElement(using: &generator)!
            case 1: bytes += [UInt8](repeating: 0x41, count: Int.random(in: 250...600, using: &generator))
            default: bytes += (0..<64).map { _ in UInt8.random(in: 0...255, using: &generator) }
            }
        }
        bytes = Array(bytes.prefix(1_000_000))
        // Never send Ctrl-D or a complete "restart" line by chance: neither is part of the noise.
        bytes = bytes.map { $0 == 0x04 ? 0x05 : $0 }
        XCTAssertTrue(terminal.send(bytes), "the console stopped reading")
        // Like a technician after line noise: wait for the screen to settle, clear the line, go on.
        XCTAssertTrue(terminal.waitUntilSettled(quiet: 0.5, timeout: 120), "the console never stopped writing after the noise")
        terminal.type("\u{15}\rstatus\r")
        let mark = terminal.length
        terminal.type("version\r")
        XCTAssertNotNil(terminal.wait(for: "nearcast 0.", after: mark, timeout: 20), "the console answers after the noise")
        let result = try stop(daemon)
        XCTAssertEqual(result.status, 0, result.stderr)
        // "stopped (SIGTERM) after 14.22 s: 10 bursts": a burst every 1.44 s of the run (a 0.72 s
        // burst under the 50 % duty cap), all decodable.
        let summary = try XCTUnwrap(result.lines.first { $0.hasPrefix("stopped (SIGTERM)") }, result.stdout)
        let seconds = try XCTUnwrap(Double(summary.split(separator: " ")[3]))
        let bursts = try XCTUnwrap(Int(summary.split(separator: " ")[5]))
        XCTAssertGreaterThanOrEqual(Double(bursts), (seconds / 1.44).rounded(.down), summary)
        let heard = try NearcastProcess.decode(dir.appendingPathComponent("audio.wav").path)
        XCTAssertGreaterThanOrEqual(heard.count, bursts - 1, "every burst decodable: \(heard.count) of \(bursts)")
    }

    func testConsoleCommandAttachesToTheRunningDaemon() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let daemon = try NearcastProcess.start(["run", "--board", "sim", "--state-dir", dir.path])
        let socket = dir.appendingPathComponent("console.sock").path
        NearcastProcess.waitForConsoleSocket(socket, timeout: 10)
        let (status, text) = try Self.console(dir, typing: "version\rpublications\rexit\r")
        XCTAssertEqual(status, 0)
        XCTAssertTrue(text.contains("nearcast 0."), text)
        XCTAssertTrue(text.contains("0: direct token 6e65617263617374"), text)
        XCTAssertTrue(text.contains("bye"), text)
        XCTAssertEqual(try stop(daemon).status, 0)
        let missing = try NearcastProcess.run(["console", "--state-dir", dir.path])
        XCTAssertNotEqual(missing.status, 0)
        XCTAssertTrue(missing.stderr.contains("cannot attach"), missing.stderr)
    }

    /// `echo status | nearcast console`: a script's input ends at once, and the client still
    /// prints every answer before it leaves (it used to leave at the end of its input, before the
    /// daemon had answered).
    func testAPipedConsolePrintsEveryAnswerBeforeItLeaves() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let daemon = try NearcastProcess.start(["run", "--board", "sim", "--state-dir", dir.path])
        NearcastProcess.waitForConsoleSocket(dir.appendingPathComponent("console.sock").path, timeout: 10)
        for _ in 0..<3 {
            // The input ends right after the two lines, before any answer.
            let (status, text) = try Self.console(dir, typing: "status\npublications\n")
            XCTAssertEqual(status, 0)
            XCTAssertTrue(text.contains("consent: granted"), "status's answer: \(text)")
            XCTAssertTrue(text.contains("0: direct token 6e65617263617374 over both"), "publications' answer: \(text)")
        }
        XCTAssertEqual(try stop(daemon).status, 0)
    }

    /// In a pipe, `nearcast console` prints the replies only (no greeting, prompt, echo or
    /// terminal code), a line per input line, and exits 0 when every line succeeded; a failed
    /// line's reply goes to stderr with its line number, the lines after it still run, and the
    /// exit status is 1.
    func testAPipedConsolePrintsTheRepliesOnlyAndFailsWhenALineFails() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let daemon = try NearcastProcess.start(["run", "--board", "sim", "--state-dir", dir.path])
        NearcastProcess.waitForConsoleSocket(dir.appendingPathComponent("console.sock").path, timeout: 10)

        let good = try Self.script(dir, typing: "consent show\npublish direct c0ffee ble\nunpublish 1\n")
        XCTAssertEqual(good.status, 0, good.stderr)
        XCTAssertEqual(good.stdout, "consent granted: broadcasting\npublished 1: direct token c0ffee over ble\nunpublished 1\n")
        XCTAssertEqual(good.stderr, "")

        let bad = try Self.script(dir, typing: "consent show\nfrobnicate\naudio level 500\npublications")
        XCTAssertEqual(bad.status, 1, bad.stderr)
        XCTAssertTrue(bad.stdout.hasPrefix("consent granted: broadcasting\n0: direct token 6e65617263617374 over both"),
                      "the lines after a failed one still run; an unterminated last line is a line: \(bad.stdout)")
        XCTAssertFalse(bad.stdout.contains("error"), bad.stdout)
        let errors = bad.stderr.split(separator: "\n")
        XCTAssertEqual(errors.first, "line 2: error: unknown command 'frobnicate'; type help", bad.stderr)
        XCTAssertTrue(errors.dropFirst().allSatisfy { $0.hasPrefix("line 3: ") } && errors.count >= 2, bad.stderr)
        for text in [good.stdout, bad.stdout, bad.stderr] {
            XCTAssertFalse(text.contains("nearcast> ") || text.contains("Nearcast console") || text.contains("\r")
                           || text.contains("\u{1B}") || text.contains("\u{1E}"), text)
        }

        // `exit` leaves the console: lines after it are not run, and the client says so.
        let cut = try Self.script(dir, typing: "version\nexit\nversion\n")
        XCTAssertEqual(cut.status, 1)
        XCTAssertTrue(cut.stdout.hasPrefix("nearcast ") && cut.stdout.hasSuffix("\nbye\n"), cut.stdout)
        XCTAssertTrue(cut.stderr.contains("the daemon closed the console after answering 2 of 3 lines"), cut.stderr)
        XCTAssertEqual(try stop(daemon).status, 0)
    }

    /// `nearcast console` on `dir`'s daemon with `typing` as its whole input (then closed): its exit
    /// status and everything it printed.
    private static func console(_ dir: URL, typing: String) throws -> (Int32, String) {
        let result = try script(dir, typing: typing)
        return (result.status, result.stdout)
    }

    /// `nearcast console` as a separate process on `dir`'s daemon, its stdin a pipe that carries
    /// `typing` and is then closed: its exit status, stdout and stderr (through a file, so
    /// neither can fill while the other is read).
    private static func script(_ dir: URL, typing: String) throws -> (status: Int32, stdout: String, stderr: String) {
        let client = Process()
        client.executableURL = URL(fileURLWithPath: NearcastProcess.binary)
        client.arguments = ["console", "--state-dir", dir.path]
        let input = Pipe(), output = Pipe()
        let errorFile = dir.appendingPathComponent("console-stderr-\(UUID().uuidString)")
        XCTAssertTrue(FileManager.default.createFile(atPath: errorFile.path, contents: nil))
        let errors = try FileHandle(forWritingTo: errorFile)
        client.standardInput = input
        client.standardOutput = output
        client.standardError = errors
        try client.run()
        try errors.close()
        input.fileHandleForWriting.write(Data(typing.utf8))
        try input.fileHandleForWriting.close()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        client.waitUntilExit()
        return (client.terminationStatus, text, try String(contentsOf: errorFile, encoding: .utf8))
    }

    func testPromptsAreCountedAcrossReads() {
        var counter = ConsolePromptCounter()
        counter.feed(Array("Nearcast console: type help\r\nnear".utf8))
        XCTAssertEqual(counter.count, 0)
        counter.feed(Array("cast> status\r\nconsent: granted\r\nnearcast> audio level 40\r\nPI".utf8))
        XCTAssertEqual(counter.count, 2)
        counter.feed(Array("N: ".utf8))
        XCTAssertEqual(counter.count, 3, "a PIN's question answers a line too")
    }
}
