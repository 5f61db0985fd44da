import Foundation
import XCTest

/// The technician PIN through a real pseudo-terminal: set, required, never echoed or stored in
/// the clear, and the growing delay after five wrong PINs, which survives a restart.
final class ConsoleLoginEndToEndTests: XCTestCase {
    private func startDaemon(_ terminal: PseudoTerminal, dir: URL) throws -> NearcastProcess.Started {
        let daemon = try NearcastProcess.start(["run", "--board", "sim", "--state-dir", dir.path, "--console", terminal.slavePath])
        XCTAssertNotNil(terminal.wait(for: "nearcast> ", after: terminal.length), terminal.screen)
        return daemon
    }

    private func stop(_ daemon: NearcastProcess.Started) throws {
        kill(daemon.process.processIdentifier, SIGTERM)
        let result = try NearcastProcess.wait(daemon, timeout: 60)
        XCTAssertEqual(result.status, 0, result.stderr)
    }

    /// Types `login` and then `pin` at the hidden prompt; returns the reply.
    private func login(_ terminal: PseudoTerminal, _ pin: String) throws -> String {
        terminal.command("login", expecting: "PIN: ")
        let mark = terminal.length
        terminal.type(pin + "\r")
        let reply = try XCTUnwrap(terminal.wait(for: "nearcast> ", after: mark), terminal.screen)
        XCTAssertFalse(reply.contains(pin), "the PIN is not echoed: \(reply.debugDescription)")
        return reply
    }

    /// Types `login` until the PIN prompt comes instead of "too many wrong PINs" (the delay has
    /// passed: a try inside it is refused unchecked and counts for nothing), up to `timeout`
    /// seconds; then the PIN at the prompt. Returns the reply to the PIN.
    private func loginAfterTheDelay(_ terminal: PseudoTerminal, _ pin: String, timeout: TimeInterval) throws -> String {
        var refusal = ""
        let prompted = waitUntil(timeout: timeout, interval: 0.25) {
            let mark = terminal.length
            terminal.type("login\r")
            guard let reply = terminal.wait(forAnyOf: ["PIN: ", "nearcast> "], after: mark) else { return false }
            refusal = reply.output
            return reply.found == "PIN: "
        }
        XCTAssertTrue(prompted, "the delay never passed: \(refusal)")
        let mark = terminal.length
        terminal.type(pin + "\r")
        let reply = try XCTUnwrap(terminal.wait(for: "nearcast> ", after: mark), terminal.screen)
        XCTAssertFalse(reply.contains(pin), "the PIN is not echoed: \(reply.debugDescription)")
        return reply
    }

    /// The seconds in "the next try is checked in N s".
    private func waitSeconds(in reply: String) throws -> Int {
        let range = try XCTUnwrap(reply.range(of: "checked in "), reply)
        return try XCTUnwrap(Int(reply[range.upperBound...].prefix { $0.isNumber }), reply)
    }

    func testPINGuardsChangesAndFiveWrongPINsStartAGrowingDelayThatSurvivesARestart() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let terminal = try PseudoTerminal()
        var daemon = try startDaemon(terminal, dir: dir)

        // Set the PIN at hidden prompts; only a salted hash reaches the disk.
        var mark = terminal.length
        terminal.command("pin set", expecting: "new PIN (4-12 digits): ")
        terminal.command("24680", expecting: "new PIN again: ")
        terminal.command("24680", expecting: "technician PIN set")
        XCTAssertFalse(terminal.screen.dropFirst(mark).contains("24680"), "the new PIN is never echoed")
        let record = try stateValue(dir.appendingPathComponent("technician-pin"))
        XCTAssertTrue(record.hasPrefix("pbkdf2-sha256 20000 "), record)
        XCTAssertFalse(record.contains("24680"))
        let mode = try XCTUnwrap(FileManager.default.attributesOfItem(atPath: dir.appendingPathComponent("technician-pin").path)[.posixPermissions] as? Int)
        XCTAssertEqual(mode, 0o600)

        // Logged out, reading works and changing does not.
        terminal.command("logout", expecting: "logged out")
        terminal.command("publish direct c0ffee", expecting: "error: 'publish' changes the box and needs the technician PIN: type login")
        terminal.command("consent deny", expecting: "needs the technician PIN")
        terminal.command("pin clear", expecting: "needs the technician PIN")
        terminal.command("status", expecting: "consent: granted")
        terminal.command("pin show", expecting: "this session is not logged in")
        terminal.command("pin set 1234", expecting: "needs the technician PIN")

        // Four wrong PINs are free; the fifth starts a 2 s delay, and a try inside it is refused unchecked.
        for attempt in 1...4 {
            let reply = try login(terminal, "0000")
            XCTAssertTrue(reply.contains("wrong PIN"), reply)
            XCTAssertFalse(reply.contains("checked in"), "attempt \(attempt): \(reply)")
        }
        var reply = try login(terminal, "0000")
        XCTAssertEqual(try waitSeconds(in: reply), 2, reply)
        let locked = Date()
        mark = terminal.length
        terminal.type("login\r")
        let refusal = try XCTUnwrap(terminal.wait(for: "nearcast> ", after: mark), terminal.screen)
        if Date().timeIntervalSince(locked) < 1.5 {
            XCTAssertTrue(refusal.contains("too many wrong PINs"), "inside the delay login is refused: \(refusal)")
            XCTAssertFalse(refusal.contains("PIN: "), refusal)
        } else if refusal.contains("PIN: ") {
            terminal.type("\u{03}")                              // the machine was slow: cancel the prompt
        }
        XCTAssertEqual(try stateValue(dir.appendingPathComponent("pin-failures")), "5")
        try stop(daemon)

        // After a restart the count is still five: the next wrong PIN doubles the delay to 4 s.
        daemon = try startDaemon(terminal, dir: dir)
        terminal.command("pin show", expecting: "wrong PINs since the last right one: 5")
        terminal.command("publish direct c0ffee", expecting: "needs the technician PIN")
        reply = try loginAfterTheDelay(terminal, "1111", timeout: 10)
        XCTAssertEqual(try waitSeconds(in: reply), 4, reply)

        // The right PIN clears the count and opens the guarded commands.
        reply = try loginAfterTheDelay(terminal, "24680", timeout: 15)
        XCTAssertTrue(reply.contains("logged in"), reply)
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir.appendingPathComponent("pin-failures").path))
        terminal.command("publish direct c0ffee", expecting: "published 1: direct token c0ffee")
        terminal.command("pin clear", expecting: "technician PIN removed")
        terminal.command("logout", expecting: "no technician PIN is set")
        terminal.command("unpublish 1", expecting: "unpublished 1")
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir.appendingPathComponent("technician-pin").path))
        try stop(daemon)
    }

    func testAnUnreadablePINFileKeepsChangesLockedAndSaysWhy() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        try "pbkdf2-sha256 banana\n".write(to: dir.appendingPathComponent("technician-pin"), atomically: true, encoding: .utf8)
        let terminal = try PseudoTerminal()
        let daemon = try startDaemon(terminal, dir: dir)
        terminal.command("publish direct c0ffee", expecting: "needs the technician PIN")
        terminal.command("pin show", expecting: "not a PIN record")
        _ = try login(terminal, "1234")
        XCTAssertTrue(terminal.screen.contains("technician-pin: not a PIN record"), terminal.screen)
        terminal.command("publish direct c0ffee", expecting: "needs the technician PIN")
        kill(daemon.process.processIdentifier, SIGTERM)
        let result = try NearcastProcess.wait(daemon, timeout: 60)
        XCTAssertTrue(result.stdout.contains("stay locked until root removes the file"), result.stdout)
        XCTAssertEqual(try String(contentsOf: dir.appendingPathComponent("technician-pin"), encoding: .utf8),
                       "pbkdf2-sha256 banana\n", "the file is left for inspection")
    }
}
