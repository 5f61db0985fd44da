import NearcastCore
import NearcastDrivers
import NearcastNearby

/// The box's side of the hub, driven once a period from the daemon's loop: it carries the
/// ``HubSync`` state machine's requests over a ``HubTransport`` (curl in a child process),
/// derives the box's identity through an ``IdentityDerivation`` (`nearcast hub-identity`), keeps
/// the machine's record in `hub.json`, and tells the publications when the identity arrives or
/// is lost.
///
/// Broadcasting never waits for it. Only the very first start needs the hub before a message
/// goes on air: the identity is derived from the hub's key, and is kept in `hub.json` from then
/// on. Nothing is written to the state directory per call: only when the record changes (a
/// registration, a new managed message type).
final class HubLink {
    let settings: HubSettings
    private(set) var sync: HubSync<OpenSSLAES128>
    private let transport: (any HubTransport)?
    private let deriver: any IdentityDerivation
    private let stateDirectory: StateDirectory
    /// Why the link cannot work at all (curl missing), shown as its last error.
    private let unusable: String?
    /// The venue's name for the box (`--name`, the config's `name`): sent with every heartbeat, so
    /// the hub lists the box by it (a SIGHUP with a new name reaches the hub within a minute).
    var boxName: String?

    init(settings: HubSettings, state: StateDirectory, exponent: Int, description: String,
         transport: (any HubTransport)?, identity: any IdentityDerivation, log: (String) -> Void) {
        self.settings = settings
        stateDirectory = state
        self.transport = transport
        deriver = identity
        let record = HubRecord.load(from: state, hub: settings.url, log: log)
        if let record, record.exponent != exponent {
            log("hub: the identity in \(state.file(HubRecord.fileName)) rotates every 2^\(record.exponent) s; "
                + "--exponent \(exponent) applies to a new registration (remove the file to re-register)")
        }
        sync = HubSync(hub: settings.url, exponent: exponent, description: description, record: record, cipher: OpenSSLAES128())
        unusable = transport == nil ? CurlTransport.missingCurl : nil
    }

    /// The box's link: curl for the calls, `nearcast hub-identity` for the key exchange.
    convenience init(settings: HubSettings, state: StateDirectory, exponent: Int, description: String, log: (String) -> Void) {
        self.init(settings: settings, state: state, exponent: exponent, description: description,
                  transport: CurlTransport(settings: settings), identity: IdentityProcess(), log: log)
    }

    var phase: HubPhase { sync.phase }
    var record: HubRecord? { sync.record }
    var lastHeartbeat: Double? { sync.lastHeartbeat }
    var lastError: String? { unusable ?? sync.lastError }
    var retryAt: Double? { unusable == nil ? sync.retryAt : nil }

    /// The identity content publications broadcast, once known.
    var identity: HubIdentity? { sync.identity }

    /// Whether the hub holds exactly the messages published now.
    func isInSync(_ manager: MessageManager) -> Bool { isInSync(revision: manager.contentRevision) }

    /// Whether the hub holds exactly the messages of content revision `revision`.
    func isInSync(revision: Int) -> Bool { sync.isInSync && sync.revisionWanted == revision }

    /// Once a period: takes in what the manager publishes now, collects a finished call, and
    /// starts the next one when it is due. `identityChanged` hears the identity arrive (or nil: lost).
    func service(now: Double, beaconTime: UInt32, manager: MessageManager, heartbeat: () -> HubHeartbeat,
                 identityChanged: (HubIdentity?) -> Void, log: (String) -> Void) {
        service(now: now, beaconTime: beaconTime, revision: manager.contentRevision, contents: { manager.contents },
                heartbeat: heartbeat, identityChanged: identityChanged, log: log)
    }

    /// The same with what is published given as a content revision and the contents (read only
    /// when the revision is new).
    func service(now: Double, beaconTime: UInt32, revision: Int, contents: () -> [(namespacedType: String, bytes: [UInt8])],
                 heartbeat: () -> HubHeartbeat, identityChanged: (HubIdentity?) -> Void, log: (String) -> Void) {
        guard let transport else { return }
        if revision != sync.revisionWanted { sync.want(contents(), revision: revision) }
        if let reply = transport.poll(now: now) { perform(sync.received(reply, now: now), identityChanged, log) }
        if let derived = deriver.poll(now: now) { perform(sync.identityDerived(derived, now: now), identityChanged, log) }
        guard let work = sync.nextWork(now: now, beaconTime: beaconTime, heartbeat: heartbeat) else { return }
        do throws(HubFailure) {
            switch work {
            case .send(let request): try transport.start(request, now: now)
            case .deriveIdentity(let key): try deriver.start(serviceKey: key, now: now)
            }
        } catch {
            perform(sync.transportFailed(error.message, now: now), identityChanged, log)
        }
    }

    /// Stops a call or derivation under way (at shutdown).
    func cancel() {
        transport?.cancel()
        deriver.cancel()
    }

    private func perform(_ effects: [HubSync<OpenSSLAES128>.Effect], _ identityChanged: (HubIdentity?) -> Void,
                         _ log: (String) -> Void) {
        for effect in effects {
            switch effect {
            case .save(let record):
                do { try record.save(to: stateDirectory) } catch {
                    log("warning: \(stateDirectory.file(HubRecord.fileName)) not saved: \(error); the box registers again at its next start")
                }
            case .forget: _ = try? FileSystem.remove(stateDirectory.file(HubRecord.fileName))
            case .identityArrived(let identity): identityChanged(identity)
            case .identityLost: identityChanged(nil)
            case .log(let line): log(line)
            }
        }
    }
}
