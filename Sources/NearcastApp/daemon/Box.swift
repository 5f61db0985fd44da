import NearcastCore
import NearcastDrivers
import NearcastNearby

/// Everything the running box is made of, each part the one owner of its state: its devices,
/// the state owners, and the workers the daemon's loop drives once a period (the listener, the
/// action performer, the health reporter, the LED display, the systemd
/// reporter). Made once by ``Daemon`` at start and handed out piece by piece (a console
/// subsystem's commands get only the parts they act on; `status`, which reports on everything,
/// and the config reload, which sets the tunables from several owners, get the whole). It makes
/// no decision of its own. The consoles are made from it and so are not in it.
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
    /// The hub client, when the box publishes messages through a hub.
    let hub: HubLink?

    /// The board's devices, opened at start.
    let devices: Devices
    /// What was heard, decoded once a period.
    let listener: Listener
    /// Renders each period: the scheduler's bursts and advertising changes.
    let performer: ActionPerformer
    let health = DeviceHealthReporter()
    let display: LEDDisplay
    let systemd: SystemdReporter
    /// The beacon clock's stretch reserved on disk, renewed by the loop.
    var reservation: BeaconClockReservation

    /// The simulated board's fault switches (nil on a real board).
    var faults: SimulatedFaults? { devices.faults }
    /// The stream's samples per second (the speaker's rate).
    var sampleRate: Int { progress.sampleRate }

    init(board: Board, stateDirectory: StateDirectory, manager: MessageManager, encoder: MultiBandEncoder, devices: Devices,
         strategy: Strategy, listenMediums: DiscoveryMediums, advertising: AdvertisingSettings, hub: HubLink?,
         reservation: BeaconClockReservation, log: @escaping (String) -> Void) {
        self.board = board
        self.stateDirectory = stateDirectory
        self.manager = manager
        self.encoder = encoder
        self.devices = devices
        self.hub = hub
        self.advertising = advertising
        self.reservation = reservation
        let sink = LogSink(log)
        self.log = sink
        progress = LoopProgress(sampleRate: devices.output.sampleRate)
        publications = Publications(manager: manager, progress: progress, strategy: strategy, listenMediums: listenMediums,
                                    throughHub: hub != nil, log: sink)
        lights = StatusLights(manager: manager, publications: publications, problems: problems)
        consent = Consent(manager: manager, stateDirectory: stateDirectory)
        settings = SettingsKeeper(stateDirectory: stateDirectory, manager: manager, publications: publications, encoder: encoder,
                                  advertising: advertising, progress: progress, log: sink)
        pin = TechnicianPIN(state: stateDirectory, now: 0, log: { sink($0) })
        listener = Listener(devices: devices, manager: manager, progress: progress, heard: heard)
        performer = ActionPerformer(encoder: encoder, devices: devices, manager: manager, progress: progress, advertising: advertising)
        display = LEDDisplay(leds: devices.leds)
        systemd = SystemdReporter(log: log)
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
