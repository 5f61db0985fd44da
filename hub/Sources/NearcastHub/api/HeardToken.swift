import NearcastCore

/// A token a listener heard, resolved to the caller's beacon: getforobserved's lookup, and the
/// proof of presence a reaction carries.
enum HeardToken {
    /// What a heard token resolved to. `epochsBehind` is how many rotation periods the heard EID
    /// is behind the beacon's current one (0 for the current period, 1 for the one before; always
    /// 0 for a UID, which does not rotate); `epochsAhead` how many ahead of it (a box whose
    /// clock ran a little fast since its last heartbeat is 1 ahead at most).
    struct Resolution: Sendable {
        var beaconName: String
        var kind: BeaconRecord.Kind
        var epochsBehind: Int64
        var epochsAhead: Int64 = 0
    }

    /// Resolves `advertised` in `project` at hub time `nowMs`; nil for a token the project does
    /// not know. A malformed type or id is a 400 naming `field`.
    static func resolve(_ advertised: AdvertisedID, field: String, project: String, nowMs: Int64,
                        hub: HubServices) async throws -> Resolution? {
        guard let kind = BeaconRecord.Kind(rawValue: advertised.type) else {
            throw APIError.invalid(field + ".advertisedId.type", "'\(advertised.type)' must be EDDYSTONE or EDDYSTONE_EID")
        }
        let id = try Base64Field.decode(advertised.id, field: field + ".advertisedId.id")
        switch kind {
        case .uid:
            guard (1...16).contains(id.count) else {
                throw APIError.invalid(field + ".advertisedId.id", "an Eddystone id is 1-16 bytes (got \(id.count))")
            }
            guard let name = try await hub.directory.uid(project: project, idHex: Hex.format(id)) else { return nil }
            return Resolution(beaconName: name, kind: .uid, epochsBehind: 0)
        case .eid:
            guard id.count == 8, let token = try? Token(kind: .eid, bytes: id) else {
                throw APIError.invalid(field + ".advertisedId.id", "an EID is 8 bytes (got \(id.count))")
            }
            let nowSeconds = nowMs / 1000
            guard let found = try await hub.resolverCache.resolve(project: project, eid: token, nowSeconds: nowSeconds)
            else { return nil }
            // Hearing never moves a beacon's clock: only the box's own registration and heartbeats
            // (every minute) do. A heard EID re-anchored it once, and one reaction carrying a
            // future EID then made the real current EID look old (403) for everyone.
            let period = Int64(1) << Int64(found.exponent)
            return Resolution(beaconName: found.beaconName, kind: .eid,
                              epochsBehind: found.skewSeconds >= 0 ? 0 : (-found.skewSeconds + period - 1) / period,
                              epochsAhead: found.skewSeconds > 0 ? (found.skewSeconds + period - 1) / period : 0)
        }
    }
}
