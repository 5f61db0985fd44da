import NearcastCore
import NearcastDrivers
import NearcastNearby

/// The running box's parts, each the one owner of its state: made once by ``Daemon`` at start
/// and handed out piece by piece (a console subsystem's commands get only the parts they act
/// on; `status`, which reports on everything, and the config reload, which sets the tunables
/// from several owners, get the whole). It holds no state and makes no decision of its own.
final class Box {
    let board: Board
    let stateDirectory: StateDirectory
    let manager: MessageManager
    let encoder: MultiBandEncoder
    let progress: LoopProgress
    let requests = LoopRequests()
    let publications: Publications
    let advertising: AdvertisingSettings
    let problems = DriverProblems()
    let heard = HeardTokens()
    let lights: StatusLights
    let consent: Consent
    let settings: SettingsKeeper
    /// The technician PIN guarding the commands that change state.
    let pin: TechnicianPIN
    let logRing = LogRing()
    let log: LogSink
    /// The simulated board's fault switches (nil on a real board).
    let faults: SimulatedFaults?
    /// The hub client, when the box publishes messages through a hub.
    let hub: HubLink?

    init(board: Board, stateDirectory: StateDirectory, manager: MessageManager, encoder: MultiBandEncoder, sampleRate: Int,
         strategy: Strategy, listenMediums: DiscoveryMediums, advertising: AdvertisingSettings, faults: SimulatedFaults?,
         hub: HubLink?, log: @escaping (String) -> Void) {
        self.board = board
        self.stateDirectory = stateDirectory
        self.manager = manager
        self.encoder = encoder
        self.faults = faults
        self.hub = hub
        self.advertising = advertising
        let sink = LogSink(log)
        self.log = sink
        progress = LoopProgress(sampleRate: sampleRate)
        publications = Publications(manager: manager, progress: progress, strategy: strategy, listenMediums: listenMediums,
                                    throughHub: hub != nil, log: sink)
        lights = StatusLights(manager: manager, publications: publications, problems: problems)
        consent = Consent(manager: manager, stateDirectory: stateDirectory)
        settings = SettingsKeeper(stateDirectory: stateDirectory, manager: manager, publications: publications, encoder: encoder,
                                  advertising: advertising, progress: progress, log: sink)
        pin = TechnicianPIN(state: stateDirectory, now: 0, log: { sink($0) })
    }

    /// Beacon time now.
    var beaconTime: UInt32 { manager.beaconTime(at: progress) }

    /// What the box tells the hub with each heartbeat.
    var hubHeartbeat: HubHeartbeat {
        let count = publications.entries.count
        return HubHeartbeat(status: consent.isGranted ? "broadcasting \(count) publication\(count == 1 ? "" : "s")"
                                                      : "consent not granted: broadcasting nothing",
                            problems: manager.currentProblems.identifiers, version: BuildInfo.version, name: hub?.boxName)
    }
}
