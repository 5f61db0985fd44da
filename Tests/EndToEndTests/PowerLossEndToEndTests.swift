import Foundation
import XCTest

/// A box switched off at the wall at any moment: the daemon is started, a technician changes
/// something on the console, and the process is killed with SIGKILL at a random moment, over
/// and over. Every start must restore a whole state, the one before the change or the one
/// after (never a mix, never nothing), and the beacon clock must never go backwards.
final class PowerLossEndToEndTests: XCTestCase {
    /// What the saved state says, as the daemon reports it at start.
    private struct Restored: Hashable, CustomStringConvertible {
        var tokens: [String]
        var mediums: String
        var description: String { "\(mediums): \(tokens.joined(separator: ","))" }
    }

    func testThousandPowerCutsAlwaysRestoreAWholeStateAndTheClockNeverGoesBack() throws {
        let rounds = Int(ProcessInfo.processInfo.environment["NEARCAST_POWER_LOSS_ROUNDS"] ?? "") ?? 1000
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        var generator = SystemRandomNumberGenerator()
        // No saved state yet: the default publication over both mediums.
        var candidates: Set<Restored> = [Restored(tokens: ["6e65617263617374"], mediums: "both")]
        var lastBeaconTime = 0
        var outcomes = (old: 0, new: 0)
        var previousChange: Restored?

        for round in 0..<rounds {
            let started = try NearcastProcess.start(["run", "--board", "sim", "--state-dir", dir.path])
            let startup = try waitForStartup(started, round: round)
            let restored = try parseRestored(startup)
            XCTAssertTrue(candidates.contains(restored),
                          "round \(round): restored \(restored), expected one of \(candidates)\n\(startup)")
            if let previousChange { restored == previousChange ? (outcomes.new += 1) : (outcomes.old += 1) }
            let beaconStart = try XCTUnwrap(firstNumber(after: "beacon time starts at ", in: startup), startup)
            XCTAssertGreaterThanOrEqual(beaconStart, lastBeaconTime, "round \(round): the beacon clock went back\n\(startup)")

            // One change through the console socket, then the power goes at a random moment.
            var next = restored
            let command: String
            switch round % 3 {
            case 0 where next.tokens.count < 4, 1 where next.tokens.count < 4:
                let token = String(format: "%04x", round & 0xffff)
                next.tokens.append(token)
                command = "publish direct \(token) both"
            case 0, 1:
                next.tokens.removeFirst()
                command = "unpublish 0"
            default:
                next.mediums = next.mediums == "both" ? "ble" : "both"
                command = "strategy mediums \(next.mediums)"
            }
            let console = try NearcastProcess.sendConsoleLine(command, socket: dir.appendingPathComponent("console.sock").path)
            usleep(UInt32.random(in: 0...60_000, using: &generator))     // the stimulus: a random moment for the power cut
            kill(started.process.processIdentifier, SIGKILL)
            close(console)
            let result = try NearcastProcess.wait(started, timeout: 30)
            XCTAssertEqual(result.status, SIGKILL, "round \(round)")
            // The clock must resume at or after every beacon time the killed run put on the air.
            for line in result.lines where line.contains("beacon-time ") {
                lastBeaconTime = max(lastBeaconTime, firstNumber(after: "beacon-time ", in: line) ?? 0)
            }
            lastBeaconTime = max(lastBeaconTime, beaconStart)
            candidates = [restored, next]
            previousChange = next
            if testRun?.failureCount ?? 0 > 3 { break }
        }
        // Both outcomes happen: kills land before and after the change is saved.
        print("power-loss: \(rounds) rounds; restored the state before the change \(outcomes.old) times, after it \(outcomes.new) times")
        XCTAssertGreaterThan(outcomes.old, 0)
        XCTAssertGreaterThan(outcomes.new, 0)
    }

    /// The daemon's output up to the line that says its console is ready.
    private func waitForStartup(_ started: NearcastProcess.Started, round: Int) throws -> String {
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline {
            let text = (try? String(contentsOf: started.stdout, encoding: .utf8)) ?? ""
            if text.contains("console socket ") && text.contains("consent granted") { return text }
            if !started.process.isRunning {
                XCTFail("round \(round): the daemon exited at start: \(text) \((try? String(contentsOf: started.stderr, encoding: .utf8)) ?? "")")
                return text
            }
            usleep(5_000)
        }
        throw NSError(domain: "nearcast", code: 1, userInfo: [NSLocalizedDescriptionKey: "round \(round): no start-up in 20 s"])
    }

    private func parseRestored(_ log: String) throws -> Restored {
        var restored = Restored(tokens: [], mediums: "both")
        for line in log.split(separator: "\n") {
            if line.hasPrefix("publishing direct token "), let token = line.split(separator: " ").dropFirst(3).first {
                restored.tokens.append(String(token))
            }
            if line.hasPrefix("saved settings from "), let range = line.range(of: "mediums ") {
                restored.mediums = String(line[range.upperBound...].prefix { $0 != "," })
            }
        }
        return restored
    }

    private func firstNumber(after marker: String, in text: String) -> Int? {
        guard let range = text.range(of: marker) else { return nil }
        return Int(text[range.upperBound...].prefix { $0.isNumber })
    }
}
