import NearcastDrivers

/// Why the state directory, or a file in it the box cannot do without, could not be used. Each
/// case names the path and says what a technician can do about it; the command line, the console
/// and the daemon print it as it is.
public enum StorageError: Error, Equatable, CustomStringConvertible {
    /// The directory could not be made (or is not a directory).
    case directoryUnusable(path: String, reason: String)
    /// The identity key's file and its copy are both damaged.
    case identityKeyDamaged(problem: String)
    /// The identity key is missing but a copy of it exists: it was lost, not reset.
    case identityKeyLost(path: String, copy: String)
    /// A new identity key could not be written.
    case identityKeyNotCreated(path: String, reason: String)

    public var description: String {
        switch self {
        case .directoryUnusable(let path, let reason):
            return "state directory \(path): \(reason)"
        case .identityKeyDamaged(let problem):
            return "\(problem); move identity-key and identity-key.previous aside to make a new key (its EIDs will not be the registered ones)"
        case .identityKeyLost(let path, let copy):
            return "\(path) is missing but \(copy) exists: copy it back to identity-key to keep this box's EIDs, "
                + "or move it aside to make a new key"
        case .identityKeyNotCreated(let path, let reason):
            return "\(path): cannot create: \(reason)"
        }
    }
}
