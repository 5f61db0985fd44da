import Foundation
import Hummingbird
import Logging
import NearcastCore

/// Registering, listing, reading and deleting beacons, and the box's heartbeat. All need the
/// project's secret key.
struct BeaconController: Sendable {
    let beacons: any BeaconRepository
    /// The hub's key, which an EID beacon's registration must name.
    let serviceKey: ServiceKey
    let clock: HubClock
    let logger: Logger
    let keys: KeyChecker

    var endpoints: RouteCollection<HubRequestContext> {
        let routes = RouteCollection(context: HubRequestContext.self)
        let router = keys.group(routes, .manage)
        router.post("/v1beta1/beacons:register") { request, context in
            let access = try context.caller()
            let body = try await request.decode(as: RegisterBeaconRequest.self, context: context)
            let record = try makeRecord(body, project: access.project)
            let stored = try await beacons.register(record)
            logger.info("beacons: \(access.project) registered \(stored.beaconName)")
            return Self.json(stored)
        }
        router.get("/v1beta1/beacons") { _, context in
            let access = try context.caller()
            let records = try await beacons.list(project: access.project)
            return BeaconListJSON(beacons: records.map(Self.json))
        }
        router.get("/v1beta1/beacons/:beacon") { _, context in
            let access = try context.caller()
            let record = try await beacons.get(BeaconRef(project: access.project, beaconName: try RequestSupport.beaconName(context)))
            return Self.json(record)
        }
        router.delete("/v1beta1/beacons/:beacon") { _, context in
            let access = try context.caller()
            let beacon = try context.beacon(), name = beacon.beaconName
            try await beacons.delete(beacon)
            logger.info("beacons: \(access.project) deleted \(name)")
            return EmptyJSON()
        }
        router.post("/v1beta1/beacons/:beacon/heartbeat") { request, context in
            let beacon = try context.beacon()
            let heartbeat = try await request.decode(as: Heartbeat.self, context: context)
            try Self.validate(heartbeat)
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            let text = String(decoding: try encoder.encode(heartbeat), as: UTF8.self)
            try await beacons.recordHeartbeat(beacon,  heartbeatJSON: text,
                                                  clockValue: heartbeat.clockValue.map(UInt32.init), boxName: heartbeat.name,
                                                  atMs: clock.nowMs())
            return EmptyJSON()
        }
        return routes
    }

    /// Checks a registration and, for an EID, derives the identity key the Eddystone way and
    /// proves it with the beacon's initial EID.
    func makeRecord(_ body: RegisterBeaconRequest, project: String) throws -> Beacon {
        guard let kind = Beacon.Kind(rawValue: body.advertisedId.type) else {
            throw APIError.invalid("advertisedId.type", "'\(body.advertisedId.type)' must be EDDYSTONE or EDDYSTONE_EID")
        }
        if let description = body.description {
            try RequestSupport.checkFreeText(description, field: "description", characters: 1_000)
        }
        let now = clock.nowMs()
        switch kind {
        case .uid:
            let id = try Base64Field.decode(body.advertisedId.id, field: "advertisedId.id")
            guard (1...16).contains(id.count) else {
                throw APIError.invalid("advertisedId.id", "an Eddystone id is 1-16 bytes (got \(id.count))")
            }
            guard body.ephemeralIdRegistration == nil else {
                throw APIError.invalid("ephemeralIdRegistration", "is only for EDDYSTONE_EID beacons")
            }
            return Beacon(project: project, advertisedIDHex: Hex.format(id), description: body.description, createdMs: now)
        case .eid:
            let id = try Base64Field.decode(body.advertisedId.id, field: "advertisedId.id", count: 8)
            guard let registration = body.ephemeralIdRegistration else {
                throw APIError.invalid("ephemeralIdRegistration", "is required for an EDDYSTONE_EID beacon")
            }
            let field = "ephemeralIdRegistration."
            let beaconKey = try Base64Field.decode(registration.beaconEcdhPublicKey, field: field + "beaconEcdhPublicKey", count: 32)
            let serviceKey = try Base64Field.decode(registration.serviceEcdhPublicKey, field: field + "serviceEcdhPublicKey", count: 32)
            guard Data(serviceKey) == self.serviceKey.publicKey else {
                throw APIError.invalid(field + "serviceEcdhPublicKey", "is not this hub's key (GET /v1beta1/eidparams gives it)")
            }
            guard Beacon.exponents.contains(registration.rotationPeriodExponent) else {
                throw APIError.invalid(field + "rotationPeriodExponent",
                                       "\(registration.rotationPeriodExponent) is outside \(Beacon.exponents.lowerBound)-\(Beacon.exponents.upperBound)")
            }
            guard let initialClock = UInt32(exactly: registration.initialClockValue) else {
                throw APIError.invalid(field + "initialClockValue", "\(registration.initialClockValue) is not a 32-bit beacon time (0-4294967295)")
            }
            let initialEID = try Base64Field.decode(registration.initialEid, field: field + "initialEid", count: 8)
            guard initialEID == id else {
                throw APIError.invalid("advertisedId.id", "must be the initial EID (ephemeralIdRegistration.initialEid)")
            }
            let identityKey: [UInt8]
            do {
                identityKey = try IdentityKeyDerivation.identityKey(serviceKey: self.serviceKey.privateKey,
                                                                    beaconPublicKey: Data(beaconKey))
            } catch {
                throw APIError.invalid(field + "beaconEcdhPublicKey", "is not a usable X25519 public key")
            }
            let expected = try EphemeralIdentifier.compute(
                identityKey: identityKey, exponent: registration.rotationPeriodExponent,
                time: initialClock, cipher: SwiftCryptoAES128())
            guard expected.bytes == initialEID else {
                throw APIError.invalid(field + "initialEid",
                                       "does not match the EID of the key derived from beaconEcdhPublicKey at initialClockValue \(registration.initialClockValue) and exponent \(registration.rotationPeriodExponent)")
            }
            let eid = Beacon.EIDRegistration(
                identityKeyHex: Hex.format(identityKey), beaconPublicKey: registration.beaconEcdhPublicKey,
                exponent: registration.rotationPeriodExponent, clock: .init(value: Int64(initialClock), atMs: now))
            return Beacon(project: project, advertisedIDHex: Hex.format(id), eidRegistration: eid,
                                description: body.description, createdMs: now)
        }
    }

    static func validate(_ heartbeat: Heartbeat) throws(APIError) {
        if let clock = heartbeat.clockValue, UInt32(exactly: clock) == nil {
            throw APIError.invalid("clockValue", "\(clock) is not a 32-bit beacon time (0-4294967295)")
        }
        if let status = heartbeat.status, status.count > 500 { throw APIError.invalid("status", "is longer than 500 characters") }
        if let version = heartbeat.version, version.count > 100 { throw APIError.invalid("version", "is longer than 100 characters") }
        if let name = heartbeat.name { try RequestSupport.checkFreeText(name, field: "name", characters: 100) }
        if let problems = heartbeat.problems {
            guard problems.count <= 32 else { throw APIError.invalid("problems", "lists more than 32 problems") }
            for (index, problem) in problems.enumerated() where problem.count > 200 {
                throw APIError.invalid("problems[\(index)]", "is longer than 200 characters")
            }
        }
    }

    static func json(_ record: Beacon) -> BeaconJSON {
        let id = (try? Hex.parse(record.advertisedIDHex)) ?? []
        var beacon = BeaconJSON(beaconName: record.beaconName,
                                advertisedId: AdvertisedID(type: record.kind.rawValue, id: Base64Field.encode(id)),
                                status: record.active ? "ACTIVE" : "DELETED", description: record.description)
        if let eid = record.eidRegistration {
            beacon.ephemeralIdRegistration = PublicEIDRegistration(beaconEcdhPublicKey: eid.beaconPublicKey,
                                                                   rotationPeriodExponent: eid.exponent)
            beacon.clock = ClockObservation(clockValue: UInt32(clamping: eid.clock.value),
                                            observedTime: HubClock.timestamp(ms: eid.clock.atMs))
        }
        if let last = record.lastHeartbeat {
            beacon.lastHeartbeatTime = HubClock.timestamp(ms: last.atMs)
            beacon.heartbeat = try? JSONDecoder().decode(Heartbeat.self, from: Data(last.json.utf8))
        }
        return beacon
    }
}
