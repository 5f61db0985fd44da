import Foundation
import XCTest

/// The daemon on the simulated board, driven as a separate process.
final class DaemonEndToEndTests: XCTestCase {
    /// Bursts of one publication start this far apart by default: the interval is 1 s, but a
    /// 0.72 s burst under the 50 % duty cap needs 1.44 s.
    static let burstSpacing = 1.44

    func testFiveSecondRunBroadcastsThePublishedPayloadAtTheDutyCappedCadence() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let started = Date()
        let run = try NearcastProcess.run(["run", "--board", "sim", "--duration", "5", "--state-dir", dir.path,
                                           "--payload", "c0ffee0000000001"])
        let elapsed = Date().timeIntervalSince(started)
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertGreaterThanOrEqual(elapsed, 4.5, "the simulated speaker plays in real time")
        // Bursts start at 0, 1.44, 2.88 and 4.32 s.
        XCTAssertEqual(run.lines.filter { $0.contains("burst #") }.count, 4, run.stdout)

        let tokens = try NearcastProcess.decode(dir.appendingPathComponent("audio.wav").path)
        let ours = tokens.filter { $0["payload"] as? String == "c0ffee0000000001" && $0["kind"] as? String == "direct" }
        XCTAssertGreaterThanOrEqual(ours.count, 3, "\(tokens)")
        XCTAssertEqual(ours.count, tokens.count, "nothing but the published payload")
        let offsets = ours.compactMap { $0["offset_s"] as? Double }
        for (index, offset) in offsets.enumerated() {
            XCTAssertEqual(offset, Double(index) * Self.burstSpacing, accuracy: 0.01, "one burst every 1.44 s")
        }
    }

    func testEIDPublicationRotatesAtItsEpochAndTheBeaconClockPersists() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        // K = 2: a new EID every 4 s of beacon time.
        // 8 s: bursts every 1.44 s, so two of them (5.76 and 7.2 s) fall after the switch.
        let first = try NearcastProcess.run(["run", "--board", "sim", "--duration", "8", "--state-dir", dir.path,
                                             "--kind", "eid", "--exponent", "2"])
        XCTAssertEqual(first.status, 0, first.stderr)
        let key = try stateValue(dir.appendingPathComponent("identity-key"))
        let attributes = try FileManager.default.attributesOfItem(atPath: dir.appendingPathComponent("identity-key").path)
        XCTAssertEqual((attributes[.posixPermissions] as? NSNumber)?.intValue, 0o600, "key material is private")

        func eid(at time: Int) throws -> String {
            try NearcastProcess.run(["eid", "--key", key, "--exponent", "2", "--time", "\(time)"])
                .stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        // The switch to the EID of the epoch starting at 4 s happens at a random moment in the
        // first quarter of the epoch (4.0-5.0 s), logged as it happens.
        let switchLine = try XCTUnwrap(first.lines.first { $0.contains("switched to EID") }, first.stdout)
        let switchTime = try XCTUnwrap(Double(switchLine.drop { $0 == "[" || $0 == " " }.prefix { $0 != " " }))
        XCTAssertTrue((4.0..<5.0).contains(switchTime), switchLine)
        XCTAssertTrue(switchLine.contains(try eid(at: 4)), switchLine)
        let heard = try NearcastProcess.decode(dir.appendingPathComponent("audio.wav").path)
        XCTAssertEqual(heard.count, 6, "bursts at 0, 1.44, 2.88, 4.32, 5.76 and 7.2 s")
        for token in heard {
            let offset = try XCTUnwrap(token["offset_s"] as? Double)
            let time = Int(offset.rounded())          // beacon time started at 0
            XCTAssertEqual(token["kind"] as? String, "eid")
            // A burst starting in the same 20 ms period as the switch may carry either EID (which
            // one depends on the order of the two moments inside the period); outside it, exactly
            // the epoch's.
            if abs(offset - switchTime) < 0.021 {
                XCTAssertTrue([try eid(at: 0), try eid(at: 4)].contains(token["payload"] as? String ?? ""), "\(token)")
                continue
            }
            let epoch = offset >= switchTime ? 4 : 0
            XCTAssertEqual(token["payload"] as? String, try eid(at: epoch), "EID on air at beacon time \(time) (switch at \(switchTime) s)")
        }
        XCTAssertEqual(Set(heard.compactMap { $0["payload"] as? String }).count, 2, "one rotation")
        // BLE switched in the same period, from a new random address.
        let ble = try String(contentsOf: dir.appendingPathComponent("ble.log"), encoding: .utf8)
            .split(separator: "\n").filter { $0.contains("advertise") }
        XCTAssertEqual(ble.count, 2, ble.joined(separator: "\n"))
        let (eid0, eid4) = (try eid(at: 0), try eid(at: 4))
        XCTAssertTrue(ble[0].hasPrefix("0.000 set 0 advertise") && ble[0].hasSuffix(eid0), String(ble[0]))
        XCTAssertTrue(ble[1].hasSuffix(eid4), String(ble[1]))
        let bleTime = try XCTUnwrap(Double(ble[1].prefix { $0 != " " }))
        XCTAssertEqual(bleTime, switchTime, accuracy: 0.021, "BLE switches in the audio period of the switch")
        func address(_ line: Substring) -> Substring? { line.split(separator: " ").drop { $0 != "address" }.dropFirst().first }
        XCTAssertNotEqual(address(ble[0]), address(ble[1]), "the random address rotates with the EID")

        // A second run continues the beacon clock where the first stopped.
        XCTAssertEqual(try stateValue(dir.appendingPathComponent("beacon-clock")), "8")
        let second = try NearcastProcess.run(["run", "--board", "sim", "--duration", "1", "--state-dir", dir.path,
                                              "--kind", "eid", "--exponent", "2"])
        XCTAssertTrue(second.stdout.contains("beacon time starts at 8"), second.stdout)
    }

    func testSIGTERMStopsCleanlyWithAValidFile() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let started = try NearcastProcess.start(["run", "--board", "sim", "--state-dir", dir.path])
        // Two bursts played whole: the third has started.
        XCTAssertNotNil(NearcastProcess.waitForOutput(started) { NearcastProcess.burstCount(in: $0) >= 3 },
                        NearcastProcess.output(of: started))
        kill(started.process.processIdentifier, SIGTERM)
        let result = try NearcastProcess.wait(started, timeout: 10)
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stdout.contains("stopped (SIGTERM)"), result.stdout)
        XCTAssertGreaterThanOrEqual(try NearcastProcess.decode(dir.appendingPathComponent("audio.wav").path).count, 2)
    }

    /// Three publications: audio bursts take turns, the legacy advertiser rotates the BLE ones,
    /// and the advertising data is exactly what `ble-frame` prints.
    func testSeveralPublicationsShareTheMediums() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let run = try NearcastProcess.run(["run", "--board", "sim", "--duration", "6", "--state-dir", dir.path,
                                           "--publish", "direct:c0ffee@audio", "--publish", "direct:0102@ble",
                                           "--publish", "direct:abcdef01@both"])
        XCTAssertEqual(run.status, 0, run.stderr)
        let heard = try NearcastProcess.decode(dir.appendingPathComponent("audio.wav").path)
        XCTAssertEqual(Array(heard.compactMap { $0["payload"] as? String }.prefix(4)),
                       ["c0ffee", "abcdef01", "c0ffee", "abcdef01"], "round-robin, one burst every 1.44 s")
        let ble = try String(contentsOf: dir.appendingPathComponent("ble.log"), encoding: .utf8)
            .split(separator: "\n").filter { $0.contains("advertise") }.map { String($0.split(separator: " ").last!) }
        let frame0102 = try NearcastProcess.run(["ble-frame", "--kind", "direct", "--payload", "0102", "--tx-power=-12"]).stdout
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let frameABCD = try NearcastProcess.run(["ble-frame", "--kind", "direct", "--payload", "abcdef01", "--tx-power=-12"]).stdout
            .trimmingCharacters(in: .whitespacesAndNewlines)
        XCTAssertEqual(ble, [frame0102, frameABCD, frame0102, frameABCD, frame0102, frameABCD],
                       "the BLE publications take turns on the one legacy set, a second each")
    }

    /// A power cut (SIGKILL) right after start: the saved reservation puts the next start ahead
    /// of every beacon time already broadcast.
    func testBeaconClockNeverGoesBackwardsAfterAPowerCut() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        try "1000\n".write(to: dir.appendingPathComponent("beacon-clock"), atomically: true, encoding: .utf8)
        func beaconTimes(_ log: String) -> [Int] {
            log.split(separator: "\n").compactMap { line -> Int? in
                guard let range = line.range(of: "beacon-time ") else { return nil }
                return Int(line[range.upperBound...].prefix { $0.isNumber })
            }
        }
        let started = try NearcastProcess.start(["run", "--board", "sim", "--state-dir", dir.path])
        // The power goes once a burst past the saved beacon time is on the air.
        XCTAssertNotNil(NearcastProcess.waitForOutput(started) { (beaconTimes($0).max() ?? 0) >= 1_001 },
                        NearcastProcess.output(of: started))
        kill(started.process.processIdentifier, SIGKILL)
        let killed = try NearcastProcess.wait(started, timeout: 10)
        XCTAssertGreaterThanOrEqual(beaconTimes(killed.stdout).max() ?? 0, 1_001, killed.stdout)
        XCTAssertEqual(try stateValue(dir.appendingPathComponent("beacon-clock")), "1600", "the reservation written at start")
        let next = try NearcastProcess.run(["run", "--board", "sim", "--duration", "1", "--state-dir", dir.path])
        XCTAssertTrue(next.stdout.contains("beacon time starts at 1600"), next.stdout)
    }

    /// The scan side in a running daemon: on the sim board the microphone hears the speaker and
    /// the scanner the advertiser; each token is found once, and the EID that rotated away is lost.
    func testSubscriptionFindsAndLosesTokensInTheDaemon() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let run = try NearcastProcess.run(["run", "--board", "sim", "--duration", "8", "--state-dir", dir.path,
                                           "--publish", "eid:2@audio", "--publish", "direct:0102@ble",
                                           "--subscribe", "both", "--lost-after", "2"])
        XCTAssertEqual(run.status, 0, run.stderr)
        let key = try stateValue(dir.appendingPathComponent("identity-key"))
        func eid(at time: Int) throws -> String {
            try NearcastProcess.run(["eid", "--key", key, "--exponent", "2", "--time", "\(time)"])
                .stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        let events = run.lines.compactMap { line -> String? in
            guard let range = line.range(of: "] found ") ?? line.range(of: "] lost ") else { return nil }
            return String(line[line.index(after: range.lowerBound)...]).trimmingCharacters(in: .whitespaces)
        }
        let (first, second) = (try eid(at: 0), try eid(at: 4))
        XCTAssertEqual(Set(events), ["found direct 0102 over ble", "found eid \(first) over audio",
                                     "found eid \(second) over audio", "lost eid \(first)"], run.stdout)
        XCTAssertEqual(events.count, 4, "each token found once: \(run.stdout)")
        XCTAssertLessThan(events.firstIndex(of: "found eid \(first) over audio")!, events.firstIndex(of: "lost eid \(first)")!)
    }

    func testBadRunArgumentsFailWithAClearMessage() throws {
        let cases: [([String], String)] = [
            (["run", "--board", "no-such-board", "--duration", "1"], "no-such-board: no such board"),
            (["run", "--interval", "0.1"], "--interval 0.1"),
            (["run", "--payload", "xyz", "--duration", "1", "--state-dir", "/tmp/nearcast-e2e-unused"], "--payload: invalid hex payload 'xyz'"),
            (["run", "--duration=-3"], "--duration -3.0: use a positive number of seconds"),
            (["run", "--publish", "direct:zz"], "--publish direct:zz: invalid hex payload 'zz'"),
            (["run", "--publish", "eid:16"], "--publish eid:16: the rotation exponent must be 0 to 15, not 16"),
            (["run", "--publish", "direct:01@radio"], "--publish direct:01@radio: mediums 'radio' must be audio, ble or both"),
            (["run", "--publish", "beacon"], "--publish beacon: start with direct:HEX, eid[:K], message:NAMESPACE/TYPE:TEXT or hub"),
            (["run", "--name", ""], "--name '': give 1 to 100 characters"),
            (["run", "--publish", "hub", "--duration", "1", "--state-dir", "/tmp/nearcast-e2e-unused"], "a message is published through a hub: add --hub URL --hub-key SECRET"),
            (["run", "--publish", "message:demo/slide:x", "--duration", "1", "--state-dir", "/tmp/nearcast-e2e-unused"],
             "a message is published through a hub: add --hub URL --hub-key SECRET"),
            (["run", "--hub", "http://127.0.0.1:1"], "--hub needs --hub-key SECRET"),
            (["run", "--mediums", "sound"], "--mediums sound: use audio, ble or both"),
            (["run", "--subscribe", "radio"], "--subscribe radio: use audio, ble or both"),
            (["run", "--lost-after", "0"], "--lost-after 0.0: use 1 to 3600 seconds"),
        ]
        for (arguments, message) in cases {
            let result = try NearcastProcess.run(arguments)
            XCTAssertNotEqual(result.status, 0, "\(arguments)")
            XCTAssertTrue(result.stderr.contains(message), "\(arguments): \(result.stderr)")
        }
    }
}
