import Logging
import NearcastCore

/// This instance's view of every project's EID beacons: the core's `EIDResolver` (a table of
/// each beacon's EIDs over a window around its expected clock), kept in step with the storage.
///
/// The storage is the only state: before a resolve, if its `ChangeSignal` (`BeaconChanges`)
/// moved since the last look (something was committed here, or through another instance on
/// PostgreSQL), the cache reads the beacons changed since the last change number it saw, so a
/// beacon registered, re-anchored or deleted through any instance resolves (or stops) here too;
/// while nothing changed, a resolve touches no database.
actor EIDResolverCache {
    /// What a heard EID resolved to.
    struct Resolution: Sendable {
        var beaconName: String
        var skewSeconds: Int64
        var epochStart: UInt32
        var exponent: Int
    }

    /// Half-width of each beacon's window: its clock may be this far off (drift, power cuts
    /// shorter than this) and still resolve. Only the box's heartbeats re-anchor the clock.
    static let skewSeconds: UInt32 = 3_600
    /// How stale the resolvers' clock may get before every window is moved.
    static let advanceEverySeconds: Int64 = 10

    private let source: any BeaconChanges
    private let logger: Logger
    private var resolvers: [String: EIDResolver<SwiftCryptoAES128>] = [:]
    /// Resolver handles by (project, beacon name), and back.
    private var handles: [String: EIDResolver<SwiftCryptoAES128>.BeaconID] = [:]
    private var names: [String: [EIDResolver<SwiftCryptoAES128>.BeaconID: (name: String, exponent: Int)]] = [:]
    /// The change number each beacon was last brought to, and the highest seen.
    private var applied: [String: Int64] = [:]
    private var lastSeq: Int64 = 0
    private var clock: Int64 = 0
    /// The `ChangeSignal` value the table was last brought up to date at.
    private var syncedAt: UInt64?

    init(changes: any BeaconChanges, logger: Logger) {
        self.source = changes
        self.logger = logger
    }

    /// EIDs precomputed across all projects (the table whose memory docs/venue-operator.md reports, "Measured: the hub").
    var tableSize: Int { resolvers.values.reduce(0) { $0 + $1.tableSize } }
    var beaconCount: Int { handles.count }

    /// Resolves `eid`, heard by a client of `project`, at hub time `nowSeconds`.
    func resolve(project: String, eid: Token, nowSeconds: Int64) async throws -> Resolution? {
        try await synchronise(nowSeconds: nowSeconds)
        guard let resolver = resolvers[project], let found = resolver.resolve(eid),
              let beacon = names[project]?[found.beacon] else { return nil }
        return Resolution(beaconName: beacon.name, skewSeconds: found.skewSeconds, epochStart: found.epochStart,
                          exponent: beacon.exponent)
    }

    /// Applies the storage's changes since the last look and moves the windows when due.
    func synchronise(nowSeconds: Int64) async throws {
        let signal = source.signal.current   // read first: a commit during the query moves it again
        let changes = signal == syncedAt ? [] : try await source.eidChanged(after: lastSeq)
        // Requests finish out of order under load: a clock a few seconds behind is no reason to
        // recompute every window; a real step back (the host's clock set back) is.
        if nowSeconds - clock >= Self.advanceEverySeconds || nowSeconds < clock - 60 {
            clock = nowSeconds
            for resolver in resolvers.values { try resolver.advance(to: nowSeconds) }
        }
        for record in changes { try apply(record) }
        syncedAt = signal
    }

    private func apply(_ record: Beacon) throws {
        let key = record.project + "\n" + record.beaconName
        // Two synchronisations may overlap (the actor is re-entered while one awaits the
        // database): a change already applied is skipped.
        guard record.changeSeq > applied[key] ?? 0 else { return }
        defer {
            applied[key] = record.changeSeq
            lastSeq = max(lastSeq, record.changeSeq)
        }
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
            if let id = handles.removeValue(forKey: key) {
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
        let exponent = eid.exponent, beaconTime = UInt32(clamping: eid.clock.value), at = eid.clock.atMs / 1000
        if let id = handles[key] {
            try resolver.reanchor(id, beaconTime: beaconTime, at: at)
        } else {
            let id = try resolver.register(identityKey: identityKey, exponent: exponent, beaconTime: beaconTime, at: at)
            handles[key] = id
            names[record.project, default: [:]][id] = (record.beaconName, exponent)
        }
    }
}
