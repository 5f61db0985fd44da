import Foundation
import XCTest

/// The daemon on the simulated board, driven as a separate process.
final class DaemonEndToEndTests: XCTestCase {
    func testFiveSecondRunBroadcastsThePublishedPayloadEverySecond() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let started = Date()
        let run = try NearcastProcess.run(["run", "--board", "sim", "--duration", "5", "--state-dir", dir.path,
                                           "--payload", "c0ffee0000000001"])
        let elapsed = Date().timeIntervalSince(started)
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertGreaterThanOrEqual(elapsed, 4.5, "the simulated speaker plays in real time")
        XCTAssertEqual(run.lines.filter { $0.contains("burst #") }.count, 5, run.stdout)

        let tokens = try NearcastProcess.decode(dir.appendingPathComponent("audio.wav").path)
        let ours = tokens.filter { $0["payload"] as? String == "c0ffee0000000001" && $0["kind"] as? String == "direct" }
        XCTAssertGreaterThanOrEqual(ours.count, 4, "\(tokens)")
        XCTAssertEqual(ours.count, tokens.count, "nothing but the published payload")
        let offsets = ours.compactMap { $0["offset_s"] as? Double }
        for (index, offset) in offsets.enumerated() {
            XCTAssertEqual(offset, Double(index), accuracy: 0.01, "one burst a second")
        }
    }

    func testEIDPublicationRotatesAtItsEpochAndTheBeaconClockPersists() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        // K = 2: a new EID every 4 s of beacon time.
        let first = try NearcastProcess.run(["run", "--board", "sim", "--duration", "6", "--state-dir", dir.path,
                                             "--kind", "eid", "--exponent", "2"])
        XCTAssertEqual(first.status, 0, first.stderr)
        let key = try String(contentsOf: dir.appendingPathComponent("identity-key"), encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let attributes = try FileManager.default.attributesOfItem(atPath: dir.appendingPathComponent("identity-key").path)
        XCTAssertEqual((attributes[.posixPermissions] as? NSNumber)?.intValue, 0o600, "key material is private")

        let heard = try NearcastProcess.decode(dir.appendingPathComponent("audio.wav").path)
        XCTAssertEqual(heard.count, 6)
        for token in heard {
            let offset = try XCTUnwrap(token["offset_s"] as? Double)
            let time = Int(offset.rounded())          // beacon time started at 0
            let expected = try NearcastProcess.run(["eid", "--key", key, "--exponent", "2", "--time", "\(time)"])
            XCTAssertEqual(token["kind"] as? String, "eid")
            XCTAssertEqual(token["payload"] as? String, expected.stdout.trimmingCharacters(in: .whitespacesAndNewlines),
                           "EID at beacon time \(time)")
        }
        XCTAssertEqual(Set(heard.compactMap { $0["payload"] as? String }).count, 2, "one rotation at t = 4 s")

        // A second run continues the beacon clock where the first stopped.
        let saved = try String(contentsOf: dir.appendingPathComponent("beacon-clock"), encoding: .utf8)
        XCTAssertEqual(saved.trimmingCharacters(in: .whitespacesAndNewlines), "6")
        let second = try NearcastProcess.run(["run", "--board", "sim", "--duration", "1", "--state-dir", dir.path,
                                              "--kind", "eid", "--exponent", "2"])
        XCTAssertTrue(second.stdout.contains("beacon time starts at 6"), second.stdout)
    }

    func testSIGTERMStopsCleanlyWithAValidFile() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let started = try NearcastProcess.start(["run", "--board", "sim", "--state-dir", dir.path])
        Thread.sleep(forTimeInterval: 2.5)
        kill(started.process.processIdentifier, SIGTERM)
        let result = try NearcastProcess.wait(started, timeout: 10)
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stdout.contains("stopped (SIGTERM)"), result.stdout)
        XCTAssertGreaterThanOrEqual(try NearcastProcess.decode(dir.appendingPathComponent("audio.wav").path).count, 2)
    }

    func testBadRunArgumentsFailWithAClearMessage() throws {
        let cases: [([String], String)] = [
            (["run", "--board", "no-such-board", "--duration", "1"], "no-such-board: no such board"),
            (["run", "--interval", "0.1"], "--interval 0.1"),
            (["run", "--payload", "xyz", "--duration", "1", "--state-dir", "/tmp/nearcast-e2e-unused"], "--payload: invalid hex payload 'xyz'"),
            (["run", "--duration=-3"], "--duration -3.0: use a positive number of seconds"),
        ]
        for (arguments, message) in cases {
            let result = try NearcastProcess.run(arguments)
            XCTAssertNotEqual(result.status, 0, "\(arguments)")
            XCTAssertTrue(result.stderr.contains(message), "\(arguments): \(result.stderr)")
        }
    }
}
