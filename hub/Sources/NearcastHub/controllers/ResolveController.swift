import Foundation
import Hummingbird
import Metrics
import NearcastCore

/// `eidparams` (open to all: it is the hub's public key) and `beaconinfo:getforobserved`, which
/// a listener calls with the project's public API key.
struct ResolveController: Sendable {
    let resolver: TokenResolver
    let grant: BeaconReadGrant
    let limiter: HubLimiter
    let clock: HubClock
    let keys: KeyChecker

    /// At most this many observations per call, as Google's API capped them.
    static let maximumObservations = 100

    var endpoints: RouteCollection<HubRequestContext> {
        let open = RouteCollection(context: HubRequestContext.self)
        let readers = keys.group(open, .read)
        let resolveTimer = Timer(label: "nearcast_hub_getforobserved_seconds")
        let observed = Counter(label: "nearcast_hub_observations_total")
        let resolved = Counter(label: "nearcast_hub_observations_resolved_total")
        let tableGauge = Gauge(label: "nearcast_hub_eid_table_entries")
        // How often a resolve had to read the database (something had changed since the last).
        let synchronisationsGauge = Gauge(label: "nearcast_hub_directory_synchronisations")

        open.get("/v1beta1/eidparams") { _, _ in
            EIDParamsJSON(
                serviceEcdhPublicKey: Base64Field.encode(resolver.serviceKey.publicKey),
                minRotationPeriodExponent: Beacon.exponents.lowerBound,
                maxRotationPeriodExponent: Beacon.exponents.upperBound)
        }
        readers.post("/v1beta1/beaconinfo:getforobserved") { request, context in
            let started = ContinuousClock.now
            let access = try context.caller()
            // Someone walking the short-token space runs out of unknown tokens long before it ends.
            try limiter.admitResolve(from: context.remoteAddress, project: access.project)
            let body = try await request.decode(as: GetForObservedRequest.self, context: context)
            guard !body.observations.isEmpty else { throw APIError.invalid("observations", "must list at least one observation") }
            guard body.observations.count <= Self.maximumObservations else {
                throw APIError.invalid("observations", "lists \(body.observations.count); at most \(Self.maximumObservations) per call")
            }
            // No types named: no attachments, as Google's API answered.
            let filter = try NamespacedTypeFilter(parsing: body.namespacedTypes ?? [], field: "namespacedTypes")
            let nowMs = clock.nowMs()
            var answered: [GetForObservedResponse.Beacon] = []
            var seen = Set<String>()
            var unknown = 0
            for (index, observation) in body.observations.enumerated() {
                let field = "observations[\(index)]"
                // Google's Observation.timestampMs is a Timestamp (RFC 3339 text); Nearcast's own
                // clients sent milliseconds (text or a number). All are taken; the hub judges EIDs
                // by its own clock.
                if let stamp = observation.timestampMs?.text, HubClock.parseMs(stamp) == nil {
                    throw APIError.invalid(field + ".timestampMs",
                                           "'\(stamp)' is neither an RFC 3339 time (2014-10-02T15:01:23.045123456Z) nor milliseconds since 1970")
                }
                guard let name = try await resolver.resolve(observation.advertisedId, field: field, project: access.project,
                                                            nowMs: nowMs)?.beaconName else {
                    unknown += 1
                    continue
                }
                guard seen.insert(name).inserted else { continue }
                resolver.heardBoxes.heard(BeaconRef(project: access.project, beaconName: name), nowMs: nowMs)
                // From memory (exact: `BeaconIndex`); deleted between the resolve and this read:
                // absent, like any unknown token.
                guard let found = try await resolver.index.entry(BeaconRef(project: access.project, beaconName: name)) else { continue }
                answered.append(GetForObservedResponse.Beacon(
                    advertisedId: observation.advertisedId, beaconName: name, description: found.description,
                    attachments: found.attachments.filter { filter.matches($0.namespacedType) }.map(\.json),
                    watchToken: grant.token(project: access.project, beaconName: name),
                    hasShow: try await grant.shows.show(BeaconRef(project: access.project, beaconName: name), nowMs: nowMs) != nil))
            }
            limiter.spendUnknownTokens(unknown, from: context.remoteAddress, project: access.project)
            observed.increment(by: body.observations.count)
            resolved.increment(by: answered.count)
            tableGauge.record(await resolver.index.tableSize)
            synchronisationsGauge.record(await resolver.index.synchronisations)
            let elapsed = (ContinuousClock.now - started).components
            resolveTimer.recordNanoseconds(elapsed.seconds * 1_000_000_000 + elapsed.attoseconds / 1_000_000_000)
            return GetForObservedResponse(beacons: answered)
        }
        return open
    }
}
