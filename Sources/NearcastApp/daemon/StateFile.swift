import NearcastCore
import NearcastDrivers

/// One small file in the state directory, kept in a `StateRecord` envelope (versioned and
/// checksummed), mode 0600: every state file is the box's own business.
///
/// - Saving is atomic (`FileSystem.writeAtomically`: temp file, fsync, rename, fsync the
///   directory) and first copies the good file being replaced to `NAME.previous`.
/// - Loading validates the envelope and the value. A damaged file with a good previous copy is
///   renamed `NAME.damaged` (kept for inspection, out of the way of the next save), the
///   previous copy is restored, and an error line says so. A damaged file without a good
///   previous copy is left in place and reported as damaged: each caller decides what a
///   damaged value means (no consent; the PIN stays locked; no EIDs from a key it cannot read).
/// - A missing file is absent, whatever `.previous` holds: removing a file is how a technician
///   resets it (a new identity key, consent asked again).
struct StateFile<Value> {
    /// What a load found.
    enum Loaded {
        case absent
        case value(Value)
        /// The file and its previous copy are unusable; the message names the file and why.
        case damaged(String)
    }

    let name: String
    let version: Int
    let encode: (Value) -> String
    /// The value of a record's text, or why it is not one.
    let decode: (String) throws -> Value
    /// Whether a bare value, as written before the envelope existed, is still read.
    var readsLegacy = true

    func load(from state: StateDirectory, log: (String) -> Void) -> Loaded {
        let path = state.file(name), previous = path + ".previous"
        guard FileSystem.exists(path) else { return .absent }
        let problem: String
        switch read(path) {
        case .success(let value): return .value(value)
        case .failure(let message): problem = message
        }
        if FileSystem.exists(previous), case .success(let value) = read(previous) {
            do {
                try FileSystem.rename(path, to: path + ".damaged")
                try FileSystem.writeAtomically(path, Array(StateRecord.encode(kind: name, version: version, value: encode(value)).utf8),
                                               mode: 0o600)
                log("error: \(path): \(problem); kept aside as \(name).damaged and the last good copy (\(name).previous) restored")
            } catch {
                log("error: \(path): \(problem); using the last good copy (\(name).previous), which could not be restored: \(error)")
            }
            return .value(value)
        }
        log("error: \(path): \(problem); no good previous copy")
        return .damaged("\(path): \(problem)")
    }

    /// Replaces the file; the good file it replaces becomes `NAME.previous`. With
    /// `backup`, the previous copy is the new value too (for values written once, like the
    /// identity key, whose loss cannot be undone).
    func save(_ value: Value, to state: StateDirectory, backup: Bool = false) throws(SystemError) {
        let path = state.file(name)
        let text = Array(StateRecord.encode(kind: name, version: version, value: encode(value)).utf8)
        if backup {
            try FileSystem.writeAtomically(path + ".previous", text, mode: 0o600)
        } else if FileSystem.exists(path), case .success = read(path), let old = try? FileSystem.readText(path, limit: Self.limit) {
            try FileSystem.writeAtomically(path + ".previous", Array(old.utf8), mode: 0o600)
        }
        try FileSystem.writeAtomically(path, text, mode: 0o600)
    }

    /// Removes the file and its previous copy.
    func remove(from state: StateDirectory) throws(SystemError) {
        let path = state.file(name)
        for file in [path + ".previous", path] where FileSystem.exists(file) { try FileSystem.remove(file) }
    }

    private static var limit: Int { 4096 }

    private enum ReadOutcome {
        case success(Value)
        case failure(String)
    }

    private func read(_ path: String) -> ReadOutcome {
        let text: String
        do { text = try FileSystem.readText(path, limit: Self.limit) } catch { return .failure("cannot read: \(error.message)") }
        do {
            let record = try StateRecord.decode(text, kind: name, supported: (readsLegacy ? 0 : 1)...version)
            return .success(try decode(record.value))
        } catch {
            return .failure("\(error)")
        }
    }
}

extension StateFile where Value == Bool {
    /// Consent: `granted` or `denied`.
    static var consent: StateFile<Bool> {
        StateFile(name: "consent", version: 1, encode: { $0 ? "granted" : "denied" }) { text in
            switch text {
            case "granted": return true
            case "denied": return false
            default: throw StateValueError("the value is neither granted nor denied")
            }
        }
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
    /// The Eddystone identity key, 16 bytes in hex.
    static var identityKey: StateFile<[UInt8]> {
        StateFile(name: "identity-key", version: 1, encode: { Hex.format($0) }) { text in
            do { return try EphemeralIdentifier.identityKey(hex: text) } catch {
                throw StateValueError("not a 16-byte hex identity key")
            }
        }
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
