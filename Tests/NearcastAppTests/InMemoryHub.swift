@testable import NearcastApp
import NearcastCore
import NearcastDrivers

/// A hub in memory speaking the Proximity Beacon API's shapes as nearcast-hub does (its
/// eidparams, registration with the service-key check, attachments, heartbeats, its 404s and
/// 409s), behind the ``HubTransport`` the box's hub client uses: the double the client's state
/// machine is tested over. The real hub is exercised end to end by hub/e2e/test_box.py.
final class InMemoryHub: HubTransport {
    struct Attachment: Equatable {
        var name: String
        var type: String
        var data: String
    }

    var serviceKey: [UInt8] = Array(repeating: 7, count: 32)
    /// Refused with 403, as another project's namespace is.
    var refusedTypes: Set<String> = []
    /// While true every call fails as a refused connection does.
    var down = false
    private(set) var beacons: [String: [Attachment]] = [:]
    private(set) var requests: [HubRequest] = []
    /// When each request started (the link's clock).
    private(set) var requestTimes: [Double] = []
    private(set) var heartbeats = 0
    private(set) var registrations = 0
    private var reply: HubReply?
    private var nextID = 1

    func start(_ request: HubRequest, now: Double) throws(HubFailure) {
        precondition(reply == nil, "one request at a time")
        requests.append(request)
        requestTimes.append(now)
        reply = down ? .failed("Failed to connect to hub port 80: Connection refused") : answer(request)
    }

    func poll(now: Double) -> HubReply? {
        defer { reply = nil }
        return reply
    }

    func cancel() { reply = nil }

    /// Puts a beacon (and attachments) on the hub, as an earlier run of the box would have.
    func seed(beacon: String, attachments: [(type: String, data: String)]) {
        beacons[beacon] = attachments.map { makeAttachment(beacon: beacon, type: $0.type, data: $0.data) }
    }

    /// The operator deletes the beacon (or the database is replaced).
    func deleteBeacon(_ name: String) { beacons[name] = nil }

    func attachments(of beacon: String) -> [Attachment] { beacons[beacon] ?? [] }

    private func makeAttachment(beacon: String, type: String, data: String) -> Attachment {
        defer { nextID += 1 }
        return Attachment(name: "\(beacon)/attachments/a\(nextID)", type: type, data: data)
    }

    private func answer(_ request: HubRequest) -> HubReply {
        let json = request.body.flatMap { JSON5Node.parse(json: $0) }
        switch (request.method, request.path) {
        case ("GET", "/v1beta1/eidparams"):
            return ok(#"{"serviceEcdhPublicKey":"\#(Base64.encode(serviceKey))","minRotationPeriodExponent":0,"maxRotationPeriodExponent":15}"#)
        case ("POST", "/v1beta1/beacons:register"):
            let registration = json?["ephemeralIdRegistration"]
            guard registration?["serviceEcdhPublicKey"]?.string == Base64.encode(serviceKey) else {
                return .answered(status: 400, body: #"{"error":{"code":400,"message":"not this hub's key","status":"INVALID_ARGUMENT","field":"ephemeralIdRegistration.serviceEcdhPublicKey"}}"#)
            }
            guard let eid = registration?["initialEid"]?.string.flatMap({ Base64.decode($0) }) else { return error(400) }
            let name = "beacons/4!" + Hex.format(eid)
            registrations += 1
            guard beacons[name] == nil else { return error(409) }
            beacons[name] = []
            return ok(#"{"beaconName":"\#(name)"}"#)
        default:
            break
        }
        let parts = request.path.dropFirst("/v1beta1/".count).split(separator: "/").map(String.init)
        guard parts.count >= 2 else { return error(404) }
        let beacon = parts[0] + "/" + parts[1]
        guard var attachments = beacons[beacon] else { return error(404) }
        switch (request.method, Array(parts.dropFirst(2))) {
        case ("GET", ["attachments"]):
            let items = attachments.map { #"{"attachmentName":"\#($0.name)","namespacedType":"\#($0.type)","data":"\#($0.data)"}"# }
            return ok(#"{"attachments":[\#(items.joined(separator: ","))]}"#)
        case ("POST", ["attachments"]):
            guard let type = json?["namespacedType"]?.string, let data = json?["data"]?.string else { return error(400) }
            guard !refusedTypes.contains(type) else { return error(403) }
            attachments.append(makeAttachment(beacon: beacon, type: type, data: data))
            beacons[beacon] = attachments
            return ok("{}")
        case ("DELETE", let rest) where rest.count == 2 && rest[0] == "attachments":
            let name = request.path.dropFirst("/v1beta1/".count)
            guard let index = attachments.firstIndex(where: { $0.name == name }) else { return error(404) }
            attachments.remove(at: index)
            beacons[beacon] = attachments
            return ok("{}")
        case ("POST", ["heartbeat"]):
            heartbeats += 1
            return ok("{}")
        default:
            return error(404)
        }
    }

    private func ok(_ body: String) -> HubReply { .answered(status: 200, body: body) }

    private func error(_ status: Int) -> HubReply {
        .answered(status: status, body: #"{"error":{"code":\#(status),"message":"refused by the test hub","status":"X"}}"#)
    }
}

/// The box's identity derived in process (the daemon runs `nearcast hub-identity` for it).
final class InProcessIdentity: IdentityDerivation {
    private var result: Result<DerivedIdentity, HubFailure>?
    private(set) var derivations = 0

    func start(serviceKey: [UInt8], now: Double) throws(HubFailure) {
        derivations += 1
        do {
            let keys = try EddystoneKeyExchange.derive(servicePublicKey: serviceKey)
            result = .success(DerivedIdentity(beaconPublicKey: keys.beaconPublicKey, identityKey: keys.identityKey))
        } catch {
            result = .failure(HubFailure(message: "\(error)"))
        }
    }

    func poll(now: Double) -> Result<DerivedIdentity, HubFailure>? {
        defer { result = nil }
        return result
    }

    func cancel() { result = nil }
}
