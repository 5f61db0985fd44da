import NearcastCore
import NearcastDrivers
import NearcastNearby

/// The box's side of the hub, driven from the daemon's loop: it registers the box's EID identity
/// the Eddystone way, keeps each published message attached to it, and sends a heartbeat (the
/// box's clock, status and problems) every minute.
///
/// Broadcasting never waits for it. Each step is one short-lived child process (`curl`, or
/// `nearcast hub-identity` for the key exchange) polled once a period; while the hub cannot be
/// reached the steps are retried with backoff (1 s doubling to 15 s), and the message changes
/// simply wait: what is sent is always the messages published *now*, so a change made while the
/// hub was down (or while the box was restarted) reaches it once it answers again. Only the very
/// first start needs the hub before a message goes on air: the identity is derived from the
/// hub's key, and is kept in `hub.json` from then on.
final class HubLink {
    enum Phase: String {
        case contacting = "contacting"
        case deriving = "deriving-identity"
        case registering = "registering"
        case ready = "registered"
    }

    private enum Step {
        case parameters
        case register(initialTime: UInt32, eid: Token)
        case listAttachments
        case delete(attachmentName: String)
        case add(namespacedType: String, bytes: [UInt8])
        case heartbeat
    }

    static let heartbeatSeconds = 60.0

    let settings: HubSettings
    private let stateDirectory: StateDirectory
    private let exponent: Int
    private let curl: String?
    private(set) var record: HubRecord?
    private var call: (step: Step, request: HubCall)?
    private var identityChild: (child: ChildProcess, serviceKey: [UInt8], output: String, started: Double)?
    /// `nearcast hub-identity` takes milliseconds; one that runs this long is stuck.
    static let identityTimeoutSeconds = 30.0
    /// At most 15 s between tries: after a hub restart the audience sees the presenter's slide
    /// again within that (the soak measured 26-32 s with 60 s), and a venue's few boxes do not
    /// load a hub by trying every 15 s.
    private var backoff = RetryBackoff(first: 1, longest: 15)
    /// The contents being synchronised (captured when the attachment list was asked for), the
    /// revision they came from, and the calls left to make.
    private var sync: (revision: Int, types: [String], remaining: [Step])?
    private var syncedRevision = -1
    private var nextHeartbeat = 0.0
    private(set) var lastHeartbeat: Double?
    private(set) var lastError: String?

    init(settings: HubSettings, state: StateDirectory, exponent: Int, log: (String) -> Void) {
        self.settings = settings
        self.stateDirectory = state
        self.exponent = exponent
        curl = ChildProcess.find("curl")
        record = HubRecord.load(from: state, hub: settings.url, log: log)
        if let record, record.exponent != exponent {
            log("hub: the identity in \(state.file(HubRecord.fileName)) rotates every 2^\(record.exponent) s; "
                + "--exponent \(exponent) applies to a new registration (remove the file to re-register)")
        }
        if curl == nil { lastError = "curl is not installed (the hub client runs it): apt install curl" }
    }

    var phase: Phase {
        guard let record else { return identityChild == nil ? .contacting : .deriving }
        return record.beaconName == nil ? .registering : .ready
    }

    /// The identity content publications broadcast, once known.
    var identity: HubIdentity? { record.map { HubIdentity(identityKey: $0.identityKey, exponent: $0.exponent) } }

    /// Whether the hub holds exactly the messages published now.
    func isInSync(_ manager: MessageManager) -> Bool {
        phase == .ready && syncedRevision == manager.contentRevision && sync == nil
    }

    /// Once a period: collects a finished step, starts the next one when it is due.
    func service(_ daemon: DaemonState, now: Double, log: (String) -> Void) {
        if let running = call {
            guard let outcome = running.request.poll(now: now) else { return }
            call = nil
            handle(outcome, of: running.step, daemon: daemon, now: now, log: log)
        }
        if let running = identityChild {
            let status: ChildProcess.Status
            do {
                guard let ended = try running.child.poll() else {
                    guard now - running.started > Self.identityTimeoutSeconds else { return }
                    running.child.kill()
                    identityChild = nil
                    return failed("nearcast hub-identity did not finish in \(Int(Self.identityTimeoutSeconds)) s; killed", now: now, log: log)
                }
                status = ended
            } catch {
                running.child.kill()
                identityChild = nil
                return failed("waiting for nearcast hub-identity: \(error)", now: now, log: log)
            }
            identityChild = nil
            finishIdentity(status, serviceKey: running.serviceKey, output: running.output, daemon: daemon, now: now, log: log)
        }
        guard curl != nil, backoff.isDue(at: now), let step = nextStep(daemon, now: now) else { return }
        start(step, daemon: daemon, now: now, log: log)
    }

    /// Stops a request under way (at shutdown).
    func cancel() {
        call?.request.cancel()
        identityChild?.child.kill()
    }

    // MARK: What comes next

    private func nextStep(_ daemon: DaemonState, now: Double) -> Step? {
        guard let record else { return .parameters }
        guard record.beaconName != nil else {
            let time = daemon.beaconTime
            guard let eid = try? EphemeralIdentifier.compute(identityKey: record.identityKey, exponent: record.exponent,
                                                             time: time, cipher: OpenSSLAES128()) else { return nil }
            return .register(initialTime: time, eid: eid)
        }
        if var pending = sync {
            guard !pending.remaining.isEmpty else { return nil }
            let step = pending.remaining.removeFirst()
            sync = pending
            return step
        }
        if syncedRevision != daemon.manager.contentRevision { return .listAttachments }
        if now >= nextHeartbeat { return .heartbeat }
        return nil
    }

    private func start(_ step: Step, daemon: DaemonState, now: Double, log: (String) -> Void) {
        guard let curl else { return }
        var method = "GET", path = "/v1beta1/eidparams", body: String?
        let name = record?.beaconName ?? ""
        switch step {
        case .parameters:
            break
        case .register(let time, let eid):
            guard let record else { return }
            var advertised = JSONObjectWriter()
            advertised.add("type", "EDDYSTONE_EID")
            advertised.add("id", Base64.encode(eid.bytes))
            var registration = JSONObjectWriter()
            registration.add("beaconEcdhPublicKey", Base64.encode(record.beaconPublicKey))
            registration.add("serviceEcdhPublicKey", Base64.encode(record.serviceKey))
            registration.add("rotationPeriodExponent", record.exponent)
            registration.add("initialClockValue", Int(time))
            registration.add("initialEid", Base64.encode(eid.bytes))
            var writer = JSONObjectWriter()
            writer.add("advertisedId", object: advertised)
            writer.add("ephemeralIdRegistration", object: registration)
            writer.add("description", "nearcast \(daemon.board.name) (\(daemon.board.description))")
            method = "POST"; path = "/v1beta1/beacons:register"; body = writer.text
        case .listAttachments:
            path = "/v1beta1/\(name)/attachments"
            sync = (daemon.manager.contentRevision, [], [])
        case .delete(let attachment):
            method = "DELETE"; path = "/v1beta1/\(attachment)"
        case .add(let type, let bytes):
            var writer = JSONObjectWriter()
            writer.add("namespacedType", type)
            writer.add("data", Base64.encode(bytes))
            method = "POST"; path = "/v1beta1/\(name)/attachments"; body = writer.text
        case .heartbeat:
            var writer = JSONObjectWriter()
            writer.add("clockValue", Int(daemon.beaconTime))
            let count = daemon.publications.count
            writer.add("status", daemon.consentGranted ? "broadcasting \(count) publication\(count == 1 ? "" : "s")"
                                                       : "consent not granted: broadcasting nothing")
            writer.add("problems", strings: daemon.manager.currentProblems.identifiers)
            writer.add("version", BuildInfo.version)
            method = "POST"; path = "/v1beta1/\(name)/heartbeat"; body = writer.text
        }
        do {
            call = (step, try HubCall(method: method, path: path, body: body, hub: settings, curl: curl,
                                      state: stateDirectory, now: now))
        } catch {
            failed("cannot start curl: \(error)", now: now, log: log)
        }
    }

    // MARK: What came back

    private func handle(_ outcome: HubCall.Outcome, of step: Step, daemon: DaemonState, now: Double, log: (String) -> Void) {
        guard case .answered(let status, let body) = outcome else {
            if case .failed(let why) = outcome { failed("unreachable: \(why)", now: now, log: log) }
            return
        }
        let json = JSON5Node.parse(json: body)
        let hubMessage = json?["error"]?["message"]?.string
        switch (step, status) {
        case (.parameters, 200):
            guard let key = json?["serviceEcdhPublicKey"]?.string.flatMap({ Base64.decode($0) }), key.count == 32,
                  let low = json?["minRotationPeriodExponent"]?.integer, let high = json?["maxRotationPeriodExponent"]?.integer
            else { return failed("GET /v1beta1/eidparams answered something that is not a hub's parameters", now: now, log: log) }
            guard (low...high).contains(exponent) else {
                return failed("the hub takes rotation exponents \(low)-\(high); this box uses \(exponent) (--exponent)", now: now, log: log)
            }
            startIdentity(serviceKey: key, now: now, log: log)
        case (.register, 200), (.register, 409):
            guard var updated = record, case .register(_, let eid) = step else { return }
            // The name goes into URLs (and curl's config): only the shape a hub gives is taken.
            let expected = "beacons/4!\(eid.hex)"
            let named = json?["beaconName"]?.string ?? expected
            guard Self.isBeaconName(named) else {
                return failed("the hub named the box '\(named.prefix(80))', not a beacon name", now: now, log: log)
            }
            updated.beaconName = named
            saveRecord(updated, log: log)
            log("hub: registered the box at \(settings.url) as \(updated.beaconName ?? "")")
            syncedRevision = -1
            nextHeartbeat = now
        case (.listAttachments, 200):
            // An answer that is not the list (cut short, a proxy's page) must not read as "the
            // hub holds nothing": that would add every message again.
            guard let existing = json?["attachments"]?.array else {
                return failed("the attachment list from \(settings.url) could not be read", now: now, log: log)
            }
            plan(existing: existing, daemon: daemon)
        case (.delete, 200), (.delete, 404), (.add, 200):
            break
        case (.heartbeat, 200):
            lastHeartbeat = now
            nextHeartbeat = now + Self.heartbeatSeconds
        case (.register, 400) where json?["error"]?["field"]?.string == "ephemeralIdRegistration.serviceEcdhPublicKey":
            // The hub has another key now (its database was replaced): derive a new identity.
            log("hub: \(settings.url) has a new service key; the box derives a new identity and registers again")
            record = nil
            _ = try? FileSystem.remove(stateDirectory.file(HubRecord.fileName))
            daemon.hubIdentityLost()
            syncedRevision = -1
        case (.add(let type, _), 400), (.add(let type, _), 403):
            // This message is refused (another project's namespace, a type the hub does not
            // take): say so and go on with the others rather than retrying it for ever.
            log("error: hub: \(settings.url) refuses the message of type \(type): \(hubMessage ?? "HTTP \(status)")")
        case (.listAttachments, 404), (.heartbeat, 404), (.add, 404):
            // The operator deleted the beacon on the hub: register again.
            guard var updated = record else { return }
            log("hub: \(updated.beaconName ?? "the box") is no longer registered at \(settings.url); registering again")
            updated.beaconName = nil
            saveRecord(updated, log: log)
            sync = nil
        default:
            let what = hubMessage.map { "HTTP \(status): \($0)" } ?? "HTTP \(status)"
            return failed("\(describe(step)) refused: \(what)", now: now, log: log)
        }
        succeeded(log: log)
        finishSyncIfDone(daemon, log: log)
    }

    /// The calls that make the hub's attachments of the box's types equal to what is published.
    private func plan(existing: [JSON5Node], daemon: DaemonState) {
        guard let started = sync, let record else { return }
        let wanted = daemon.manager.contents
        let types = wanted.map(\.namespacedType)
        let managed = Set(record.managedTypes).union(types)
        var unmatched = wanted.map { (type: $0.namespacedType, data: Base64.encode($0.bytes)) }
        var steps: [Step] = []
        for attachment in existing {
            guard let type = attachment["namespacedType"]?.string, managed.contains(type),
                  let name = attachment["attachmentName"]?.string, Self.isAttachmentName(name, of: record.beaconName) else { continue }
            let data = attachment["data"]?.string ?? ""
            if let index = unmatched.firstIndex(where: { $0.type == type && $0.data == data }) {
                unmatched.remove(at: index)
            } else {
                steps.append(.delete(attachmentName: name))
            }
        }
        for item in wanted where unmatched.contains(where: { $0.type == item.namespacedType && $0.data == Base64.encode(item.bytes) }) {
            steps.append(.add(namespacedType: item.namespacedType, bytes: item.bytes))
        }
        // Remembered before the first add: a message added and then unpublished before this
        // sync completes is still the box's to delete.
        let union = record.managedTypes + types.filter { !record.managedTypes.contains($0) }
        if union != record.managedTypes {
            var updated = record
            updated.managedTypes = union
            saveRecord(updated, log: { _ in })
        }
        sync = (started.revision, types, steps)
    }

    private func finishSyncIfDone(_ daemon: DaemonState, log: (String) -> Void) {
        guard let done = sync, done.remaining.isEmpty, call == nil, var updated = record else { return }
        sync = nil
        syncedRevision = done.revision
        if updated.managedTypes != done.types {
            updated.managedTypes = done.types
            saveRecord(updated, log: log)
        }
        let count = daemon.manager.contents.count
        log("hub: \(count) message\(count == 1 ? "" : "s") attached to \(updated.beaconName ?? "the box") at \(settings.url)")
    }

    // MARK: The identity

    private func startIdentity(serviceKey: [UInt8], now: Double, log: (String) -> Void) {
        guard let executable = FileSystem.executablePath() else {
            return failed("cannot find the nearcast executable for hub-identity", now: now, log: log)
        }
        let output = stateDirectory.file("hub-identity.out")
        do {
            let child = try ChildProcess(arguments: [executable, "hub-identity", "--service-key", Base64.encode(serviceKey)],
                                         stdout: output, stderr: stateDirectory.file("hub-call.err"))
            identityChild = (child, serviceKey, output, now)
        } catch {
            failed("cannot start nearcast hub-identity: \(error)", now: now, log: log)
        }
    }

    private func finishIdentity(_ status: ChildProcess.Status, serviceKey: [UInt8], output: String, daemon: DaemonState,
                                now: Double, log: (String) -> Void) {
        let text = (try? FileSystem.readText(output, limit: 4096)) ?? ""
        _ = try? FileSystem.remove(output)
        guard status == .exited(0), let json = JSON5Node.parse(json: text),
              let beacon = json["beaconPublicKey"]?.string.flatMap({ Base64.decode($0) }), beacon.count == 32,
              let key = json["identityKey"]?.string.flatMap({ try? Hex.parse($0) }), key.count == 16
        else {
            let why = (try? FileSystem.readText(stateDirectory.file("hub-call.err"), limit: 4096))?.trimmingWhitespace ?? ""
            return failed("deriving the box's identity failed (\(status)): \(why)", now: now, log: log)
        }
        let made = HubRecord(hub: settings.url, serviceKey: serviceKey, beaconPublicKey: beacon, identityKey: key, exponent: exponent)
        saveRecord(made, log: log)
        log("hub: derived the box's EID identity with \(settings.url)'s key (it stays on the box)")
        daemon.hubIdentityArrived(HubIdentity(identityKey: key, exponent: exponent))
        succeeded(log: log)
    }

    // MARK: Bookkeeping

    private func saveRecord(_ updated: HubRecord, log: (String) -> Void) {
        record = updated
        do { try updated.save(to: stateDirectory) } catch {
            log("warning: \(stateDirectory.file(HubRecord.fileName)) not saved: \(error); the box registers again at its next start")
        }
    }

    private func failed(_ why: String, now: Double, log: (String) -> Void) {
        _ = backoff.failed(at: now)   // the next attempt's time is kept in the backoff itself
        sync = nil
        if why != lastError { log("warning: hub: \(why); retrying with backoff, broadcasting goes on") }
        lastError = why
    }

    private func succeeded(log: (String) -> Void) {
        if lastError != nil { log("hub: \(settings.url) answers again") }
        lastError = nil
        backoff.succeeded()
    }

    private func describe(_ step: Step) -> String {
        switch step {
        case .parameters: return "GET eidparams"
        case .register: return "registration"
        case .listAttachments: return "listing the attachments"
        case .delete: return "deleting an attachment"
        case .add: return "attaching a message"
        case .heartbeat: return "the heartbeat"
        }
    }

    /// `beacons/3!HEX` or `beacons/4!HEX`, lowercase hex: what a hub names beacons.
    static func isBeaconName(_ text: String) -> Bool {
        guard text.hasPrefix("beacons/3!") || text.hasPrefix("beacons/4!") else { return false }
        let hex = text.dropFirst(10)
        return (1...32).contains(hex.count) && hex.allSatisfy { ("0"..."9").contains($0) || ("a"..."f").contains($0) }
    }

    /// `BEACON/attachments/ID` of this box's beacon, ID letters and digits only.
    static func isAttachmentName(_ text: String, of beacon: String?) -> Bool {
        guard let beacon, text.hasPrefix(beacon + "/attachments/") else { return false }
        let id = text.dropFirst(beacon.count + 13)
        return (1...64).contains(id.count) && id.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }
    }

    /// When the next attempt is due after a failure (seconds of the daemon's clock).
    var retryAt: Double? { lastError == nil ? nil : backoff.nextAttempt }
}
