import NearcastCore

/// Heard tokens to beacons: the hub's service key (which EID beacons register against), this
/// instance's view of the beacons (`BeaconIndex`: the EID table and the directory of beacons
/// and their attachments), and when a phone last resolved each box (`HeardBoxes`).
struct TokenResolver: Sendable {
    let serviceKey: ServiceKey
    /// The beacons in memory, kept in step with the storage once for both uses.
    let index: BeaconIndex
    /// When a phone last resolved each box, for the presenter's "why no phone follows" (`BoxReach`).
    let heardBoxes: HeardBoxes

    /// Resolves `advertised` in `project` at hub time `nowMs`; nil for a token the project does
    /// not know. A malformed type or id is a 400 naming `field`.
    func resolve(_ advertised: AdvertisedID, field: String, project: String, nowMs: Int64) async throws -> HeardToken.Resolution? {
        guard let kind = Beacon.Kind(rawValue: advertised.type) else {
            throw APIError.invalid(field + ".advertisedId.type", "'\(advertised.type)' must be EDDYSTONE or EDDYSTONE_EID")
        }
        let id = try Base64Field.decode(advertised.id, field: field + ".advertisedId.id")
        switch kind {
        case .uid:
            guard (1...16).contains(id.count) else {
                throw APIError.invalid(field + ".advertisedId.id", "an Eddystone id is 1-16 bytes (got \(id.count))")
            }
            guard let name = try await index.uid(project: project, idHex: Hex.format(id)) else { return nil }
            return HeardToken.Resolution(beaconName: name, kind: .uid, epochsBehind: 0)
        case .eid:
            guard id.count == 8, let token = try? Token(kind: .eid, bytes: id) else {
                throw APIError.invalid(field + ".advertisedId.id", "an EID is 8 bytes (got \(id.count))")
            }
            let nowSeconds = nowMs / 1000
            guard let found = try await index.resolve(project: project, eid: token, nowSeconds: nowSeconds)
            else { return nil }
            // Hearing never moves a beacon's clock: only the box's own registration and heartbeats
            // (every minute) do. A heard EID re-anchored it once, and one reaction carrying a
            // future EID then made the real current EID look old (403) for everyone.
            let period = Int64(1) << Int64(found.exponent)
            return HeardToken.Resolution(beaconName: found.beaconName, kind: .eid,
                              epochsBehind: found.skewSeconds >= 0 ? 0 : (-found.skewSeconds + period - 1) / period,
                              epochsAhead: found.skewSeconds > 0 ? (found.skewSeconds + period - 1) / period : 0)
        }
    }
}
