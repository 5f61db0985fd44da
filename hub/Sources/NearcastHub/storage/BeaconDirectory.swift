/// Every project's active beacons and their attachments, in memory, for `getforobserved` and
/// the proof of presence: a resolve reads here, not the database.
///
/// Exact, not merely recent: before answering, the directory compares the storage's
/// `ChangeSignal` (`BeaconChanges.signal`) with the value it last brought itself up to date at.
/// Unchanged, nothing was committed since (here, or on PostgreSQL through any instance), and the
/// answer is from memory; changed, it reads the beacons whose change number is past the highest
/// it has seen (a beacon's number moves when it is registered, re-anchored or deleted and when
/// its attachments change) with their attachments. Started empty, the first resolve loads
/// everything the same way. One hub per SQLite file: another process writing the file is not
/// seen (PostgreSQL is the shared store).
actor BeaconDirectory {
    /// An active beacon as a resolve answers it.
    struct Beacon: Sendable {
        var description: String?
        var attachments: [Attachment]
    }

    /// What a synchronisation did, for /metrics and the tests.
    private(set) var synchronisations = 0

    private let source: any BeaconChanges
    private var beacons: [String: [String: Beacon]] = [:]          // project -> beacon name -> beacon
    private var uids: [String: [String: String]] = [:]             // project -> advertised id hex -> beacon name
    private var lastSeq: Int64 = 0
    private var syncedAt: UInt64?
    private var running: Task<Void, any Error>?

    init(changes: any BeaconChanges) {
        self.source = changes
    }

    /// The active beacon `beaconName` of `project`, or nil.
    func beacon(project: String, beaconName: String) async throws -> Beacon? {
        try await synchronise()
        return beacons[project]?[beaconName]
    }

    /// The beacon name of the project's UID or direct token with this hex id, or nil.
    func uid(project: String, idHex: String) async throws -> String? {
        try await synchronise()
        return uids[project]?[idHex]
    }

    /// Brings the directory up to date if anything was committed since it last was. Concurrent
    /// callers share one synchronisation.
    func synchronise() async throws {
        while syncedAt != source.signal.current {
            if let running {
                try await running.value
                continue
            }
            let task = Task { try await self.refresh() }
            running = task
            try await task.value
        }
    }

    /// One synchronisation; its state lands on the actor before its task completes, so every
    /// caller waiting on it sees the result.
    private func refresh() async throws {
        defer { running = nil }
        let target = source.signal.current   // read first: a commit during the query moves it again
        apply(try await source.changed(after: lastSeq))
        syncedAt = target
    }

    private func apply(_ changes: ChangedBeacons) {
        synchronisations += 1
        for record in changes.beacons {
            lastSeq = max(lastSeq, record.changeSeq)
            let project = record.project
            if record.active {
                beacons[project, default: [:]][record.beaconName] = Beacon(
                    description: record.description,
                    attachments: changes.attachments[ChangedBeacons.key(project, record.beaconName)] ?? [])
                if record.kind == .uid { uids[project, default: [:]][record.advertisedIDHex] = record.beaconName }
            } else {
                beacons[project]?[record.beaconName] = nil
                if record.kind == .uid, uids[project]?[record.advertisedIDHex] == record.beaconName {
                    uids[project]?[record.advertisedIDHex] = nil
                }
            }
        }
    }

    /// Beacons held (for /metrics).
    var count: Int { beacons.values.reduce(0) { $0 + $1.count } }
}
