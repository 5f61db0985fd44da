import NearcastCore
import NearcastDrivers

/// The box's own files in the state directory, each kept as a ``StateFile`` (with a previous copy,
/// damage detected): the identity key, the beacon clock's reservation and consent. Apart from
/// ``StateDirectory`` so that the directory knows nothing of how its files are kept.
extension StateDirectory {
    /// The Eddystone identity key, created from the kernel's random source on first use and
    /// kept in `identity-key` (mode 0600) with a backup copy: EIDs from a new key are not the
    /// ones a resolver knows, so a damaged key is never silently replaced.
    public func identityKey(log: (String) -> Void = { StandardStreams.line($0) }) throws(StorageError) -> [UInt8] {
        let file = StateFile<[UInt8]>.identityKey
        switch file.load(from: self, log: log) {
        case .value(let key, _): return key
        case .damaged(let problem):
            throw .identityKeyDamaged(problem: "\(problem)")
        case .absent: break
        }
        // A missing key with copies beside it was lost, not reset: a new key would silently
        // replace the one the resolver knows, and overwrite the backup.
        let path = self.file("identity-key")
        for copy in [path + ".previous", path + ".damaged"] where FileSystem.exists(copy) {
            throw .identityKeyLost(path: path, copy: copy)
        }
        do {
            let key = try FileSystem.randomBytes(16)
            try file.save(key, to: self)
            return key
        } catch {
            throw .identityKeyNotCreated(path: path, reason: "\(error)")
        }
    }

    /// The beacon time saved by the last run (0 on a new box). A damaged file is reported; the
    /// clock then starts from its previous copy, or from 0 when there is none.
    public func savedBeaconTime(log: (String) -> Void) -> UInt32 {
        switch StateFile<UInt32>.beaconClock.load(from: self, log: log) {
        case .value(let time, restored: false): return time
        case .value(let time, restored: true):
            // The previous reservation may trail times already broadcast (renewals that had to
            // be retried); one more lease puts the clock ahead of all of them.
            let lease = BeaconClockReservation.defaultLeaseSeconds
            log("warning: the beacon clock resumes from its previous reservation plus one lease (\(lease) s)")
            return time > UInt32.max - lease ? UInt32.max : time + lease
        case .absent: return 0
        case .damaged:
            log("warning: the beacon clock starts again from 0: EID resolvers that track this beacon's clock must be told")
            return 0
        }
    }

    /// Saves the beacon time, keeping the previous value as a backup.
    public func saveBeaconTime(_ time: UInt32) throws(SystemError) {
        try StateFile<UInt32>.beaconClock.save(time, to: self)
    }

    /// Whether consent was granted (the Nearby permission); a damaged file means not granted.
    func savedConsent(log: (String) -> Void) -> Bool {
        if case .value(true, _) = StateFile<Bool>.consent.load(from: self, log: log) { return true }
        return false
    }

    /// Remembers consent across restarts.
    func saveConsent(_ granted: Bool) throws(SystemError) {
        try StateFile<Bool>.consent.save(granted, to: self)
    }
}
