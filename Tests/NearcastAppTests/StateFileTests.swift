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
            XCTAssertEqual(state.savedBeaconTime(log: log), 600 + BeaconClockReservation.defaultLeaseSeconds,
                           "the previous reservation plus a lease, never a cut-short number")
            try expectRestored("beacon-clock", how)
            try FileManager.default.removeItem(at: directory.appendingPathComponent("beacon-clock.damaged"))
        }
        // Both copies gone bad: the clock starts from 0 and says so.
        try damage("beacon-clock", .truncated)
        try damage("beacon-clock.previous", .corrupt)
        logged = []
        XCTAssertEqual(state.savedBeaconTime(log: log), 0)
        XCTAssertTrue(logged.contains { $0.contains("beacon-clock: truncated") && $0.hasSuffix("no previous copy that can stand in for it") }, "\(logged)")
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
            try FileManager.default.removeItem(at: directory.appendingPathComponent("identity-key.damaged"))
        }
        // Lost, not reset: a missing key with its backup beside it is never replaced.
        try FileManager.default.removeItem(at: directory.appendingPathComponent("identity-key"))
        XCTAssertThrowsError(try state.identityKey(log: log)) { error in
            XCTAssertTrue("\(error)".contains("identity-key is missing but \(directory.path)/identity-key.previous exists"), "\(error)")
        }
        XCTAssertEqual(try text("identity-key.previous").contains(Hex.format(key)), true, "the backup is untouched")
        try FileManager.default.copyItem(at: directory.appendingPathComponent("identity-key.previous"),
                                         to: directory.appendingPathComponent("identity-key"))
        try damage("identity-key", .corrupt)
        try damage("identity-key.previous", .truncated)
        XCTAssertThrowsError(try state.identityKey(log: log)) { error in
            XCTAssertTrue("\(error)".contains("identity-key: damaged (its CRC-32 does not match); move identity-key and identity-key.previous aside"), "\(error)")
        }
    }

    /// Only a previous "denied" stands in for a damaged consent file: a previous "granted"
    /// may be older than a "denied" that was lost.
    func testConsentFailsSafe() throws {
        for how in Damage.allCases {
            try state.saveConsent(true)
            try state.saveConsent(false)
            try state.saveConsent(false)
            try damage("consent", how)
            logged = []
            XCTAssertFalse(state.savedConsent(log: log))
            try expectRestored("consent", how)
            try FileManager.default.removeItem(at: directory.appendingPathComponent("consent.damaged"))
        }
        // granted, then denied, then the file damaged: the previous copy says granted, and is
        // not believed.
        try state.saveConsent(true)
        try state.saveConsent(false)
        try damage("consent", .corrupt)
        logged = []
        XCTAssertFalse(state.savedConsent(log: log), "never granted from an older copy")
        XCTAssertTrue(logged.contains { $0.contains("consent: damaged (its CRC-32 does not match)") && $0.hasSuffix("no previous copy that can stand in for it") },
                      "\(logged)")
        try state.saveConsent(true)
        try state.saveConsent(true)
        try damage("consent", .truncated)
        logged = []
        XCTAssertFalse(state.savedConsent(log: log), "a previous granted is not taken")
        XCTAssertTrue(logged.contains { $0.contains("consent: truncated") && $0.hasSuffix("no previous copy that can stand in for it") }, "\(logged)")
    }

    /// A damaged PIN record is never replaced by the previous PIN (it may be the one changed
    /// because it leaked): every guarded command stays locked, failing closed.
    func testTechnicianPINFailsClosed() throws {
        for how in Damage.allCases {
            let pin = TechnicianPIN(state: state, now: 0, log: log)
            try pin.set("1234")
            try pin.set("5678")
            try damage("technician-pin", how)
            logged = []
            let locked = TechnicianPIN(state: state, now: 0, log: log)
            XCTAssertTrue(locked.isSet)
            for typed in ["1234", "5678"] {
                guard case .unusable = locked.check(typed, at: 0) else { return XCTFail("\(how): a damaged PIN file accepted \(typed)") }
            }
            XCTAssertTrue(logged.contains { $0.contains("technician-pin: ") && $0.contains("stay locked until root removes the file") }, "\(logged)")
            try locked.clear()
        }
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
        let settings = SavedSettings(SettingsLayer(mediums: .both, mode: .broadcast, audioLevel: 40, bleInterval: 100,
                                     txPower: -12, debug: false, publications: ["direct:c0ffee@both"]))
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

    /// The static config: a broken file at start falls back to the last one the box started
    /// from; a file is only kept as the last good copy once its board has loaded.
    func testConfigFallsBackToTheLastGoodCopy() throws {
        let config = directory.appendingPathComponent("nearcast.json5")
        try "{ board: \"sim\", audioLevel: 30 }\n".write(to: config, atomically: true, encoding: .utf8)
        let first = try StaticConfig.loadAtStart(config.path, lastGoodIn: state.path, log: log)
        XCTAssertEqual(first.config.audioLevel, 30)
        XCTAssertNil(StaticConfig.lastGood(in: state.path), "not kept before the box has started from it")
        StaticConfig.rememberLastGood(try XCTUnwrap(first.text), in: state.path, log: log)
        for broken in ["{ board: \"sim\", audioLevel: 3O }\n", "{ board: \"sim\", audi"] {
            try broken.write(to: config, atomically: true, encoding: .utf8)
            logged = []
            let loaded = try StaticConfig.loadAtStart(config.path, lastGoodIn: state.path, log: log)
            XCTAssertEqual(loaded.config.audioLevel, 30)
            XCTAssertNil(loaded.text, "the last good copy is not kept again")
            XCTAssertTrue(logged.contains { $0.hasPrefix("error: \(config.path):1:") && $0.contains("starting from the last good configuration") },
                          "\(logged)")
        }
        // SIGHUP: a file whose board does not load is not kept as the last good copy.
        try "{ board: \"rpi9\", audioLevel: 40 }\n".write(to: config, atomically: true, encoding: .utf8)
        XCTAssertEqual(try StaticConfig.reload(config.path, lastGoodIn: state.path, log: log).audioLevel, 40)
        XCTAssertEqual(StaticConfig.lastGood(in: state.path)?.audioLevel, 30)
        // Without a state directory (or a last good copy) a broken file is still an error.
        try "{ audi".write(to: config, atomically: true, encoding: .utf8)
        XCTAssertThrowsError(try StaticConfig.loadAtStart(config.path, lastGoodIn: nil, log: log))
    }

    /// Every truncation of every kind of record, through the loaders the daemon uses (which
    /// also read bare legacy values): none is taken for a value.
    func testNoTruncationOfAnyStateFileIsTakenForAValue() throws {
        try state.saveBeaconTime(4242)
        try state.saveConsent(true)
        _ = try state.identityKey(log: log)
        let pin = TechnicianPIN(state: state, now: 0, log: log)
        try pin.set("1234")
        _ = pin.check("0000", at: 0)
        for name in ["beacon-clock", "consent", "identity-key", "technician-pin", "pin-failures"] {
            let url = directory.appendingPathComponent(name)
            let whole = try Data(contentsOf: url)
            for length in 1..<whole.count {
                try whole.prefix(length).write(to: url)
                for copy in ["previous", "damaged"] {
                    try? FileManager.default.removeItem(at: url.appendingPathExtension(copy))
                }
                logged = []
                switch name {
                case "beacon-clock": XCTAssertEqual(state.savedBeaconTime(log: log), 0, "\(name) cut to \(length)")
                case "consent": XCTAssertFalse(state.savedConsent(log: log), "\(name) cut to \(length)")
                case "identity-key": XCTAssertThrowsError(try state.identityKey(log: log), "\(name) cut to \(length)")
                case "technician-pin":
                    guard case .unusable = TechnicianPIN(state: state, now: 0, log: log).check("1234", at: 0) else {
                        return XCTFail("\(name) cut to \(length) was accepted")
                    }
                default:
                    XCTAssertEqual(TechnicianPIN(state: state, now: 0, log: log).failures, PINAttemptLimiter.freeAttempts,
                                   "\(name) cut to \(length): the worst is assumed")
                }
            }
            try whole.write(to: url)
        }
    }

    /// Saving over a damaged file keeps its bytes aside first, and no earlier damaged copy is
    /// overwritten.
    func testSavingOverADamagedFileKeepsItAside() throws {
        try state.saveConsent(true)
        try damage("consent", .corrupt)
        let firstDamage = try Data(contentsOf: directory.appendingPathComponent("consent"))
        try state.saveConsent(false)
        XCTAssertEqual(try Data(contentsOf: directory.appendingPathComponent("consent.damaged")), firstDamage)
        try damage("consent", .truncated)
        let secondDamage = try Data(contentsOf: directory.appendingPathComponent("consent"))
        try state.saveConsent(false)
        XCTAssertEqual(try Data(contentsOf: directory.appendingPathComponent("consent.damaged")), firstDamage)
        XCTAssertEqual(try Data(contentsOf: directory.appendingPathComponent("consent.damaged.2")), secondDamage)
        XCTAssertFalse(state.savedConsent(log: log))
    }

    /// Files written before the envelope existed are still read, and rewritten in it (the
    /// identity key with its backup).
    func testLegacyBareValuesAreReadAndUpgraded() throws {
        try "4242\n".write(to: directory.appendingPathComponent("beacon-clock"), atomically: true, encoding: .utf8)
        try "granted\n".write(to: directory.appendingPathComponent("consent"), atomically: true, encoding: .utf8)
        try "a2c873f26ebae374d9f7efbcd922ca1c\n".write(to: directory.appendingPathComponent("identity-key"), atomically: true, encoding: .utf8)
        XCTAssertEqual(state.savedBeaconTime(log: log), 4242)
        XCTAssertTrue(state.savedConsent(log: log))
        XCTAssertEqual(Hex.format(try state.identityKey(log: log)), "a2c873f26ebae374d9f7efbcd922ca1c")
        XCTAssertEqual(logged, [])
        XCTAssertTrue(try text("beacon-clock").hasPrefix("nearcast-state beacon-clock 1\n4242\n"))
        XCTAssertTrue(try text("consent").hasPrefix("nearcast-state consent 1\ngranted\n"))
        XCTAssertEqual(try text("identity-key"), try text("identity-key.previous"), "the key now has its backup")
    }
}
