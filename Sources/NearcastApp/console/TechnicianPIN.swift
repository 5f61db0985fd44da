import NearcastCore
import NearcastDrivers

/// The optional technician PIN that guards the console's state-changing commands.
///
/// Only a salted PBKDF2-HMAC-SHA256 hash is kept, in `<state>/technician-pin` (mode 0600, a
/// `StateRecord` holding `pbkdf2-sha256 ITERATIONS SALT-HEX HASH-HEX`). The PIN itself is never stored, logged or
/// printed. Wrong PINs are counted in `<state>/pin-failures` so that a power cycle does not
/// clear the growing delay (``PINAttemptLimiter``). A PIN file that cannot be read keeps every
/// guarded command locked (failing closed); root removes the file to reset the PIN.
final class TechnicianPIN {
    /// What a check of a typed PIN came to.
    enum Outcome: Equatable {
        case accepted
        /// Wrong; `remaining` more wrong PINs before the delay starts.
        case wrong(remaining: Int, nextWait: Int64)
        /// Refused unchecked: too many wrong PINs, wait this many milliseconds.
        case wait(milliseconds: Int64)
        /// The stored hash is unusable: nothing can be accepted.
        case unusable(String)
    }

    fileprivate struct Stored: Equatable {
        var iterations: Int
        var salt: [UInt8]
        var hash: [UInt8]
    }

    static let minimumLength = 4
    static let maximumLength = 12

    let path: String
    let failuresPath: String
    private let state: StateDirectory
    private var stored: Stored?
    /// Why the PIN file could not be used (nil when it is fine or absent).
    private(set) var problem: String?
    private var limiter: PINAttemptLimiter
    /// Where wrong PINs and warnings are logged.
    var log: (String) -> Void

    /// Loads the PIN file and the failure count; `now` is in milliseconds.
    init(state: StateDirectory, now: Int64, log: @escaping (String) -> Void) {
        path = state.file("technician-pin")
        failuresPath = state.file("pin-failures")
        self.log = log
        self.state = state
        var failures = 0
        switch StateFile<Int>.pinFailures.load(from: state, log: log) {
        case .value(let count, _): failures = count
        case .absent: break
        case .damaged: failures = PINAttemptLimiter.freeAttempts      // unreadable: assume the worst
        }
        limiter = PINAttemptLimiter(failures: failures, now: now)
        switch StateFile<Stored>.pinRecord.load(from: state, log: log) {
        case .value(let record, _): stored = record
        case .absent: break
        case .damaged(let message):
            problem = message
            log("warning: \(message); console commands that change state stay locked until root removes the file")
        }
    }

    /// Whether a PIN guards the console (also when its file is unusable).
    var isSet: Bool { stored != nil || problem != nil }

    /// Wrong PINs since the last right one.
    var failures: Int { limiter.failures }

    /// Milliseconds before a PIN typed at `now` will be checked (0: now).
    func waitRemaining(at now: Int64) -> Int64 { limiter.waitRemaining(at: now) }

    /// Checks a typed PIN at `now` (milliseconds).
    func check(_ pin: String, at now: Int64) -> Outcome {
        if let problem { return .unusable(problem) }
        guard let stored else { return .accepted }
        let wait = limiter.waitRemaining(at: now)
        if wait > 0 { return .wait(milliseconds: wait) }
        let right: Bool
        do {
            right = PINHasher.constantTimeEqual(
                try PINHasher.hash(pin: Array(pin.utf8), salt: stored.salt, iterations: stored.iterations), stored.hash)
        } catch {
            return .unusable("\(error)")
        }
        if right {
            if limiter.failures > 0 { saveFailures(0) }
            limiter.recordSuccess()
            return .accepted
        }
        limiter.recordFailure(at: now)
        saveFailures(limiter.failures)
        log("console: wrong technician PIN (\(limiter.failures) since the last right one)")
        return .wrong(remaining: limiter.attemptsBeforeDelay, nextWait: limiter.waitRemaining(at: now))
    }

    /// Why `pin` is not acceptable as a new PIN, or nil.
    static func problem(withNew pin: String) -> String? {
        guard (minimumLength...maximumLength).contains(pin.utf8.count), pin.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else {
            return "a PIN is \(minimumLength) to \(maximumLength) digits"
        }
        return nil
    }

    /// Stores a new PIN (salted hash only).
    func set(_ pin: String) throws(PINChangeFailure) {
        if let message = Self.problem(withNew: pin) { throw .unacceptable(message) }
        do {
            let salt = try FileSystem.randomBytes(PINHasher.saltLength)
            let hash = try PINHasher.hash(pin: Array(pin.utf8), salt: salt, iterations: PINHasher.iterations)
            let record = Stored(iterations: PINHasher.iterations, salt: salt, hash: hash)
            try StateFile<Stored>.pinRecord.save(record, to: state)
            stored = record
            problem = nil
            limiter.recordSuccess()
            saveFailures(0)
        } catch {
            throw .notSaved("\(error)")
        }
    }

    /// Removes the PIN: every command is open again.
    func clear() throws(PINChangeFailure) {
        do { try StateFile<Stored>.pinRecord.remove(from: state) } catch { throw .notRemoved("\(error)") }
        stored = nil
        problem = nil
        limiter.recordSuccess()
        saveFailures(0)
    }

    private func saveFailures(_ count: Int) {
        do {
            if count == 0 { try StateFile<Int>.pinFailures.remove(from: state) } else {
                try StateFile<Int>.pinFailures.save(count, to: state)
            }
        } catch {
            log("warning: \(failuresPath): wrong-PIN count not saved: \(error)")
        }
    }

    fileprivate static func format(_ record: Stored) -> String {
        "pbkdf2-sha256 \(record.iterations) \(Hex.format(record.salt)) \(Hex.format(record.hash))"
    }

    private struct FormatError: Error, CustomStringConvertible {
        let description: String
    }

    fileprivate static func parse(_ text: String) throws -> Stored {
        let fields = text.split(whereSeparator: { $0 == " " || $0 == "\n" })
        guard fields.count == 4, fields[0] == "pbkdf2-sha256" else {
            throw FormatError(description: "not a PIN record (expected 'pbkdf2-sha256 ITERATIONS SALT HASH')")
        }
        guard let iterations = Int(fields[1]), (1_000...10_000_000).contains(iterations) else {
            throw FormatError(description: "iterations '\(fields[1])' out of range 1000-10000000")
        }
        guard let salt = try? Hex.parse(fields[2]), salt.count >= 8,
              let hash = try? Hex.parse(fields[3]), hash.count == PINHasher.hashLength else {
            throw FormatError(description: "salt or hash is not hex of the right length")
        }
        return Stored(iterations: iterations, salt: salt, hash: hash)
    }
}

extension StateFile where Value == TechnicianPIN.Stored {
    /// The PIN record: algorithm, iterations, salt and hash. No previous copy stands in for a
    /// damaged one: the previous PIN may be the one a technician changed because it leaked, so
    /// the console stays locked (failing closed) until root removes the file.
    fileprivate static var pinRecord: StateFile<TechnicianPIN.Stored> {
        var file = StateFile(name: "technician-pin", version: 1, encode: TechnicianPIN.format, decode: TechnicianPIN.parse)
        file.restores = { _ in false }
        return file
    }
}

/// Why the technician PIN was not changed: a new PIN that breaks the rules, or its file in the
/// state directory that could not be written or removed (the PIN in effect stays as it was).
enum PINChangeFailure: Error, Equatable, CustomStringConvertible {
    case unacceptable(String)
    case notSaved(String)
    case notRemoved(String)

    var description: String {
        switch self {
        case .unacceptable(let why): return why
        case .notSaved(let why): return "PIN not saved: \(why)"
        case .notRemoved(let why): return "PIN not removed: \(why)"
        }
    }
}
