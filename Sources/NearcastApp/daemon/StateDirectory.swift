import NearcastCore
import NearcastDrivers

/// The daemon's state directory: identity key, beacon clock, consent, and on the simulated
/// board the audio it "plays". Small files, each replaced atomically.
public struct StateDirectory: Sendable {
    public let path: String

    /// Creates the directory (mode 0700: it holds key material) if it is missing.
    public init(path: String) throws(CommandFailure) {
        self.path = path
        do {
            try FileSystem.makeDirectories(path, mode: 0o700)
        } catch {
            throw CommandFailure("state directory: \(error)")
        }
    }

    /// The path of a file in the directory.
    public func file(_ name: String) -> String { "\(path)/\(name)" }

    /// The Eddystone identity key, created from the kernel's random source on first use and
    /// kept in `identity-key` (hex, mode 0600).
    public func identityKey() throws(CommandFailure) -> [UInt8] {
        let path = file("identity-key")
        if FileSystem.exists(path) {
            do {
                let text = try FileSystem.readText(path, limit: 4096)
                return try EphemeralIdentifier.identityKey(hex: text.filter { !$0.isWhitespace })
            } catch let error as SystemError {
                throw CommandFailure("\(path): cannot read: \(error.message)")
            } catch {
                throw CommandFailure("\(path): not a 16-byte hex identity key; move it aside to make a new one")
            }
        }
        do {
            let key = try FileSystem.randomBytes(16)
            try FileSystem.writeAtomically(path, Array((Hex.format(key) + "\n").utf8), mode: 0o600)
            return key
        } catch {
            throw CommandFailure("\(path): cannot create: \(error)")
        }
    }

    /// The beacon time saved by the last run (0 on a new box). An unreadable file is reported
    /// and left in place for inspection; the clock then starts from its backup copy or 0.
    public func savedBeaconTime(log: (String) -> Void) -> UInt32 {
        for name in ["beacon-clock", "beacon-clock.previous"] {
            let path = file(name)
            guard FileSystem.exists(path) else { continue }
            if let text = try? FileSystem.readText(path, limit: 64),
               let value = UInt32(text.filter { !$0.isWhitespace }) {
                return value
            }
            log("warning: \(path): not a beacon time, ignored")
        }
        return 0
    }

    /// Saves the beacon time, keeping the previous value as a backup.
    public func saveBeaconTime(_ time: UInt32) throws(SystemError) {
        let path = file("beacon-clock")
        if FileSystem.exists(path), let text = try? FileSystem.readText(path, limit: 64) {
            try FileSystem.writeAtomically(file("beacon-clock.previous"), Array(text.utf8))
        }
        try FileSystem.writeAtomically(path, Array("\(time)\n".utf8))
    }
}
