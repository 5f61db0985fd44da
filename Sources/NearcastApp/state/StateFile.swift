import NearcastCore
import NearcastDrivers

/// One small file in the state directory, kept in a `StateRecord` envelope (versioned and
/// checksummed), mode 0600: every state file is the box's own business. Written and read
/// through ``GuardedFile`` (atomic saves, the last good copy as `NAME.previous`, damaged
/// versions kept aside), like every file Nearcast must not lose.
///
/// - A file written before the envelope existed (a bare value) is rewritten in it the first
///   time it is read.
/// - A damaged file whose previous copy is good, and allowed to stand in for it (`restores`),
///   is kept aside and replaced by the previous copy, with an error line. Otherwise the damaged
///   file is left in place and reported, and each caller decides what a damaged value means: no
///   consent; the PIN keeps the console locked; no EIDs from a key it cannot read. A file that
///   cannot be read at all (EIO, EACCES) is reported and left alone.
/// - A missing file is absent, whatever `.previous` holds: removing a file is how a technician
///   resets it (consent asked again); the identity key checks its copies itself.
struct StateFile<Value> {
    /// What a load found.
    enum Loaded {
        case absent
        /// The value; `restored` when it came from the previous copy.
        case value(Value, restored: Bool)
        /// The file is unusable and no previous copy may stand in; the message names the file
        /// and why.
        case damaged(String)
    }

    let name: String
    let version: Int
    let encode: (Value) -> String
    /// The value of a record's text, or why it is not one.
    let decode: (String) throws -> Value
    /// Whether a good previous copy holding this value may stand in for a damaged file. Not
    /// always: a previous "granted" may be older than the "denied" that was lost.
    var restores: (Value) -> Bool = { _ in true }
    /// For a value written once (the identity key): the previous copy is a backup of the same
    /// value, written with it.
    var keepsBackup = false

    func load(from state: StateDirectory, log: (String) -> Void) -> Loaded {
        let path = state.file(name)
        switch file(in: state).load(previousMayStandIn: { text in (try? decoded(text)).map { restores($0.value) } ?? false }) {
        case .absent:
            return .absent
        case .good(let text):
            guard let (value, recordVersion) = try? decoded(text) else { return .damaged("\(path): unreadable record") }
            if recordVersion == 0 {
                do { try save(value, to: state) } catch { log("warning: \(path): not rewritten in the checksummed format: \(error)") }
            }
            return .value(value, restored: false)
        case .unreadable(let why):
            log("error: \(path): \(why); left as it is")
            return .damaged("\(path): \(why)")
        case .bad(let problem):
            log("error: \(path): \(problem); no previous copy that can stand in for it")
            return .damaged("\(path): \(problem)")
        case .restored(let text, let problem, let keptAs, let failure):
            guard let (value, _) = try? decoded(text) else { return .damaged("\(path): \(problem)") }
            if let keptAs {
                log("error: \(path): \(problem); kept aside as \(keptAs.dropFirst(state.path.count + 1)) and the last good copy (\(name).previous) restored")
            } else {
                log("error: \(path): \(problem); using the last good copy (\(name).previous), which could not be restored: \(failure.map { "\($0)" } ?? "")")
            }
            return .value(value, restored: true)
        }
    }

    /// Replaces the file; the good file it replaces becomes `NAME.previous`, a damaged one is
    /// kept aside first.
    func save(_ value: Value, to state: StateDirectory) throws(SystemError) {
        try file(in: state).save(StateRecord.encode(kind: name, version: version, value: encode(value)), backup: keepsBackup)
    }

    /// Removes the file and its previous copy.
    func remove(from state: StateDirectory) throws(SystemError) {
        try file(in: state).remove()
    }

    private func file(in state: StateDirectory) -> GuardedFile {
        GuardedFile(path: state.file(name), limit: 4096) { text in
            do { _ = try decoded(text); return nil } catch { return "\(error)" }
        }
    }

    /// The value and record version of a file's text.
    private func decoded(_ text: String) throws -> (value: Value, version: Int) {
        let record = try StateRecord.decode(text, kind: name, supported: 0...version)
        return (try decode(record.value), record.version)
    }
}

extension StateFile where Value == Bool {
    /// Consent: `granted` or `denied`. Only a previous "denied" stands in for a damaged file:
    /// a previous "granted" may be older than a "denied" that was lost, and broadcasting
    /// against the operator's decision is worse than asking again.
    static var consent: StateFile<Bool> {
        var file = StateFile(name: "consent", version: 1, encode: { $0 ? "granted" : "denied" }) { text in
            switch text {
            case "granted": return true
            case "denied": return false
            default: throw StateValueError("the value is neither granted nor denied")
            }
        }
        file.restores = { granted in !granted }
        return file
    }
}

extension StateFile where Value == UInt32 {
    /// The beacon clock's saved reservation, seconds.
    static var beaconClock: StateFile<UInt32> {
        StateFile(name: "beacon-clock", version: 1, encode: { String($0) }) { text in
            guard let value = UInt32(text) else { throw StateValueError("the value is not a beacon time") }
            return value
        }
    }
}

extension StateFile where Value == [UInt8] {
    /// The Eddystone identity key, 16 bytes in hex, written once with a backup copy.
    static var identityKey: StateFile<[UInt8]> {
        var file = StateFile(name: "identity-key", version: 1, encode: { Hex.format($0) }) { text in
            do { return try EphemeralIdentifier.identityKey(hex: text) } catch {
                throw StateValueError("not a 16-byte hex identity key")
            }
        }
        file.keepsBackup = true
        return file
    }
}

extension StateFile where Value == Int {
    /// Wrong technician PINs since the last right one.
    static var pinFailures: StateFile<Int> {
        StateFile(name: "pin-failures", version: 1, encode: { String($0) }) { text in
            guard let value = Int(text), value >= 0 else { throw StateValueError("the value is not a count of wrong PINs") }
            return value
        }
    }
}

/// A state file's value line that is not a value of its kind. (The message never repeats the
/// text: it may be binary garbage, or key material.)
struct StateValueError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
