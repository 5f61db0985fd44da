import NearcastCore
import NearcastNearby

/// The box's hub client as a state machine with no I/O: what to ask the hub next (its EID
/// parameters, the registration, the attachment list, the deletes and adds that make the hub's
/// attachments equal to what is published, the heartbeat), what each answer means, and when to
/// try again after a failure. ``HubLink`` carries its requests over a ``HubTransport`` and does
/// what its ``Effect``s say (save the record, put messages on or off the air); the unit tests
/// drive it against an in-memory hub.
///
/// One piece of work is under way at a time: ``nextWork(now:beaconTime:heartbeat:)`` returns it
/// and the answer goes back through ``received(_:now:)`` (or ``identityDerived(_:now:)``).
/// What is sent is always the messages published *now* (``want(_:revision:)``), so a change made
/// while the hub was down reaches it once it answers again.
struct HubSync<Cipher: BlockCipher128> {
    /// One call to the hub, as the machine thinks of it.
    enum Call: Equatable {
        case parameters
        case register(initialTime: UInt32, eid: Token)
        case listAttachments
        case delete(attachmentName: String)
        case add(namespacedType: String, bytes: [UInt8])
        case heartbeat
    }

    /// What the machine wants done next.
    enum Work: Equatable {
        /// Send this request to the hub and hand the reply to ``received(_:now:)``.
        case send(HubRequest)
        /// Derive the box's EID identity with the hub's key (``identityDerived(_:now:)``).
        case deriveIdentity(serviceKey: [UInt8])
    }

    /// What the caller does after an answer.
    enum Effect: Equatable {
        /// Keep this record (`hub.json`); a failure to save is only logged: the box registers again.
        case save(HubRecord)
        /// Forget the record: the hub has another key.
        case forget
        /// The identity is known: messages waiting for it go on air.
        case identityArrived(HubIdentity)
        /// The hub no longer knows the identity: messages go off air until a new one arrives.
        case identityLost
        case log(String)
    }

    static var heartbeatSeconds: Double { 60 }

    let hub: String
    let exponent: Int
    /// How the box describes itself at registration ("nearcast sim (...)").
    let description: String
    private let cipher: Cipher
    private(set) var record: HubRecord?
    /// The call under way.
    private var pending: Call?
    /// The hub's key, once its parameters came, until the identity is derived with it; and
    /// whether that derivation is under way.
    private var serviceKey: [UInt8]?
    private var deriving = false
    /// At most 15 s between tries: after a hub restart the audience sees the presenter's slide
    /// again within that (the soak measured 26-32 s with 60 s), and a venue's few boxes do not
    /// load a hub by trying every 15 s.
    private var backoff = RetryBackoff(first: 1, longest: 15)
    /// What is published now and its revision (``want(_:revision:)``).
    private var wanted: [(namespacedType: String, bytes: [UInt8])] = []
    private var wantedRevision = 0
    /// A sync under way: the revision planned from, the types it leaves managed, the calls left.
    private var sync: (revision: Int, types: [String], remaining: [Call])?
    private var syncedRevision = -1
    private var nextHeartbeat = 0.0
    private(set) var lastHeartbeat: Double?
    private(set) var lastError: String?

    init(hub: String, exponent: Int, description: String, record: HubRecord?, cipher: Cipher) {
        self.hub = hub
        self.exponent = exponent
        self.description = description
        self.record = record
        self.cipher = cipher
    }

    var phase: HubPhase {
        guard let record else { return serviceKey == nil ? .contacting : .deriving }
        return record.beaconName == nil ? .registering : .ready
    }

    /// The identity content publications broadcast, once known.
    var identity: HubIdentity? { record.map { HubIdentity(identityKey: $0.identityKey, exponent: $0.exponent) } }

    /// Whether the hub holds exactly the messages published now.
    var isInSync: Bool { phase == .ready && syncedRevision == wantedRevision && sync == nil }

    /// Whether a call or a derivation is under way.
    var isBusy: Bool { pending != nil || deriving }

    /// When the next attempt is due after a failure (seconds of the daemon's clock).
    var retryAt: Double? { lastError == nil ? nil : backoff.nextAttempt }

    /// The messages published now (the manager's contents) and their revision: the hub is made
    /// to hold exactly these.
    mutating func want(_ contents: [(namespacedType: String, bytes: [UInt8])], revision: Int) {
        wanted = contents
        wantedRevision = revision
    }

    /// The revision last given to ``want(_:revision:)``.
    var revisionWanted: Int { wantedRevision }

    // MARK: What comes next

    /// The next piece of work, nil while one is under way, a retry is not due or nothing is to
    /// do. `heartbeat` is asked only when a heartbeat is due.
    mutating func nextWork(now: Double, beaconTime: UInt32, heartbeat: () -> HubHeartbeat) -> Work? {
        guard !isBusy, backoff.isDue(at: now) else { return nil }
        if record == nil, let key = serviceKey {
            deriving = true
            return .deriveIdentity(serviceKey: key)
        }
        guard let call = nextCall(now: now, beaconTime: beaconTime) else { return nil }
        pending = call
        return .send(request(for: call, beaconTime: beaconTime, heartbeat: heartbeat))
    }

    private mutating func nextCall(now: Double, beaconTime: UInt32) -> Call? {
        guard let record else { return .parameters }
        guard record.beaconName != nil else {
            guard let eid = try? EphemeralIdentifier.compute(identityKey: record.identityKey, exponent: record.exponent,
                                                             time: beaconTime, cipher: cipher) else { return nil }
            return .register(initialTime: beaconTime, eid: eid)
        }
        if var planned = sync {
            guard !planned.remaining.isEmpty else { return nil }
            let call = planned.remaining.removeFirst()
            sync = planned
            return call
        }
        if syncedRevision != wantedRevision { return .listAttachments }
        if now >= nextHeartbeat { return .heartbeat }
        return nil
    }

    /// The HTTP request a call is (the Proximity Beacon API's shapes).
    func request(for call: Call, beaconTime: UInt32, heartbeat: () -> HubHeartbeat) -> HubRequest {
        let name = record?.beaconName ?? ""
        switch call {
        case .parameters:
            return HubRequest(method: "GET", path: "/v1beta1/eidparams")
        case .register(let time, let eid):
            let body = HubAPI.registration(eid: eid.bytes, initialTime: time, beaconPublicKey: record?.beaconPublicKey ?? [],
                                          serviceKey: record?.serviceKey ?? [], exponent: record?.exponent ?? exponent,
                                          description: description)
            return HubRequest(method: "POST", path: "/v1beta1/beacons:register", body: body)
        case .listAttachments:
            return HubRequest(method: "GET", path: "/v1beta1/\(name)/attachments")
        case .delete(let attachment):
            return HubRequest(method: "DELETE", path: "/v1beta1/\(attachment)")
        case .add(let type, let bytes):
            return HubRequest(method: "POST", path: "/v1beta1/\(name)/attachments",
                              body: HubAPI.attachment(namespacedType: type, bytes: bytes))
        case .heartbeat:
            return HubRequest(method: "POST", path: "/v1beta1/\(name)/heartbeat",
                              body: HubAPI.heartbeat(clockValue: beaconTime, heartbeat()))
        }
    }

    // MARK: What came back

    /// The reply to the call under way.
    mutating func received(_ reply: HubReply, now: Double) -> [Effect] {
        guard let call = pending else { return [] }
        pending = nil
        if call == .parameters, case .answered(200, _) = reply {
            return parametersArrived(reply, now: now)
        }
        var effects: [Effect] = []
        switch reply {
        case .failed(let why):
            failed("unreachable: \(why)", now: now, &effects)
        case .answered(let status, let body):
            handle(call, status: status, answer: HubAPI.answer(body), now: now, &effects)
        }
        return effects
    }

    private mutating func parametersArrived(_ reply: HubReply, now: Double) -> [Effect] {
        var effects: [Effect] = []
        guard case .answered(_, let body) = reply, let parameters = HubAPI.parameters(body) else {
            failed("GET /v1beta1/eidparams answered something that is not a hub's parameters", now: now, &effects)
            return effects
        }
        guard parameters.exponents.contains(exponent) else {
            let (low, high) = (parameters.exponents.lowerBound, parameters.exponents.upperBound)
            failed("the hub takes rotation exponents \(low)-\(high); this box uses \(exponent) (--exponent)", now: now, &effects)
            return effects
        }
        serviceKey = parameters.serviceKey
        succeeded(&effects)
        return effects
    }

    /// The identity derivation's result (or why it failed).
    mutating func identityDerived(_ result: Result<DerivedIdentity, HubFailure>, now: Double) -> [Effect] {
        guard deriving, let serviceKey else { return [] }
        deriving = false
        self.serviceKey = nil
        var effects: [Effect] = []
        switch result {
        case .failure(let failure):
            // Asked again for the parameters next time: the hub may have a new key by then.
            failed(failure.message, now: now, &effects)
        case .success(let derived):
            let made = HubRecord(hub: hub, serviceKey: serviceKey, beaconPublicKey: derived.beaconPublicKey,
                                 identityKey: derived.identityKey, exponent: exponent)
            record = made
            effects.append(.save(made))
            effects.append(.log("hub: derived the box's EID identity with \(hub)'s key (it stays on the box)"))
            effects.append(.identityArrived(HubIdentity(identityKey: derived.identityKey, exponent: exponent)))
            succeeded(&effects)
        }
        return effects
    }

    private mutating func handle(_ call: Call, status: Int, answer: HubAPI.Answer, now: Double, _ effects: inout [Effect]) {
        let hubMessage = answer.errorMessage
        switch (call, status) {
        case (.register(_, let eid), 200), (.register(_, let eid), 409):
            guard var updated = record else { return }
            // The name goes into URLs: only the shape a hub gives is taken.
            let named = answer.beaconName ?? "beacons/4!\(eid.hex)"
            guard HubNames.isBeaconName(named) else {
                return failed("the hub named the box '\(named.prefix(80))', not a beacon name", now: now, &effects)
            }
            updated.beaconName = named
            keep(updated, &effects)
            effects.append(.log("hub: registered the box at \(hub) as \(named)"))
            syncedRevision = -1
            nextHeartbeat = now
        case (.listAttachments, 200):
            // An answer that is not the list (cut short, a proxy's page) must not read as "the
            // hub holds nothing": that would add every message again.
            guard let existing = answer.attachments else {
                return failed("the attachment list from \(hub) could not be read", now: now, &effects)
            }
            plan(existing: existing, &effects)
        case (.delete, 200), (.delete, 404), (.add, 200):
            break
        case (.heartbeat, 200):
            lastHeartbeat = now
            nextHeartbeat = now + Self.heartbeatSeconds
        case (.register, 400) where answer.errorField == "ephemeralIdRegistration.serviceEcdhPublicKey":
            // The hub has another key now (its database was replaced): derive a new identity.
            effects.append(.log("hub: \(hub) has a new service key; the box derives a new identity and registers again"))
            record = nil
            effects.append(.forget)
            effects.append(.identityLost)
            syncedRevision = -1
        case (.add(let type, _), 400), (.add(let type, _), 403):
            // This message is refused (another project's namespace, a type the hub does not
            // take): say so and go on with the others rather than retrying it for ever.
            effects.append(.log("error: hub: \(hub) refuses the message of type \(type): \(hubMessage ?? "HTTP \(status)")"))
        case (.listAttachments, 404), (.heartbeat, 404), (.add, 404):
            // The operator deleted the beacon on the hub: register again.
            guard var updated = record else { return }
            effects.append(.log("hub: \(updated.beaconName ?? "the box") is no longer registered at \(hub); registering again"))
            updated.beaconName = nil
            keep(updated, &effects)
            sync = nil
        default:
            let what = hubMessage.map { "HTTP \(status): \($0)" } ?? "HTTP \(status)"
            return failed("\(Self.describe(call)) refused: \(what)", now: now, &effects)
        }
        succeeded(&effects)
        finishSyncIfDone(&effects)
    }

    /// The calls that make the hub's attachments of the box's types equal to what is published.
    private mutating func plan(existing: [HubAPI.Attachment], _ effects: inout [Effect]) {
        guard let record else { return }
        let types = wanted.map(\.namespacedType)
        let managed = Set(record.managedTypes).union(types)
        var unmatched = wanted.map { (type: $0.namespacedType, data: Base64.encode($0.bytes)) }
        var calls: [Call] = []
        for attachment in existing {
            guard let type = attachment.namespacedType, managed.contains(type),
                  let name = attachment.attachmentName, HubNames.isAttachmentName(name, of: record.beaconName) else { continue }
            let data = attachment.data
            if let index = unmatched.firstIndex(where: { $0.type == type && $0.data == data }) {
                unmatched.remove(at: index)
            } else {
                calls.append(.delete(attachmentName: name))
            }
        }
        for item in unmatched {
            guard let bytes = Base64.decode(item.data) else { continue }
            calls.append(.add(namespacedType: item.type, bytes: bytes))
        }
        // Remembered before the first add: a message added and then unpublished before this
        // sync completes is still the box's to delete.
        let union = record.managedTypes + types.filter { !record.managedTypes.contains($0) }
        if union != record.managedTypes {
            var updated = record
            updated.managedTypes = union
            keep(updated, &effects)
        }
        sync = (wantedRevision, types, calls)
    }

    private mutating func finishSyncIfDone(_ effects: inout [Effect]) {
        guard let done = sync, done.remaining.isEmpty, pending == nil, var updated = record else { return }
        sync = nil
        syncedRevision = done.revision
        if updated.managedTypes != done.types {
            updated.managedTypes = done.types
            keep(updated, &effects)
        }
        let count = wanted.count
        effects.append(.log("hub: \(count) message\(count == 1 ? "" : "s") attached to \(updated.beaconName ?? "the box") at \(hub)"))
    }

    // MARK: Bookkeeping

    private mutating func keep(_ updated: HubRecord, _ effects: inout [Effect]) {
        record = updated
        effects.append(.save(updated))
    }

    private mutating func failed(_ why: String, now: Double, _ effects: inout [Effect]) {
        backoff.failed(at: now)   // the next attempt's time is kept in the backoff itself
        sync = nil
        if why != lastError { effects.append(.log("warning: hub: \(why); retrying with backoff, broadcasting goes on")) }
        lastError = why
    }

    private mutating func succeeded(_ effects: inout [Effect]) {
        if lastError != nil { effects.append(.log("hub: \(hub) answers again")) }
        lastError = nil
        backoff.succeeded()
    }

    /// A failure the transport or the identity derivation reports, in words for the log.
    mutating func transportFailed(_ why: String, now: Double) -> [Effect] {
        pending = nil
        if deriving { serviceKey = nil }
        deriving = false
        var effects: [Effect] = []
        failed(why, now: now, &effects)
        return effects
    }

    private static func describe(_ call: Call) -> String {
        switch call {
        case .parameters: return "GET eidparams"
        case .register: return "registration"
        case .listAttachments: return "listing the attachments"
        case .delete: return "deleting an attachment"
        case .add: return "attaching a message"
        case .heartbeat: return "the heartbeat"
        }
    }
}

/// How far the box has got with its hub (`status --json`'s `hub.state`).
enum HubPhase: String {
    case contacting = "contacting"
    case deriving = "deriving-identity"
    case registering = "registering"
    case ready = "registered"
}
