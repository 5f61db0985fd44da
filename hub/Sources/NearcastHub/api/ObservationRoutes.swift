import Foundation
import Hummingbird
import Metrics
import NearcastCore

/// `eidparams` (open to all: it is the hub's public key) and `beaconinfo:getforobserved`, which
/// a listener calls with the project's public API key.
enum ObservationRoutes {
    /// At most this many observations per call, as Google's API capped them.
    static let maximumObservations = 100

    static func add(to router: Router<BasicRequestContext>, _ hub: HubServices) {
        let resolveTimer = Timer(label: "nearcast_hub_getforobserved_seconds")
        let observed = Counter(label: "nearcast_hub_observations_total")
        let resolved = Counter(label: "nearcast_hub_observations_resolved_total")
        let tableGauge = Gauge(label: "nearcast_hub_eid_table_entries")

        router.get("/v1beta1/eidparams") { _, _ in
            try RequestSupport.json(EIDParamsJSON(
                serviceEcdhPublicKey: Base64Field.encode(hub.serviceKey.publicKey),
                minRotationPeriodExponent: HubServices.exponents.lowerBound,
                maxRotationPeriodExponent: HubServices.exponents.upperBound))
        }
        router.post("/v1beta1/beaconinfo:getforobserved") { request, _ in
            let started = ContinuousClock.now
            let access = try await hub.access(request, manage: false)
            let body = try await RequestSupport.decode(GetForObservedRequest.self, from: request)
            guard !body.observations.isEmpty else { throw APIError.invalid("observations", "must list at least one observation") }
            guard body.observations.count <= maximumObservations else {
                throw APIError.invalid("observations", "lists \(body.observations.count); at most \(maximumObservations) per call")
            }
            // No types named: no attachments, as Google's API answered.
            let filter = try NamespacedTypeFilter(parsing: body.namespacedTypes ?? [], field: "namespacedTypes")
            let nowMs = HubClock.nowMs()
            var answered: [GetForObservedResponse.Beacon] = []
            var seen = Set<String>()
            for (index, observation) in body.observations.enumerated() {
                let field = "observations[\(index)]"
                if let stamp = observation.timestampMs, Int64(stamp) == nil, Double(stamp) == nil {
                    throw APIError.invalid(field + ".timestampMs", "'\(stamp)' is not a number of milliseconds")
                }
                guard let name = try await resolve(observation.advertisedId, field: field, project: access.project,
                                                   nowMs: nowMs, hub: hub),
                      seen.insert(name).inserted else { continue }
                // Deleted between the resolve and this read: absent, like any unknown token.
                guard let found = try await hub.attachments.beaconWithAttachments(project: access.project, beaconName: name,
                                                                                  filter: filter) else { continue }
                answered.append(GetForObservedResponse.Beacon(advertisedId: observation.advertisedId, beaconName: name,
                                                              description: found.description,
                                                              attachments: found.attachments.map(\.json)))
            }
            observed.increment(by: body.observations.count)
            resolved.increment(by: answered.count)
            tableGauge.record(await hub.resolverCache.tableSize)
            let elapsed = (ContinuousClock.now - started).components
            resolveTimer.recordNanoseconds(elapsed.seconds * 1_000_000_000 + elapsed.attoseconds / 1_000_000_000)
            return try RequestSupport.json(GetForObservedResponse(beacons: answered))
        }
    }

    /// The beacon name an observation resolves to in the caller's project, or nil (unknown
    /// tokens are simply absent from the answer).
    private static func resolve(_ advertised: AdvertisedID, field: String, project: String, nowMs: Int64,
                                hub: HubServices) async throws -> String? {
        guard let kind = BeaconRecord.Kind(rawValue: advertised.type) else {
            throw APIError.invalid(field + ".advertisedId.type", "'\(advertised.type)' must be EDDYSTONE or EDDYSTONE_EID")
        }
        let id = try Base64Field.decode(advertised.id, field: field + ".advertisedId.id")
        switch kind {
        case .uid:
            guard (1...16).contains(id.count) else {
                throw APIError.invalid(field + ".advertisedId.id", "an Eddystone id is 1-16 bytes (got \(id.count))")
            }
            return try await hub.beacons.find(project: project, kind: .uid, idHex: Hex.format(id))?.beaconName
        case .eid:
            guard id.count == 8, let token = try? Token(kind: .eid, bytes: id) else {
                throw APIError.invalid(field + ".advertisedId.id", "an EID is 8 bytes (got \(id.count))")
            }
            let nowSeconds = nowMs / 1000
            guard let found = try await hub.resolverCache.resolve(project: project, eid: token, nowSeconds: nowSeconds)
            else { return nil }
            if found.skewSeconds > 0 {
                // Heard an epoch or more ahead of where its clock was expected (drift, a restart
                // that kept counting): re-anchor at the middle of the heard epoch, so the window
                // follows the box. Only forwards: anyone with the public key could replay an
                // hour-old EID, and moving the window back on that would let old EIDs resolve.
                // A clock that went back (a power cut) is re-anchored by the box's heartbeat.
                let middle = UInt64(found.epochStart) + (UInt64(1) << UInt64(found.exponent)) / 2
                hub.logger.info("eid: \(found.beaconName) heard \(found.skewSeconds) s from its expected clock; re-anchored")
                try await hub.beacons.reanchor(project: project, beaconName: found.beaconName,
                                               clockValue: UInt32(clamping: middle), atMs: nowSeconds * 1000)
            }
            return found.beaconName
        }
    }
}
