import NearcastCore
import NearcastDrivers

/// One small file in the state directory, kept in a `StateRecord` envelope (versioned and
/// checksummed), mode 0600: every state file is the box's own business.
///
/// - Saving is atomic (`FileSystem.writeAtomically`: temp file, fsync, rename, fsync the
///   directory) and first copies the good file being replaced to `NAME.previous`; a damaged
///   file being replaced is first kept aside as `NAME.damaged`. A file written before the
///   envelope existed (a bare value) is rewritten in it the first time it is read.
/// - Loading validates the envelope and the value. A damaged file whose previous copy is good,
///   and allowed to stand in for it (`restores`), is copied aside as `NAME.damaged` and then
///   replaced by the previous copy in one atomic step (there is never a moment without the
///   file), with an error line. Otherwise the damaged file is left in place and reported, and
///   each caller decides what a damaged value means: no consent; the PIN keeps the console
///   locked; no EIDs from a key it cannot read. A file that cannot be read at all (EIO,
///   EACCES) is reported and left alone, since its contents may be fine.
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
        let path = state.file(name), previous = path + ".previous"
        guard FileSystem.exists(path) else { return .absent }
        let problem: String
        switch read(path) {
        case .good(let value, let recordVersion):
            if recordVersion == 0 {
                do { try save(value, to: state) } catch { log("warning: \(path): not rewritten in the checksummed format: \(error)") }
            }
            return .value(value, restored: false)
        case .unreadable(let message):
            log("error: \(path): \(message); left as it is")
            return .damaged("\(path): \(message)")
        case .invalid(let message):
            problem = message
        }
        if FileSystem.exists(previous), case .good(let value, _) = read(previous), restores(value) {
            do {
                let aside = try keepAside(path)
                try FileSystem.writeAtomically(path, record(value), mode: 0o600)
                log("error: \(path): \(problem); kept aside as \(aside) and the last good copy (\(name).previous) restored")
            } catch {
                log("error: \(path): \(problem); using the last good copy (\(name).previous), which could not be restored: \(error)")
            }
            return .value(value, restored: true)
        }
        log("error: \(path): \(problem); no previous copy that can stand in for it")
        return .damaged("\(path): \(problem)")
    }

    /// Replaces the file; the good file it replaces becomes `NAME.previous`, a damaged one is
    /// kept aside first.
    func save(_ value: Value, to state: StateDirectory) throws(SystemError) {
        let path = state.file(name)
        let text = record(value)
        if keepsBackup {
            try FileSystem.writeAtomically(path + ".previous", text, mode: 0o600)
        } else if FileSystem.exists(path) {
            switch read(path) {
            case .good:
                try FileSystem.writeAtomically(path + ".previous", try FileSystem.readBytes(path, limit: Self.limit), mode: 0o600)
            case .invalid:
                _ = try keepAside(path)
            case .unreadable:
                break
            }
        }
        try FileSystem.writeAtomically(path, text, mode: 0o600)
    }

    /// Removes the file and its previous copy.
    func remove(from state: StateDirectory) throws(SystemError) {
        let path = state.file(name)
        for file in [path + ".previous", path] where FileSystem.exists(file) { try FileSystem.remove(file) }
    }

    private static var limit: Int { 4096 }

    private func record(_ value: Value) -> [UInt8] {
        Array(StateRecord.encode(kind: name, version: version, value: encode(value)).utf8)
    }

    /// Copies `path`'s bytes, exactly, to a `.damaged` name not yet taken (`NAME.damaged`,
    /// then `NAME.damaged.2` ...), so no earlier damaged copy is overwritten. Returns the
    /// file name used.
    private func keepAside(_ path: String) throws(SystemError) -> String {
        var suffix = ".damaged", number = 1
        while FileSystem.exists(path + suffix) && number < 100 {
            number += 1
            suffix = ".damaged.\(number)"
        }
        try FileSystem.writeAtomically(path + suffix, try FileSystem.readBytes(path, limit: Self.limit), mode: 0o600)
        return name + suffix
    }

    private enum ReadOutcome {
        case good(Value, version: Int)
        /// The contents are not a good record of this file.
        case invalid(String)
        /// The file could not be read; its contents may be fine.
        case unreadable(String)
    }

    private func read(_ path: String) -> ReadOutcome {
        let text: String
        do { text = try FileSystem.readText(path, limit: Self.limit) } catch {
            return error.isFileTooLarge ? .invalid("too large for a state record") : .unreadable("cannot read: \(error.message)")
        }
        do {
            let record = try StateRecord.decode(text, kind: name, supported: 0...version)
            return .good(try decode(record.value), version: record.version)
        } catch {
            return .invalid("\(error)")
        }
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
