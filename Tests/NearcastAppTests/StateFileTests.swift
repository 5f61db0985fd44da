import Foundation
import XCTest
@testable import NearcastApp
@testable import NearcastCore

/// Each state file, damaged and cut short, through the same loaders the daemon uses: a clear
/// error line naming the file, the damaged copy kept aside, and the last good value used.
final class StateFileTests: XCTestCase {
    private var directory: URL!
    private var state: StateDirectory!
    private var logged: [String] = []

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("nearcast-statefile-\(UUID().uuidString)")
        state = try StateDirectory(path: directory.path)
        logged = []
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: directory)
    }

    private func log(_ line: String) { logged.append(line) }

    private enum Damage: CaseIterable { case corrupt, truncated }

    /// Damages `name` in place: one changed byte in the value line, or the file cut in half.
    private func damage(_ name: String, _ how: Damage) throws {
        let url = directory.appendingPathComponent(name)
        var bytes = [UInt8](try Data(contentsOf: url))
        switch how {
        case .corrupt:
            let valueStart = try XCTUnwrap(bytes.firstIndex(of: 0x0A)) + 1
            bytes[valueStart] = bytes[valueStart] == 0x30 ? 0x31 : 0x30
        case .truncated:
            bytes = Array(bytes[0..<(bytes.count / 2)])
        }
        try Data(bytes).write(to: url)
    }

    private func text(_ name: String) throws -> String {
        try String(contentsOf: directory.appendingPathComponent(name), encoding: .utf8)
    }

    /// The shared expectations once `name` was damaged with a good previous copy.
    private func expectRestored(_ name: String, _ how: Damage, file: StaticString = #filePath, line: UInt = #line) throws {
        let reason = how == .corrupt ? "damaged (its CRC-32 does not match)" : "truncated"
        XCTAssertTrue(logged.contains { $0.hasPrefix("error: \(directory.path)/\(name): \(reason)") && $0.contains("kept aside as \(name).damaged") },
                      "\(logged)", file: file, line: line)
        XCTAssertTrue(FileManager.default.fileExists(atPath: directory.appendingPathComponent(name + ".damaged").path), file: file, line: line)
        XCTAssertEqual(try text(name), try text(name + ".previous"), "the last good copy is restored", file: file, line: line)
    }

    func testBeaconClock() throws {
        for how in Damage.allCases {
            try state.saveBeaconTime(600)
            try state.saveBeaconTime(1200)
            try damage("beacon-clock", how)
            logged = []
            XCTAssertEqual(state.savedBeaconTime(log: log), 600, "the previous reservation, never a cut-short number")
            try expectRestored("beacon-clock", how)
        }
        // Both copies gone bad: the clock starts from 0 and says so.
        try damage("beacon-clock", .truncated)
        try damage("beacon-clock.previous", .corrupt)
        logged = []
        XCTAssertEqual(state.savedBeaconTime(log: log), 0)
        XCTAssertTrue(logged.contains { $0.contains("beacon-clock: truncated") && $0.hasSuffix("no good previous copy") }, "\(logged)")
        XCTAssertTrue(logged.contains { $0.contains("the beacon clock starts again from 0") }, "\(logged)")
    }

    func testIdentityKeyIsRestoredFromItsBackupAndNeverReplacedSilently() throws {
        let key = try state.identityKey(log: log)
        XCTAssertEqual(try text("identity-key"), try text("identity-key.previous"), "the key is written with a backup")
        for how in Damage.allCases {
            try damage("identity-key", how)
            logged = []
            XCTAssertEqual(try state.identityKey(log: log), key)
            try expectRestored("identity-key", how)
        }
        try damage("identity-key", .corrupt)
        try damage("identity-key.previous", .truncated)
        XCTAssertThrowsError(try state.identityKey(log: log)) { error in
            XCTAssertTrue("\(error)".contains("identity-key: damaged (its CRC-32 does not match); move it aside to make a new key"), "\(error)")
        }
    }

    func testConsent() throws {
        for how in Damage.allCases {
            try state.saveConsent(true)
            try state.saveConsent(true)
            try damage("consent", how)
            logged = []
            XCTAssertTrue(state.savedConsent(log: log))
            try expectRestored("consent", how)
        }
        // No good copy at all: consent must be asked again, never assumed.
        try state.saveConsent(true)
        try FileManager.default.removeItem(at: directory.appendingPathComponent("consent.previous"))
        try damage("consent", .truncated)
        logged = []
        XCTAssertFalse(state.savedConsent(log: log))
        XCTAssertTrue(logged.contains { $0.contains("consent: truncated") && $0.hasSuffix("no good previous copy") }, "\(logged)")
    }

    func testTechnicianPIN() throws {
        let pin = TechnicianPIN(state: state, now: 0, log: log)
        try pin.set("1234")
        try pin.set("5678")
        for how in Damage.allCases {
            try damage("technician-pin", how)
            logged = []
            let loaded = TechnicianPIN(state: state, now: 0, log: log)
            XCTAssertEqual(loaded.check("1234", at: 0), .accepted, "the last good PIN record is used")
            try expectRestored("technician-pin", how)
            try loaded.set("5678")
        }
        // Both copies bad: every guarded command stays locked (failing closed).
        try damage("technician-pin", .corrupt)
        try damage("technician-pin.previous", .corrupt)
        let locked = TechnicianPIN(state: state, now: 0, log: log)
        XCTAssertTrue(locked.isSet)
        guard case .unusable = locked.check("5678", at: 0) else { return XCTFail("a damaged PIN file must not accept a PIN") }
    }

    func testWrongPINCount() throws {
        let pin = TechnicianPIN(state: state, now: 0, log: log)
        try pin.set("1234")
        _ = pin.check("0000", at: 0)
        _ = pin.check("0001", at: 1)
        try damage("pin-failures", .truncated)
        logged = []
        XCTAssertEqual(TechnicianPIN(state: state, now: 0, log: log).failures, 1, "the previous count")
        try expectRestored("pin-failures", .truncated)
        try damage("pin-failures", .corrupt)
        try damage("pin-failures.previous", .corrupt)
        XCTAssertEqual(TechnicianPIN(state: state, now: 0, log: log).failures, PINAttemptLimiter.freeAttempts, "unreadable: the worst is assumed")
    }

    /// The settings file has its own JSON5 format (with a version key); damaged or cut short,
    /// it is kept aside and the previous copy used.
    func testSettings() throws {
        let settings = SavedSettings(strategy: Strategy(mediums: .both, mode: .broadcast), audioLevel: 40, bleIntervalMilliseconds: 100,
                                     txPower: -12, debug: false, publications: ["direct:c0ffee@both"])
        for how in Damage.allCases {
            try settings.save(to: state, beaconTime: 1)
            var changed = settings
            changed.audioLevel = 60
            try changed.save(to: state, beaconTime: 2)
            let url = directory.appendingPathComponent(SavedSettings.fileName)
            let good = try text(SavedSettings.fileName)
            switch how {
            case .corrupt: try good.replacingOccurrences(of: "audioLevel: 60", with: "audioLevel: 6O").write(to: url, atomically: false, encoding: .utf8)
            case .truncated: try String(good.prefix(good.count / 2)).write(to: url, atomically: false, encoding: .utf8)
            }
            logged = []
            XCTAssertEqual(SavedSettings.load(from: state, log: log), settings, "the previous settings")
            XCTAssertTrue(logged.contains { $0.hasPrefix("error: \(url.path)") && $0.hasSuffix("kept aside as \(url.path).damaged") }, "\(logged)")
            try FileManager.default.removeItem(at: url.appendingPathExtension("damaged"))
        }
    }

    /// The static config: a broken file at start falls back to the last one that loaded.
    func testConfigFallsBackToTheLastGoodCopy() throws {
        let config = directory.appendingPathComponent("nearcast.json5")
        try "{ board: \"sim\", audioLevel: 30 }\n".write(to: config, atomically: true, encoding: .utf8)
        XCTAssertEqual(try StaticConfig.load(config.path, lastGoodIn: state.path, log: log).audioLevel, 30)
        for broken in ["{ board: \"sim\", audioLevel: 3O }\n", "{ board: \"sim\", audi"] {
            try broken.write(to: config, atomically: true, encoding: .utf8)
            logged = []
            XCTAssertEqual(try StaticConfig.load(config.path, lastGoodIn: state.path, log: log).audioLevel, 30)
            XCTAssertTrue(logged.contains { $0.hasPrefix("error: \(config.path):1:") && $0.contains("starting from the last good configuration") },
                          "\(logged)")
        }
        // Without a state directory (or a last good copy) a broken file is still an error.
        XCTAssertThrowsError(try StaticConfig.load(config.path, lastGoodIn: nil, log: log))
    }

    /// Files written before the envelope existed are still read.
    func testLegacyBareValuesAreRead() throws {
        try "4242\n".write(to: directory.appendingPathComponent("beacon-clock"), atomically: true, encoding: .utf8)
        try "granted\n".write(to: directory.appendingPathComponent("consent"), atomically: true, encoding: .utf8)
        XCTAssertEqual(state.savedBeaconTime(log: log), 4242)
        XCTAssertTrue(state.savedConsent(log: log))
        XCTAssertEqual(logged, [])
    }
}
