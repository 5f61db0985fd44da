/// Maps heard EIDs back to the beacons that sent them.
///
/// A beacon's EID depends on its identity key and its own beacon time, which drifts from the
/// resolver's clock (a Pi has no real-time clock; its counter stops while it is off). Each
/// beacon is registered with its key, rotation exponent K, and one observation of its clock
/// (its beacon time at a resolver time). At any resolver time t the resolver expects beacon
/// time b(t) = beaconTime + (t − registeredAt) and precomputes the EIDs of every epoch that
/// overlaps the **window** [b(t) − skew, b(t) + skew]. A heard EID is then a hash lookup.
///
/// The window is the tolerance: a beacon whose clock is off by more than `skew` seconds is not
/// recognised (and should be re-registered with a fresh observation). The table holds
/// about (2·skew / 2^K + 2) EIDs per beacon; with the default skew of 3,600 s and K = 10 that is
/// 9 EIDs a beacon, 18,000 for 2,000 beacons. `advance(to:)` computes only the epochs that enter
/// the window and drops those that leave it.
///
/// ```swift
/// let resolver = EIDResolver(cipher: OpenSSLAES128(), skew: 3600)
/// let id = try resolver.register(identityKey: key, exponent: 10, beaconTime: 5000, at: now)
/// try resolver.advance(to: now + 60)
/// resolver.resolve(heardEID)?.beacon == id
/// try resolver.reanchor(id, beaconTime: 5200, at: now + 200)   // a fresh observation of its clock
/// resolver.remove(id)                                           // its EIDs no longer resolve
/// ```
public final class EIDResolver<Cipher: BlockCipher128> {
    /// A registered beacon's handle.
    public typealias BeaconID = Int

    /// What a resolved EID tells.
    public struct Resolution: Equatable, Sendable {
        public var beacon: BeaconID
        /// The beacon time at which the heard EID's epoch began.
        public var epochStart: UInt32
        /// How far the beacon's clock seems from what was expected, in whole epochs × 2^K
        /// seconds (positive: the beacon is ahead).
        public var skewSeconds: Int64
    }

    private struct Beacon {
        var identityKey: [UInt8]
        var exponent: Int
        var beaconTime: Int64
        var registeredAt: Int64
        /// Epoch starts currently in the table, with their EIDs.
        var epochs: [(start: UInt32, eid: UInt64)]
        /// Temporary keys by time >> 16.
        var temporaryKeys: [UInt32: [UInt8]]
        /// False once removed: the handle stays reserved so other handles keep their meaning.
        var active = true
    }

    public let cipher: Cipher
    /// Half-width of the window, in seconds.
    public let skew: Int64
    private var beacons: [Beacon] = []
    private var table: [UInt64: (beacon: BeaconID, epochStart: UInt32)] = [:]
    private var now: Int64 = 0

    public init(cipher: Cipher, skew: UInt32 = 3_600) {
        self.cipher = cipher
        self.skew = Int64(skew)
    }

    /// EIDs currently precomputed.
    public var tableSize: Int { table.count }

    /// Registers a beacon from one observation of its clock: it read `beaconTime` at resolver
    /// time `at`. Its window is computed at once.
    public func register(identityKey: [UInt8], exponent: Int, beaconTime: UInt32, at: Int64) throws(CipherFailure) -> BeaconID {
        precondition(identityKey.count == 16, "an Eddystone identity key is 16 bytes")
        precondition((0...EphemeralIdentifier.maximumExponent).contains(exponent), "rotation exponent must be 0...15")
        beacons.append(Beacon(identityKey: identityKey, exponent: exponent, beaconTime: Int64(beaconTime),
                              registeredAt: at, epochs: [], temporaryKeys: [:]))
        let id = beacons.count - 1
        try refresh(id)
        return id
    }

    /// Replaces beacon `id`'s clock observation (it read `beaconTime` at resolver time `at`), as
    /// when the beacon reports its clock or is heard an epoch away from where it was expected.
    /// Its window moves at once; its identity key and exponent stay.
    public func reanchor(_ id: BeaconID, beaconTime: UInt32, at: Int64) throws(CipherFailure) {
        guard beacons.indices.contains(id), beacons[id].active else { return }
        beacons[id].beaconTime = Int64(beaconTime)
        beacons[id].registeredAt = at
        try refresh(id)
    }

    /// Forgets beacon `id`: its EIDs stop resolving and its table entries are freed. The handle
    /// is not reused.
    public func remove(_ id: BeaconID) {
        guard beacons.indices.contains(id), beacons[id].active else { return }
        for entry in beacons[id].epochs where table[entry.eid]?.beacon == id {
            table[entry.eid] = nil
        }
        beacons[id].epochs = []
        beacons[id].temporaryKeys = [:]
        beacons[id].identityKey = []
        beacons[id].active = false
    }

    /// Moves the resolver's clock to `time` (seconds, any origin, never backwards in practice)
    /// and updates every beacon's window.
    public func advance(to time: Int64) throws(CipherFailure) {
        now = time
        for id in beacons.indices where beacons[id].active { try refresh(id) }
    }

    /// The beacon that sent `eid` within its window, or nil (unknown, forged, or too far off).
    public func resolve(_ eid: Token) -> Resolution? {
        guard eid.kind == .eid, let entry = table[eid.packed] else { return nil }
        let beacon = beacons[entry.beacon]
        let expected = beacon.beaconTime + (now - beacon.registeredAt)
        let expectedEpoch = Int64(EphemeralIdentifier.epochStart(time: UInt32(clamping: max(0, expected)),
                                                                 exponent: beacon.exponent))
        return Resolution(beacon: entry.beacon, epochStart: entry.epochStart,
                          skewSeconds: Int64(entry.epochStart) - expectedEpoch)
    }

    private func refresh(_ id: BeaconID) throws(CipherFailure) {
        var beacon = beacons[id]
        let expected = beacon.beaconTime + (now - beacon.registeredAt)
        let period = Int64(1) << Int64(beacon.exponent)
        let low = max(0, expected - skew)
        let high = min(Int64(UInt32.max), expected + skew)
        var wanted: [UInt32] = []
        if low <= high {
            var start = low / period * period
            while start <= high {
                wanted.append(UInt32(start))
                start += period
            }
        }
        var kept: [(start: UInt32, eid: UInt64)] = []
        for entry in beacon.epochs {
            if wanted.contains(entry.start) {
                kept.append(entry)
            } else if table[entry.eid]?.beacon == id {
                table[entry.eid] = nil
            }
        }
        for epoch in wanted where !kept.contains(where: { $0.start == epoch }) {
            let eid = try eidValue(&beacon, epoch)
            table[eid] = (id, epoch)
            kept.append((epoch, eid))
        }
        beacon.epochs = kept
        // Temporary keys older than the window are no longer needed.
        let oldestSpan = UInt32(clamping: low) >> 16
        beacon.temporaryKeys = beacon.temporaryKeys.filter { $0.key >= oldestSpan }
        beacons[id] = beacon
    }

    private func eidValue(_ beacon: inout Beacon, _ epoch: UInt32) throws(CipherFailure) -> UInt64 {
        let span = epoch >> 16
        let temporaryKey: [UInt8]
        if let cached = beacon.temporaryKeys[span] {
            temporaryKey = cached
        } else {
            temporaryKey = try EphemeralIdentifier.temporaryKey(identityKey: beacon.identityKey, time: epoch, cipher: cipher)
            beacon.temporaryKeys[span] = temporaryKey
        }
        return try EphemeralIdentifier.compute(temporaryKey: temporaryKey, exponent: beacon.exponent,
                                               time: epoch, cipher: cipher).packed
    }
}
