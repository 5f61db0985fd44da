import NearcastCore
import NearcastDrivers
import NearcastNearby

/// The running daemon's state, owned by its loop: the publications and the box's strategy, the
/// tunables, the requests the consoles leave for the loop (a test burst, a stall, a restart),
/// and what the loop learns (stream position, bursts played, tokens heard, the drivers'
/// problems). The console's commands go in through its methods and read views of it
/// (``deviceStates``, ``ledPatterns``, ``settingsInEffect``); device health comes from one
/// source, the manager's current problems, which the LEDs, `status` and the Nearby error
/// handlers all read.
final class DaemonState {
    struct Entry {
        let id: Int
        let request: Daemon.PublicationRequest
        let publication: Publication
    }

    let board: Board
    let state: StateDirectory
    let manager: MessageManager
    let encoder: BurstEncoder
    let sampleRate: Int
    let logRing = LogRing()
    /// The technician PIN guarding the commands that change state.
    let pin: TechnicianPIN
    /// Publications in the order they were made; a token publication's id is its scheduler slot
    /// (0-7, as the log lines show it), reused once unpublished; a message's is 8 or above
    /// (messages share one slot, the hub identity's EID).
    private(set) var publications: [Entry] = []
    /// Messages published before the box had its hub identity (the first start with a hub that
    /// has not answered yet): they go on air when ``hubIdentityArrived(_:)``.
    private(set) var pendingMessages: [(id: Int, request: Daemon.PublicationRequest)] = []
    /// The hub client, when the box publishes messages through a hub.
    var hub: HubLink?
    /// Calibrated TX power written into the Eddystone frames.
    var txPower: Int8
    /// The advertising interval the HCI driver will use, in milliseconds.
    var bleIntervalMilliseconds = 100
    /// The box's strategy: which mediums it uses and whether it broadcasts and scans.
    var strategy: Strategy
    /// The mediums the daemon may listen on (`--subscribe`; both by default).
    var listenMediums: DiscoveryMediums = .both
    /// The mediums the daemon listens on now: the strategy's, while its mode includes scan.
    var listeningMediums: DiscoveryMediums {
        strategy.mode.contains(.scan) ? strategy.mediums.intersection(listenMediums) : []
    }
    /// Stream position of the daemon's loop, in samples.
    var position = 0
    /// Set by `restart`: the loop stops cleanly and the process starts again.
    var restartRequested = false
    /// `debug stall N`: the loop blocks for N seconds once the console has replied, as a hung
    /// loop would, so a technician (and the watchdog test) can see systemd's watchdog act.
    var stallRequested: Int?
    static let maximumStall = 60
    /// Set by `audio test`: the loop plays one calibration burst.
    var testBurstRequested = false
    /// Bursts played so far.
    var bursts = 0
    /// Tokens heard by the daemon's own subscription (found and not yet lost).
    var present: [FoundMessage] = []

    /// The simulated board's fault switches (nil on a real board).
    let faults: SimulatedFaults?

    init(board: Board, state: StateDirectory, manager: MessageManager, encoder: BurstEncoder, sampleRate: Int,
         strategy: Strategy, faults: SimulatedFaults?, log: @escaping (String) -> Void) {
        self.faults = faults
        self.pin = TechnicianPIN(state: state, now: 0, log: log)
        self.board = board
        self.state = state
        self.manager = manager
        self.encoder = encoder
        self.sampleRate = sampleRate
        self.strategy = strategy
        self.txPower = Int8(clamping: board.bluetooth.txPower)
        self.logHandler = log
        pin.log = { [unowned self] line in self.log(line) }
    }

    /// Where the console's own log lines go (the daemon's log, once its consoles are open).
    var logHandler: (String) -> Void

    /// Logs a line about what a technician did.
    func log(_ line: String) { logHandler(line) }

    /// Publishes and returns the new publication's console id. The publication keeps to the
    /// mediums it asks for within the box's strategy, from the first tick.
    /// A message replaces the one of the same namespaced type (a presenter's next slide).
    @discardableResult
    func publish(_ request: Daemon.PublicationRequest) throws(NearbyError) -> Int {
        guard case .content(let type, _) = request.message else {
            let publication = try manager.publish(request.message, strategy: request.strategy, at: Int64(position))
            manager.setStrategy(effectiveStrategy(of: request), for: publication)
            let id = publication.slot.index
            publications.append(Entry(id: id, request: request, publication: publication))
            return id
        }
        guard hub != nil else {
            throw .badMessage("a message is published through a hub: run with --hub URL --hub-key SECRET (or hub in the config file)")
        }
        // The message it replaces keeps its id, and stays on air if the new one is refused.
        let replaced = publications.firstIndex { Self.namespacedType(of: $0.request) == type }
        let waiting = pendingMessages.firstIndex { Self.namespacedType(of: $0.request) == type }
        let id = replaced.map { publications[$0].id } ?? waiting.map { pendingMessages[$0].id } ?? messageID()
        func retireReplaced() {
            if let replaced { publications.remove(at: replaced).publication.unpublish() }
            if let waiting { pendingMessages.remove(at: waiting) }
        }
        guard manager.hubIdentity != nil else {
            retireReplaced()
            pendingMessages.append((id, request))
            return id
        }
        let publication = try manager.publish(request.message, strategy: request.strategy, at: Int64(position))
        manager.setStrategy(effectiveStrategy(of: request), for: publication)
        retireReplaced()
        publications.append(Entry(id: id, request: request, publication: publication))
        return id
    }

    /// The box's hub identity arrived (derived on the first contact: the waiting messages go on
    /// air) or was lost (nil: the hub's key changed; the messages go off air until a new one).
    func hubIdentityChanged(_ identity: HubIdentity?) {
        if let identity { hubIdentityArrived(identity) } else { hubIdentityLost() }
    }

    /// What the box tells the hub with each heartbeat.
    var hubHeartbeat: HubHeartbeat {
        let count = publications.count
        return .init(status: consentGranted ? "broadcasting \(count) publication\(count == 1 ? "" : "s")"
                                            : "consent not granted: broadcasting nothing",
                     problems: manager.currentProblems.identifiers, version: BuildInfo.version)
    }

    /// The hub no longer knows the box's identity (its key changed): the messages go off air
    /// and wait for the new identity.
    private func hubIdentityLost() {
        for entry in publications where Self.namespacedType(of: entry.request) != nil {
            entry.publication.unpublish()
            pendingMessages.append((entry.id, entry.request))
        }
        publications.removeAll { Self.namespacedType(of: $0.request) != nil }
        manager.hubIdentity = nil
    }

    /// The box's hub identity is known (derived on the first contact): the waiting messages go on air.
    private func hubIdentityArrived(_ identity: HubIdentity) {
        manager.hubIdentity = identity
        let waiting = pendingMessages
        pendingMessages.removeAll()
        for (id, request) in waiting {
            do {
                let publication = try manager.publish(request.message, strategy: request.strategy, at: Int64(position))
                manager.setStrategy(effectiveStrategy(of: request), for: publication)
                publications.append(Entry(id: id, request: request, publication: publication))
                log("publishing \(request.message) as publication \(id) (the box has its hub identity now)")
            } catch {
                log("error: cannot publish \(request.message): \(error)")
            }
        }
    }

    private static func namespacedType(of request: Daemon.PublicationRequest) -> String? {
        if case .content(let type, _) = request.message { return type }
        return nil
    }

    /// The lowest free message id (8 and up, clear of the token publications' slots).
    private func messageID() -> Int {
        var id = SchedulerConfiguration.maximumPublications
        while publications.contains(where: { $0.id == id }) || pendingMessages.contains(where: { $0.id == id }) { id += 1 }
        return id
    }

    /// What a publication does under the box's strategy: the mediums it asked for that the
    /// box uses, in the box's mode.
    private func effectiveStrategy(of request: Daemon.PublicationRequest) -> Strategy {
        Strategy(mediums: strategy.mediums.intersection(request.strategy.mediums), mode: strategy.mode)
    }

    /// Ends publication `id`; false when there is none.
    func unpublish(_ id: Int) -> Bool {
        if let index = pendingMessages.firstIndex(where: { $0.id == id }) {
            pendingMessages.remove(at: index)
            return true
        }
        guard let index = publications.firstIndex(where: { $0.id == id }) else { return false }
        publications[index].publication.unpublish()
        publications.remove(at: index)
        return true
    }

    /// The settings in effect, as `config save` stores them.
    var settingsInEffect: SavedSettings {
        SavedSettings(strategy: strategy, audioLevel: Int((encoder.amplitude * 100).rounded()),
                      bleIntervalMilliseconds: bleIntervalMilliseconds, txPower: Int(txPower),
                      debug: manager.debugLogging,
                      publications: publications.map { SavedSettings.spec(of: $0.request) } + pendingMessages.map { SavedSettings.spec(of: $0.request) })
    }

    /// Ends every publication (at shutdown).
    func unpublishAll() {
        for entry in publications { entry.publication.unpublish() }
        publications.removeAll()
        pendingMessages.removeAll()
    }

    /// The daemon's clock for the console (PIN delays, idle logout), in milliseconds of audio played.
    var nowMilliseconds: Int64 { Int64(position) * 1000 / Int64(sampleRate) }

    /// Seconds the daemon has been broadcasting.
    var uptime: Double { Double(position) / Double(sampleRate) }

    /// Beacon time now.
    var beaconTime: UInt32 { manager.schedule.beaconTime(at: Int64(position)) }

    /// Whether consent is granted (the Nearby permission), saved in the state directory.
    var consentGranted: Bool { manager.permission.isGranted }

    /// Grants or withdraws consent and remembers it across restarts.
    func setConsent(_ granted: Bool) throws(SystemError) {
        try state.saveConsent(granted)
        manager.permission.set(granted)
    }

    /// Saves the settings in effect (after a console change); returns a warning when that failed.
    func persistSettings() -> String? {
        do {
            try settingsInEffect.save(to: state, beaconTime: beaconTime)
            return nil
        } catch {
            log("warning: settings not saved: \(error); the change holds until the next restart")
            return "warning: not saved (\(error)): the change holds until the next restart"
        }
    }

    /// Makes `strategy` the box's: each publication keeps to the mediums it asked for within it.
    func apply(_ strategy: Strategy) {
        guard strategy != self.strategy else { return }
        self.strategy = strategy
        for entry in publications { manager.setStrategy(effectiveStrategy(of: entry.request), for: entry.publication) }
    }

    /// What is wrong with the sound devices, in the driver's words, while something is.
    var audioProblem: String?
    /// What is wrong with the Bluetooth controller, in the driver's words, while something is.
    var bluetoothProblem: String?
    /// Why the state directory cannot be written, while the beacon clock's reservation fails to
    /// save (a full or read-only disk); nil once a save succeeds again.
    var stateProblem: String?

    /// The status LEDs: the status model's patterns, or the walk `leds test` started.
    var panel = LEDPanel()

    /// What the LEDs show: whether the box is on the air, consent, and the drivers' states as
    /// the manager's current problems say.
    var deviceStates: DeviceStates {
        let problems = manager.currentProblems
        return DeviceStates(
            broadcasting: consentGranted && !publications.isEmpty && strategy.mode.contains(.broadcast),
            audio: problems.audioHealth, bluetooth: problems.bluetoothHealth, consentGranted: consentGranted,
            stateNotSaved: stateProblem != nil)
    }

    /// Each LED's name and pattern, in table order.
    var ledPatterns: [(String, String)] {
        StatusLED.allCases.map { ($0.rawValue, panel.isWalking ? "walk" : panel.pattern(of: $0).name) }
    }
}
