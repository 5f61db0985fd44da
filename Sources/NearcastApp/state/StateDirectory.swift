import NearcastCore
import NearcastDrivers

/// The daemon's state directory: identity key, beacon clock, consent, and on the simulated
/// board the audio it "plays". Small files, each replaced atomically.
public struct StateDirectory: Sendable {
    public let path: String

    /// Creates the directory (mode 0700: it holds key material) if it is missing.
    public init(path: String) throws(StorageError) {
        self.path = path
        do {
            try FileSystem.makeDirectories(path, mode: 0o700)
        } catch {
            throw .directoryUnusable(path: path, reason: "\(error)")
        }
    }

    /// The path of a file in the directory.
    public func file(_ name: String) -> String { "\(path)/\(name)" }
}
