import Logging
import NearcastCore

/// This instance's one view of every project's beacons, kept in step with the storage once for
/// both of its uses: the directory a resolve answers from (each active beacon's description and
/// attachments, and the UID tokens by id) and the EID table (the core's `EIDResolver`: each EID
/// beacon's EIDs over a window around its expected clock).
///
/// Exact, not merely recent: before answering, the index compares the storage's `ChangeSignal`
/// (`BeaconChanges.signal`) with the value it last brought itself up to date at. Unchanged,
/// nothing was committed since (here, or on PostgreSQL through any instance), and the answer is
/// from memory; changed, it reads the beacons whose change number is past the highest it has seen
/// (a beacon's number moves when it is registered, re-anchored, renamed or deleted and when its
/// attachments change) with their attachments, once, and applies each to the directory and to the
/// EID table. Started empty, the first look loads everything the same way. One hub per SQLite
/// file: another process writing the file is not seen (PostgreSQL is the shared store).
actor BeaconIndex {
    /// An active beacon as a resolve answers it.
    struct Entry: Sendable {
        var description: String?
        var attachments: [Attachment]
    }

    /// What a heard EID resolved to.
    struct EIDMatch: Sendable {
        var beaconName: String
        var skewSeconds: Int64
        var epochStart: UInt32
        var exponent: Int
    }

    /// Half-width of each beacon's window: its clock may be this far off (drift, power cuts
    /// shorter than this) and still resolve. Only the box's heartbeats re-anchor the clock.
    static let skewSeconds: UInt32 = 3_600
    /// How stale the EID table's clock may get before every window is moved.
    static let advanceEverySeconds: Int64 = 10

    /// Synchronisations done (for /metrics and the tests): one per batch of changes, whichever
    /// use asked.
    private(set) var synchronisations = 0

    private let source: any BeaconChanges
    private let logger: Logger
    // The directory.
    private var entries: [BeaconRef: Entry] = [:]
    private var uids: [String: [String: String]] = [:]             // project -> advertised id hex -> beacon name
    // The EID table: a resolver per project, its handles by beacon and back.
    private var resolvers: [String: EIDResolver<SwiftCryptoAES128>] = [:]
    private var handles: [BeaconRef: EIDResolver<SwiftCryptoAES128>.BeaconID] = [:]
    private var registrations: [BeaconRef: Beacon.EIDRegistration] = [:]
    private var names: [String: [EIDResolver<SwiftCryptoAES128>.BeaconID: (name: String, exponent: Int)]] = [:]
    private var clock: Int64 = 0
    // Where the index stands against the storage.
    private var lastSeq: Int64 = 0
    private var syncedAt: UInt64?
    private var running: Task<Void, any Error>?

    init(changes: any BeaconChanges, logger: Logger) {
        self.source = changes
        self.logger = logger
    }

    /// The active beacon, or nil.
    func entry(_ beacon: BeaconRef) async throws -> Entry? {
        try await synchronise()
        return entries[beacon]
    }

    /// The beacon name of the project's UID or direct token with this hex id, or nil.
    func uid(project: String, idHex: String) async throws -> String? {
        try await synchronise()
        return uids[project]?[idHex]
    }

    /// Resolves `eid`, heard by a client of `project`, at hub time `nowSeconds`.
    func resolve(project: String, eid: Token, nowSeconds: Int64) async throws -> EIDMatch? {
        try await synchronise()
        // Requests finish out of order under load: a clock a few seconds behind is no reason to
        // recompute every window; a real step back (the host's clock set back) is.
        if nowSeconds - clock >= Self.advanceEverySeconds || nowSeconds < clock - 60 {
            clock = nowSeconds
            for resolver in resolvers.values { try resolver.advance(to: nowSeconds) }
        }
        guard let resolver = resolvers[project], let found = resolver.resolve(eid),
              let beacon = names[project]?[found.beacon] else { return nil }
        return EIDMatch(beaconName: beacon.name, skewSeconds: found.skewSeconds, epochStart: found.epochStart,
                        exponent: beacon.exponent)
    }

    /// Brings the index up to date if anything was committed since it last was. Concurrent
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
        let changes = try await source.changed(after: lastSeq)
        synchronisations += 1
        for record in changes.beacons {
            lastSeq = max(lastSeq, record.changeSeq)
            let ref = BeaconRef(project: record.project, beaconName: record.beaconName)
            applyToDirectory(record, ref, attachments: changes.attachments[ChangedBeacons.key(record.project, record.beaconName)] ?? [])
            if record.kind == .eid { try applyToEIDTable(record, ref) }
        }
        syncedAt = target
    }

    private func applyToDirectory(_ record: Beacon, _ ref: BeaconRef, attachments: [Attachment]) {
        let project = record.project
        if record.active {
            entries[ref] = Entry(description: record.description, attachments: attachments)
            if record.kind == .uid { uids[project, default: [:]][record.advertisedIDHex] = record.beaconName }
        } else {
            entries[ref] = nil
            if record.kind == .uid, uids[project]?[record.advertisedIDHex] == record.beaconName {
                uids[project]?[record.advertisedIDHex] = nil
            }
        }
    }

    private func applyToEIDTable(_ record: Beacon, _ ref: BeaconRef) throws {
        let resolver: EIDResolver<SwiftCryptoAES128>
        if let existing = resolvers[record.project] {
            resolver = existing
        } else {
            // A new resolver's clock starts at 0: bring it to the hub's time before registering,
            // or the window would be computed around a clock 55 years behind.
            resolver = EIDResolver(cipher: SwiftCryptoAES128(), skew: Self.skewSeconds)
            try resolver.advance(to: clock)
            resolvers[record.project] = resolver
        }
        if !record.active {
            registrations[ref] = nil
            if let id = handles.removeValue(forKey: ref) {
                resolver.remove(id)
                names[record.project]?[id] = nil
            }
            return
        }
        guard let eid = record.eidRegistration, let keyHex = eid.identityKeyHex, let identityKey = try? Hex.parse(keyHex),
              identityKey.count == 16
        else {
            logger.error("eid: \(record.beaconName) in project \(record.project) has no usable identity key or clock; skipped")
            return
        }
        // A change of its attachments or its name moves a beacon's change number too: only a new
        // registration or clock reading moves its window.
        guard registrations[ref] != eid else { return }
        registrations[ref] = eid
        let beaconTime = UInt32(clamping: eid.clock.value), at = eid.clock.atMs / 1000
        if let id = handles[ref] {
            try resolver.reanchor(id, beaconTime: beaconTime, at: at)
        } else {
            let id = try resolver.register(identityKey: identityKey, exponent: eid.exponent, beaconTime: beaconTime, at: at)
            handles[ref] = id
            names[record.project, default: [:]][id] = (record.beaconName, eid.exponent)
        }
    }

    /// EIDs precomputed across all projects (the table whose memory docs/venue-operator.md
    /// reports, "Measured: the hub").
    var tableSize: Int { resolvers.values.reduce(0) { $0 + $1.tableSize } }
    /// Active beacons held (for /metrics).
    var count: Int { entries.count }
}
