import NearcastCore
import NearcastDrivers
import NearcastNearby

/// The broadcasting daemon: the first user of ``MessageManager``. ``run()`` opens the board's
/// devices, resolves what to publish, and then runs the loop: one audio period at a time, the
/// ``ActionPerformer`` renders it (the scheduler's bursts and advertising changes), the
/// ``Listener`` decodes what was heard, the ``DeviceHealthReporter`` reports the drivers'
/// states to the manager, the consoles and LEDs are served, the period goes to the device
/// (which paces the loop), systemd hears how it went, and the beacon clock's reservation is
/// kept on disk. All state lives in one ``DaemonState``.
public final class Daemon {
    /// One thing to publish.
    public struct PublicationRequest: Sendable, Equatable {
        public var message: Message
        public var strategy: Strategy
        public init(message: Message, strategy: Strategy) {
            self.message = message
            self.strategy = strategy
        }
    }

    /// How the daemon was asked to run.
    public struct Settings {
        public var board: Board
        public var state: StateDirectory
        /// What the command line said (publications, mediums, interval, console, debug); laid
        /// over the config file and under the console's saved settings by ``SettingsResolver``.
        var commandLine = SettingsLayer()
        /// Stop after this many seconds of audio (nil: run until SIGINT/SIGTERM).
        public var duration: Double?
        /// Listen on these mediums and log found/lost tokens (nil: broadcast only). On the sim
        /// board the microphone hears the simulated speaker and the scanner the simulated advertiser.
        public var subscribe: DiscoveryMediums?
        /// Seconds a subscription waits without hearing a token before reporting it lost.
        public var lostAfter: Double = 10
        /// Whether a serial console that cannot be opened stops the daemon (a flag given on
        /// the command line) or is logged and skipped (one from the config file).
        public var consoleIsRequired = false
        /// The static config file (`--config`), read again on SIGHUP, and what it said at start.
        var configPath: String?
        var config = StaticConfig()
    }

    /// Whether the daemon stopped to be started again (the console's `restart`).
    public private(set) var restartRequested = false

    private let settings: Settings
    private let log: (String) -> Void

    public init(settings: Settings, log: @escaping (String) -> Void) {
        self.settings = settings
        self.log = log
    }

    /// Runs until the duration is reached or a stop signal arrives.
    public func run() throws(CommandFailure) {
        let board = settings.board
        let signals = SignalWatcher()
        log("nearcast \(BuildInfo.version): board \(board.name) (\(board.description)) from \(board.source)")
        let devices = try Devices.open(board, state: settings.state, log: log)
        for line in devices.descriptions { log(line) }
        if let problem = devices.ledsProblem { log("error: \(problem); broadcasting without status LEDs") }
        let output = devices.output
        let fs = output.sampleRate
        let saved = SavedSettings.load(from: settings.state, log: log)
        let resolved = SettingsResolver.resolve(board: board, config: settings.config.layer, commandLine: settings.commandLine,
                                                saved: saved?.layer)
        if let saved {
            log("saved settings from \(settings.state.file(SavedSettings.fileName)): \(saved.strategy), audio level \(saved.audioLevel),"
                + " ble interval \(saved.bleIntervalMilliseconds) ms, txpower \(saved.txPower) dBm")
            if resolved.sources["publications"] == "command line" && saved.publications != resolved.publications {
                log("the command line's publications replace the \(saved.publications.count) saved in \(settings.state.file(SavedSettings.fileName))")
            }
        }
        let encoder: BurstEncoder
        do { encoder = try BurstEncoder(sampleRate: fs, amplitude: Float(resolved.audioLevel) / 100) } catch {
            throw CommandFailure("\(board.source): audio.output.rate: \(error)")
        }
        let consent = board.consentGrantedAtStart || settings.state.savedConsent(log: log)

        // The beacon clock resumes from disk and reserves its next stretch before anything is sent.
        var reservation = BeaconClockReservation(saved: settings.state.savedBeaconTime(log: log))
        let clock = reservation.clock
        saveReservation(&reservation, at: clock.start)
        log("state directory \(settings.state.path); beacon time starts at \(clock.start)")

        var config = SchedulerConfiguration(ticksPerSecond: fs, audioBurstLength: Int64(encoder.rate.burstSamples))
        config.audioInterval = Int64((resolved.interval * Double(fs)).rounded())
        config.bleAdvertisingSets = devices.radio.setCount
        let seed: UInt64
        do { seed = try FileSystem.randomBytes(8).reduce(0) { $0 << 8 | UInt64($1) } } catch {
            throw CommandFailure("cannot read the kernel's random source: \(error)")
        }
        let manager = MessageManager(configuration: config, clock: clock, cipher: OpenSSLAES128(), seed: seed,
                                     consentGranted: consent, lostAfterSeconds: settings.lostAfter, log: log)
        manager.debugLogging = resolved.debug
        // The box's strategy: each publication is made within it, on the mediums it asks for.
        var strategy = resolved.strategy
        if settings.subscribe != nil { strategy.mode.insert(.scan) }
        let state = DaemonState(board: board, state: settings.state, manager: manager, encoder: encoder, sampleRate: fs,
                                strategy: strategy, faults: devices.faults, log: log)
        state.txPower = Int8(clamping: resolved.txPower)
        state.bleIntervalMilliseconds = resolved.bleIntervalMilliseconds
        for request in try publicationRequests(resolved) {
            do {
                let id = try state.publish(request)
                log("publishing \(request.message) over \(request.strategy.mediums) as publication \(id)")
            } catch {
                throw CommandFailure("cannot publish \(request.message): \(error)")
            }
        }
        let consoles = try Consoles.open(settings, console: resolved.console, state: state, log: log)
        DeviceHealthReporter.logHandlers(of: manager, to: consoles.log)
        log("audio: each publication every \(Formatting.fixed(Double(manager.schedule.effectiveAudioInterval) / Double(fs), decimals: 2)) s"
            + " (bursts \(Formatting.fixed(Double(manager.schedule.audioBurstSpacing) / Double(fs), decimals: 2)) s apart,"
            + " duty cycle at most \(Int(config.audioDutyCycle * 100)) %); BLE: \(devices.radio.setCount) advertising set\(devices.radio.setCount == 1 ? "" : "s")")
        let listener = Listener(devices: devices, state: state)
        state.listenMediums = (settings.subscribe ?? .both).intersection(board.listenableMediums)
        log(consent ? "consent granted: broadcasting" :
            "consent not granted: broadcasting nothing until a technician grants consent on the console")
        let performer = ActionPerformer(encoder: encoder, devices: devices, state: state)
        let health = DeviceHealthReporter()
        let display = LEDDisplay(leds: devices.leds)
        let reloader = ConfigReloader(path: settings.configPath, loaded: settings.config, state: settings.state, board: board)
        health.update(devices, microphone: listener.microphone, atMilliseconds: 0, state: state, log: consoles.log)
        display.update(state, atMilliseconds: 0, log: consoles.log)
        let systemd = SystemdReporter(log: log)

        let limit = settings.duration.map { Int(($0 * Double(fs)).rounded()) }
        // The hand-over to the driver: the period is rendered in place in the ring and the
        // driver writes it to the device straight from there (4 periods: regions never wrap).
        let ring = SampleRing(capacity: 4 * output.periodFrames)
        var position = 0
        var stopReason = "duration reached"

        while true {
            if let signal = signals.poll() {
                if signal == .hangUp {
                    systemd.reloading { reloader.reload(into: state, log: consoles.log) }
                } else {
                    stopReason = signal == .interrupt ? "SIGINT" : "SIGTERM"
                    break
                }
            }
            // The daemon's own subscription follows the strategy (the console's `strategy mode scan`).
            do { try listener.follow(state.listeningMediums, log: consoles.log) } catch {
                throw CommandFailure("cannot subscribe: \(error)")
            }
            let wanted = limit.map { min(output.periodFrames, $0 - position) } ?? output.periodFrames
            if wanted <= 0 { break }
            let count = ring.withWritableRegion(maximum: wanted) { span in
                performer.render(into: span, at: position)
                return span.count
            }
            listener.service(at: position)
            // Log outside the period's rendering (formatting allocates; the audio path does not).
            performer.flush(consoles.log)
            listener.flush(stamp: ActionPerformer.stamp(Double(position) / Double(fs)), consoles.log)
            let radio = devices.radio
            radio.intervalMilliseconds = state.bleIntervalMilliseconds
            devices.clock.seconds = Double(position) / Double(fs)
            radio.maintain(now: devices.clock.seconds)
            let now = Int64(position) * 1000 / Int64(fs)
            health.update(devices, microphone: listener.microphone, atMilliseconds: now, state: state, log: consoles.log)
            consoles.service()
            display.update(state, atMilliseconds: now, log: consoles.log)
            if let seconds = state.stallRequested {
                // Deliberately blocks the loop, watchdog pings included (see `debug stall`).
                state.stallRequested = nil
                log("warning: the loop stalls for \(seconds) s on the console's request (debug stall): no audio, no watchdog ping")
                MonotonicClock.sleep(until: MonotonicClock.nanoseconds() + Int64(seconds) * 1_000_000_000)
                log("the loop runs again after the \(seconds) s stall")
            }
            if state.restartRequested {
                restartRequested = true
                stopReason = "restart requested on the console"
            }
            do {
                try output.write(from: ring, frames: count)
            } catch {
                throw CommandFailure("\(error)")
            }
            position += count
            state.position = position
            systemd.periodPlayed(state)
            saveReservation(&reservation, at: manager.schedule.beaconTime(at: Int64(position)))
            if restartRequested { break }
        }
        systemd.stopping(stopReason)
        do { try output.drain() } catch { log("warning: \(error)") }
        performer.stopAdvertising(at: position, log: log)
        state.unpublishAll()
        listener.stop()
        // A clean stop saves the exact time: the next start continues from here.
        let final = manager.schedule.beaconTime(at: Int64(position))
        saveClock(final)
        consoles.log("stopped (\(stopReason)) after \(Formatting.fixed(Double(position) / Double(fs), decimals: 2)) s: "
                     + "\(state.bursts) burst\(state.bursts == 1 ? "" : "s"); beacon time \(final)")
        display.release(log: consoles.log)
        consoles.service()
    }

    /// The publications the resolved settings name, as requests (an EID's key from the state directory).
    private func publicationRequests(_ resolved: ResolvedSettings) throws(CommandFailure) -> [PublicationRequest] {
        var requests: [PublicationRequest] = []
        let source = resolved.sources["publications"] == "saved settings" ? settings.state.file(SavedSettings.fileName) : "--publish"
        for text in resolved.publications {
            do {
                let spec = try PublicationSpec.parse(text, defaultExponent: SettingsDefaults.exponent)
                let strategy = Strategy(mediums: spec.mediums, mode: .broadcast)
                switch spec.kind {
                case .direct(let token): requests.append(.init(message: .direct(token), strategy: strategy))
                case .eid(let k): requests.append(.init(message: .eid(identityKey: try settings.state.identityKey(log: log), exponent: k), strategy: strategy))
                }
            } catch {
                throw CommandFailure("\(source): publication '\(text)': \(error)")
            }
        }
        return requests
    }

    /// Writes the next reservation when it is due; a failed write is retried a minute later and
    /// reported, since a power cut while it fails could send the clock back.
    private func saveReservation(_ reservation: inout BeaconClockReservation, at time: UInt32) {
        guard let value = reservation.valueToSave(at: time) else { return }
        do {
            try settings.state.saveBeaconTime(value)
            reservation.saved(value)
        } catch {
            reservation.saveFailed(at: time)
            log("warning: beacon clock reservation not saved (retrying in \(BeaconClockReservation.retrySeconds) s): \(error)")
        }
    }

    private func saveClock(_ time: UInt32) {
        do { try settings.state.saveBeaconTime(time) } catch { log("warning: beacon clock not saved: \(error)") }
    }
}
