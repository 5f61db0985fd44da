import NearcastCore
import NearcastDrivers

/// The broadcasting daemon: the first user of ``MessageManager``. It publishes what it was
/// asked to, runs the scheduler once per audio period, renders bursts into the board's audio
/// output (paced by the device or its simulated twin), puts Eddystone frames on the BLE
/// advertiser, and keeps the beacon clock's reservation on disk.
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
        public var publications: [PublicationRequest]
        /// Whether the publications were given on the command line (they then replace the saved ones).
        public var publicationsAreExplicit = false
        /// Seconds between one publication's bursts.
        public var interval: Double = 1
        /// Stop after this many seconds of audio (nil: run until SIGINT/SIGTERM).
        public var duration: Double?
        /// Peak amplitude of the bursts.
        public var amplitude: Float = 0.5
        /// Log every scheduling decision.
        public var debug = false
        /// Listen on these mediums and log found/lost tokens (nil: broadcast only). On the sim
        /// board the microphone hears the simulated speaker and the scanner the simulated advertiser.
        public var subscribe: DiscoveryMediums?
        /// Seconds a subscription waits without hearing a token before reporting it lost.
        public var lostAfter: Double = 10
        /// The technician console: `stdio`, `none`, or a serial device (the board's UART).
        public var console = "stdio"
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
    /// The config file's contents in effect (changed by SIGHUP).
    private var currentConfig: StaticConfig

    public init(settings: Settings, log: @escaping (String) -> Void) {
        self.settings = settings
        self.log = log
        currentConfig = settings.config
    }

    /// Runs until the duration is reached or a stop signal arrives.
    public func run() throws(CommandFailure) {
        let board = settings.board
        let signals = SignalWatcher()
        log("nearcast \(BuildInfo.version): board \(board.name) (\(board.description)) from \(board.source)")
        let output = try openOutput()
        let fs = output.sampleRate
        let saved = SavedSettings.load(from: settings.state, log: log)
        let encoder: BurstEncoder
        let amplitude = saved.map { Float($0.audioLevel) / 100 } ?? settings.amplitude
        do { encoder = try BurstEncoder(sampleRate: fs, amplitude: amplitude) } catch {
            throw CommandFailure("\(board.source): audio.output.rate: \(error)")
        }
        let advertiser = try openAdvertiser()
        let consent = board.consentGrantedAtStart || settings.state.savedConsent(log: log)

        // The beacon clock resumes from disk and reserves its next stretch before anything is sent.
        var reservation = BeaconClockReservation(saved: settings.state.savedBeaconTime(log: log))
        let clock = reservation.clock
        saveReservation(&reservation, at: clock.start)
        log("state directory \(settings.state.path); beacon time starts at \(clock.start)")

        var config = SchedulerConfiguration(ticksPerSecond: fs, audioBurstLength: Int64(encoder.rate.burstSamples))
        config.audioInterval = Int64((settings.interval * Double(fs)).rounded())
        config.bleAdvertisingSets = advertiser.setCount
        let seed: UInt64
        do { seed = try FileSystem.randomBytes(8).reduce(0) { $0 << 8 | UInt64($1) } } catch {
            throw CommandFailure("cannot read the kernel's random source: \(error)")
        }
        let manager = MessageManager(configuration: config, clock: clock, cipher: OpenSSLAES128(), seed: seed,
                                     consentGranted: consent, lostAfterSeconds: settings.lostAfter, log: log)
        manager.debugLogging = settings.debug || saved?.debug == true
        // The box's strategy: a technician's saved one, else the config's mediums. Publications
        // are made under both mediums first and then narrowed to it.
        var strategy = saved?.strategy ?? Strategy(mediums: settings.config.mediums ?? .both, mode: .broadcast)
        if settings.subscribe != nil { strategy.mode.insert(.scan) }
        let wantedStrategy = strategy
        strategy.mediums = .both
        let context = ConsoleContext(board: board, state: settings.state, manager: manager, encoder: encoder, sampleRate: fs,
                                     strategy: strategy, log: log)
        if let txPower = settings.config.txPower { context.txPower = Int8(clamping: txPower) }
        if let interval = settings.config.bleInterval { context.bleIntervalMilliseconds = interval }
        if let saved {
            context.txPower = Int8(clamping: saved.txPower)
            context.bleIntervalMilliseconds = saved.bleIntervalMilliseconds
            log("saved settings from \(settings.state.file(SavedSettings.fileName)): \(saved.strategy), audio level \(saved.audioLevel),"
                + " ble interval \(saved.bleIntervalMilliseconds) ms, txpower \(saved.txPower) dBm")
        }
        for request in try publicationRequests(saved) {
            do {
                let id = try context.publish(request)
                log("publishing \(request.message) over \(request.strategy.mediums) as publication \(id)")
            } catch {
                throw CommandFailure("cannot publish \(request.message): \(error)")
            }
        }
        context.apply(wantedStrategy)
        let consoles = try openConsoles(context)
        log("audio: each publication every \(Formatting.fixed(Double(manager.schedule.effectiveAudioInterval) / Double(fs), decimals: 2)) s"
            + " (bursts \(Formatting.fixed(Double(manager.schedule.audioBurstSpacing) / Double(fs), decimals: 2)) s apart,"
            + " duty cycle at most \(Int(config.audioDutyCycle * 100)) %); BLE: \(advertiser.setCount) advertising set\(advertiser.setCount == 1 ? "" : "s")")
        let heard = LineBuffer()
        let listener = Listener(manager: manager, context: context, heard: heard, sampleRate: fs)
        context.listenMediums = (settings.subscribe ?? .both).intersection(board.listenableMediums)
        if let real = advertiser as? RecoveringAdvertiser {
            real.onReport = { event in
                do { try manager.heard(report: Array(event), at: Int64(context.position)) } catch {
                    heard.lines.append("error: advertising report from the controller: \(error)")
                }
            }
        }
        var lastScan = -fs
        log(consent ? "consent granted: broadcasting" :
            "consent not granted: broadcasting nothing until a technician grants consent on the console")
        let leds = openLEDs()
        var shownPatterns = FixedArray<Tuple4<LEDPattern>, LEDPattern>(repeating: .pulses(count: -1))   // none yet: the first update logs
        var ledFailureLogged = false
        /// Puts the panel's levels on the LEDs and logs pattern changes (no allocation unless one changed).
        func updateLEDs(at position: Int) {
            let now = Int64(position) * 1000 / Int64(fs)
            (leds as? SimulatedStatusLEDs)?.now = Double(position) / Double(fs)
            context.panel.update(states: context.deviceStates, atMilliseconds: now) { led, lit in
                do { try leds?.set(led, lit: lit) } catch {
                    if !ledFailureLogged { consoles.log("error: \(error); the LEDs may be wrong, broadcasting continues") }
                    ledFailureLogged = true
                }
            }
            var changed = false
            for index in 0..<StatusLED.count where context.panel.pattern(of: StatusLED(index: index)) != shownPatterns[index] {
                shownPatterns[index] = context.panel.pattern(of: StatusLED(index: index))
                changed = true
            }
            if changed {
                consoles.log("leds: " + context.ledPatterns.map { "\($0.0)=\($0.1)" }.joined(separator: " "))
            }
        }
        let audioMonitor = AudioHealthMonitor()
        audioMonitor.update(output: output, input: listener.capture, atMilliseconds: 0, context: context, log: consoles.log)
        updateLEDs(at: 0)

        let systemd = SystemdNotifier.fromEnvironment()
        if let systemd {
            log("systemd: notifying readiness" + (systemd.watchdogInterval.map { ", watchdog ping every \(Formatting.fixed($0, decimals: 1)) s" } ?? ""))
        }
        var announced: (states: DeviceStates, count: Int)?

        let limit = settings.duration.map { Int(($0 * Double(fs)).rounded()) }
        // The hand-over to the driver: the period is rendered in place in the ring and the
        // driver writes it to the device straight from there (4 periods: regions never wrap).
        let ring = SampleRing(capacity: 4 * output.periodFrames)
        var position = 0
        var bursts = 0
        var stopReason = "duration reached"
        var events: [String] = []

        while true {
            if let signal = signals.poll() {
                if signal == .hangUp {
                    systemd?.send("RELOADING=1")
                    reloadConfig(context, log: consoles.log)
                    systemd?.send("READY=1")
                } else {
                    stopReason = signal == .interrupt ? "SIGINT" : "SIGTERM"
                    break
                }
            }
            // The daemon's own subscription follows the strategy (the console's `strategy mode scan`).
            do { try listener.follow(context.listeningMediums, log: consoles.log) } catch {
                throw CommandFailure("cannot subscribe: \(error)")
            }
            let wanted = limit.map { min(output.periodFrames, $0 - position) } ?? output.periodFrames
            if wanted <= 0 { break }
            let count = ring.withWritableRegion(maximum: wanted) { span in
                for i in span.indices { span[i] = 0 }
                // Finish a burst that began in an earlier period.
                let carried = encoder.render(into: span)
                if context.testBurstRequested && encoder.isFinished {
                    context.testBurstRequested = false
                    encoder.start(Token(kind: .direct, packed: 0x7465_7374, count: 4)!)
                    encoder.render(into: UnsafeMutableBufferPointer(rebasing: span[carried...]))
                    events.append("[\(timestamp(Double(position + carried) / Double(fs)))] audio test burst (direct 74657374)")
                }
                manager.tick(at: Int64(position), count: span.count) { action in
                    switch action {
                    case .audioBurst(let slot, let token, let at):
                        let offset = max(Int(at) - position, carried)
                        encoder.start(token)
                        encoder.render(into: UnsafeMutableBufferPointer(rebasing: span[offset...]))
                        bursts += 1
                        context.bursts = bursts
                        events.append(burstLine(burst: bursts, at: Double(position + offset) / Double(fs), token: token,
                                                slot: slot, manager: manager))
                    case .advertise(let set, let slot, let token, let address, let at):
                        advertiser.setTime(Double(at) / Double(fs))
                        do {
                            try advertiser.advertise(set: set, data: EddystoneFrame.advertisingData(for: token, txPower: context.txPower),
                                                     address: address)
                            events.append("[\(timestamp(Double(at) / Double(fs)))] ble set \(set) \(token.kind) \(token.hex) from \(address) (\(slot))")
                        } catch {
                            events.append("error: BLE set \(set): \(error)")
                        }
                    case .stopAdvertising(let set, let at):
                        advertiser.setTime(Double(at) / Double(fs))
                        do { try advertiser.stop(set: set) } catch { events.append("error: BLE set \(set): \(error)") }
                        events.append("[\(timestamp(Double(at) / Double(fs)))] ble set \(set) stopped")
                    case .tokenChanged(let slot, let token, let at):
                        events.append("[\(timestamp(Double(at) / Double(fs)))] \(slot) switched to EID \(token.hex) (audio and BLE, new BLE address)")
                    case .tokenNeeded:
                        break
                    }
                }
                if let microphone = listener.microphone, listener.capture == nil, manager.isScanning(on: .audio) {
                    microphone.push(UnsafeBufferPointer(span)) { burst in
                        manager.heard(burst.token, on: .audio, at: Int64(position))
                    }
                }
                return span.count
            }
            // A real microphone: decode what the capture thread has brought in since the last period.
            if manager.isScanning(on: .audio) {
                listener.decodeCaptured { burst in manager.heard(burst.token, on: .audio, at: Int64(position)) }
            }
            // The simulated scanner hears every enabled set once per 100 ms advertising interval.
            if manager.isScanning(on: .ble) && position - lastScan >= fs / 10 {
                lastScan = position
                for shown in (advertiser as? SimulatedBLEAdvertiser)?.sets ?? [] {
                    guard let shown else { continue }
                    let report = LEAdvertisingReport(eventType: 3, isExtended: false, addressType: 1, address: shown.address,
                                                     rssi: -50, data: shown.data)
                    do { try manager.heard(report: LEAdvertisingReports.legacyEvent(for: report), at: Int64(position)) } catch {
                        events.append("error: simulated scanner: \(error)")
                    }
                }
            }
            // Log outside the period's rendering (formatting allocates; the audio path does not).
            for line in events { consoles.log(line) }
            events.removeAll(keepingCapacity: true)
            for line in heard.lines { consoles.log("[\(timestamp(Double(position) / Double(fs)))] \(line)") }
            heard.lines.removeAll(keepingCapacity: true)
            if let real = advertiser as? RecoveringAdvertiser {
                real.setScanning(context.listeningMediums.contains(.ble) && manager.isScanning(on: .ble))
                real.intervalMilliseconds = context.bleIntervalMilliseconds
                real.maintain(now: Double(position) / Double(fs))
                context.bluetoothHealth = real.health
                context.bluetoothProblem = real.problem
            }
            audioMonitor.update(output: output, input: listener.capture, atMilliseconds: Int64(position) * 1000 / Int64(fs),
                                context: context, log: consoles.log)
            consoles.service()
            updateLEDs(at: position)
            if let seconds = context.stallRequested {
                // Deliberately blocks the loop, watchdog pings included (see `debug stall`).
                context.stallRequested = nil
                log("warning: the loop stalls for \(seconds) s on the console's request (debug stall): no audio, no watchdog ping")
                MonotonicClock.sleep(until: MonotonicClock.nanoseconds() + Int64(seconds) * 1_000_000_000)
                log("the loop runs again after the \(seconds) s stall")
            }
            if context.restartRequested {
                restartRequested = true
                stopReason = "restart requested on the console"
            }
            do {
                try output.write(from: ring, frames: count)
            } catch {
                throw CommandFailure("\(error)")
            }
            position += count
            context.position = position
            // systemd: ready once the first period is played and every driver's state is known
            // (its first open attempt made); the status line follows the LEDs' states.
            if let systemd {
                let states = context.deviceStates
                if announced == nil || announced!.states != states || announced!.count != context.publications.count {
                    systemd.send((announced == nil ? "READY=1\n" : "") + "STATUS=" + systemdStatus(states, context))
                    announced = (states, context.publications.count)
                }
                systemd.pingWatchdogIfDue(now: MonotonicClock.seconds())
            }
            saveReservation(&reservation, at: manager.schedule.beaconTime(at: Int64(position)))
            if restartRequested { break }
        }
        systemd?.send("STOPPING=1\nSTATUS=stopping (\(stopReason))")
        do { try output.drain() } catch { log("warning: \(error)") }
        advertiser.setTime(Double(position) / Double(fs))
        for set in 0..<advertiser.setCount {
            do { try advertiser.stop(set: set) } catch { log("warning: BLE set \(set): \(error)") }
        }
        context.unpublishAll()
        listener.subscription?.cancel()
        listener.capture?.stop()
        // A clean stop saves the exact time: the next start continues from here.
        let final = manager.schedule.beaconTime(at: Int64(position))
        saveClock(final)
        consoles.log("stopped (\(stopReason)) after \(Formatting.fixed(Double(position) / Double(fs), decimals: 2)) s: \(bursts) burst\(bursts == 1 ? "" : "s"); beacon time \(final)")
        leds?.release()
        consoles.log("leds: all off" + (leds == nil ? "" : " and released"))
        consoles.service()
    }

    /// What to publish: the command line's publications when it named any, else the saved ones,
    /// else the default.
    private func publicationRequests(_ saved: SavedSettings?) throws(CommandFailure) -> [PublicationRequest] {
        guard let saved, !settings.publicationsAreExplicit else {
            if let saved, saved.publications != settings.publications.map(SavedSettings.spec(of:)) {
                log("the command line's publications replace the \(saved.publications.count) saved in \(settings.state.file(SavedSettings.fileName))")
            }
            return settings.publications
        }
        var requests: [PublicationRequest] = []
        for text in saved.publications {
            do {
                let spec = try PublicationSpec.parse(text, defaultExponent: 10)
                let strategy = Strategy(mediums: spec.mediums, mode: .broadcast)
                switch spec.kind {
                case .direct(let token): requests.append(.init(message: .direct(token), strategy: strategy))
                case .eid(let k): requests.append(.init(message: .eid(identityKey: try settings.state.identityKey(log: log), exponent: k), strategy: strategy))
                }
            } catch {
                throw CommandFailure("\(settings.state.file(SavedSettings.fileName)): publication '\(text)': \(error)")
            }
        }
        return requests
    }

    /// The consoles: the terminal given by `--console` (stdio only when it is a terminal; with
    /// pipes the daemon just logs) and `<state-dir>/console.sock` for `nearcast console`.
    private func openConsoles(_ context: ConsoleContext) throws(CommandFailure) -> Consoles {
        let consoles = Consoles(context: context, plainLog: log)
        context.logHandler = { [unowned consoles] line in consoles.log(line) }
        switch settings.console {
        case "none":
            break
        case "stdio":
            if TerminalPort.standardInputIsTerminal {
                do { consoles.attach(try TerminalPort.standardStreams(), colour: true, isLogTerminal: true) } catch {
                    throw CommandFailure("console stdio: \(error)")
                }
            }
        default:
            // A serial console that cannot be opened (a UART disabled in the firmware, a USB
            // adapter unplugged) must not keep an unattended box off the air: the broadcast
            // goes on and the socket console below still works.
            do {
                consoles.attach(try TerminalPort.serial(path: settings.console, baud: settings.board.console.baud),
                                colour: false, isLogTerminal: false)
                log("console on \(settings.console) at \(settings.board.console.baud) baud")
            } catch {
                if settings.consoleIsRequired { throw CommandFailure("--console \(settings.console): \(error)") }
                log("error: console \(settings.console): \(error); running without it (nearcast console still attaches)")
            }
        }
        let path = settings.state.file("console.sock")
        do {
            consoles.server = try ConsoleSocketServer(path: path)
            log("console socket \(path): attach with nearcast console --state-dir \(settings.state.path)")
        } catch {
            log("warning: console socket \(path) not available: \(error)")
        }
        return consoles
    }

    /// SIGHUP: reads the config file again and applies what can change without a gap in the
    /// broadcast; a file with an error changes nothing.
    private func reloadConfig(_ context: ConsoleContext, log: (String) -> Void) {
        guard let path = settings.configPath else {
            log("SIGHUP: no config file to reload (start with --config FILE)")
            return
        }
        let new: StaticConfig
        do { new = try StaticConfig.reload(path, lastGoodIn: settings.state.path, log: log) } catch {
            log("error: SIGHUP: \(error); the running configuration is kept")
            return
        }
        let changes = new.changes(from: currentConfig)
        guard !changes.isEmpty else {
            log("SIGHUP: \(path) reloaded: nothing changed")
            return
        }
        var applied: [String] = [], pending: [String] = []
        for (key, change) in changes {
            switch key {
            case "audioLevel":
                context.encoder.amplitude = Float(new.audioLevel ?? 50) / 100
                applied.append(change)
            case "bleInterval":
                context.bleIntervalMilliseconds = new.bleInterval ?? 100
                applied.append(change)
            case "txPower":
                context.txPower = Int8(clamping: new.txPower ?? settings.board.bluetooth.txPower)
                applied.append(change + " (in the frames from the next advertising change)")
            case "mediums":
                context.apply(Strategy(mediums: new.mediums ?? .both, mode: context.strategy.mode))
                applied.append(change)
            case "debug":
                context.manager.debugLogging = new.debug ?? false
                applied.append(change)
            default:
                pending.append(change)
            }
        }
        currentConfig = new
        log("SIGHUP: \(path) reloaded: " + (applied.isEmpty ? "" : "applied \(applied.joined(separator: ", "))")
            + (applied.isEmpty || pending.isEmpty ? "" : "; ")
            + (pending.isEmpty ? "" : "needs a restart: \(pending.joined(separator: ", "))"))
    }

    /// The one-line state `systemctl status` shows.
    private func systemdStatus(_ states: DeviceStates, _ context: ConsoleContext) -> String {
        let what = !states.consentGranted ? "consent not granted: broadcasting nothing"
            : states.broadcasting ? "broadcasting \(context.publications.count) publication\(context.publications.count == 1 ? "" : "s")"
            : "not broadcasting (no publications)"
        return what + "; audio \(context.audioProblem ?? "ok"); bluetooth \(context.bluetoothProblem ?? "ok")"
    }

    private func timestamp(_ seconds: Double) -> String {
        "\(Formatting.pad(Formatting.fixed(seconds, decimals: 3), 9)) s"
    }

    private func burstLine(burst: Int, at seconds: Double, token: Token, slot: PublicationSlot,
                           manager: MessageManager) -> String {
        let beaconTime = manager.schedule.beaconTime(at: Int64(seconds * Double(manager.schedule.configuration.ticksPerSecond)))
        var line = "[\(timestamp(seconds))] burst #\(burst) audio \(token.kind) \(token.hex) (\(slot)) beacon-time \(beaconTime)"
        if let status = manager.schedule.status(of: slot), let next = status.nextSwitchAt {
            let seconds = Double(next) / Double(manager.schedule.configuration.ticksPerSecond)
            line += " (next EID at \(Formatting.fixed(seconds, decimals: 1)) s)"
        }
        return line
    }

    private func openOutput() throws(CommandFailure) -> AudioOutput {
        let device = settings.board.audioOutput
        do {
            let output = try BoardDevices.openOutput(settings.board, state: settings.state)
            if device.driver == "wav" {
                log("audio output: \(settings.state.file(device.device)) (simulated speaker, \(device.rate) Hz)")
            } else {
                log("audio output: ALSA \(device.device) (\(device.rate) Hz, period \(device.period)) on its own thread: "
                    + (output.status.problem.map { "\($0); retrying" } ?? "open"))
            }
            return output
        } catch {
            throw CommandFailure("\(error) (board \(settings.board.source), audio.output)")
        }
    }

    /// The status LEDs; without them (a chip or line that cannot be had) the daemon still
    /// broadcasts, and says why.
    private func openLEDs() -> StatusLEDOutput? {
        do {
            let (leds, description) = try StatusLEDDriver.open(board: settings.board, state: settings.state)
            log("leds: \(description)")
            return leds
        } catch {
            log("error: \(error); broadcasting without status LEDs")
            return nil
        }
    }

    /// The BLE advertiser: simulated (ble.log) on the sim board; otherwise a real controller
    /// through the BlueZ raw socket (`hci`) or an H4 UART (`h4`), retried while it is missing.
    private func openAdvertiser() throws(CommandFailure) -> BLEAdvertiser {
        let bluetooth = settings.board.bluetooth
        switch bluetooth.driver {
        case "sim":
            let path = settings.state.file("ble.log")
            do {
                let advertiser = try SimulatedBLEAdvertiser(path: path, setCount: bluetooth.advertisingSets)
                log("bluetooth: simulated controller, \(bluetooth.advertisingSets) advertising set\(bluetooth.advertisingSets == 1 ? " (legacy)" : "s"); advertising recorded in \(path)")
                return advertiser
            } catch {
                throw CommandFailure("\(path): \(error)")
            }
        default:
            let log = self.log
            let advertiser = RecoveringAdvertiser(intervalMilliseconds: 100, log: log) { () throws(BluetoothError) -> HCIAdvertiser in
                try BoardDevices.openController(bluetooth, log: log)
            }
            return advertiser
        }
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

/// The daemon's consoles and where its log lines go: the log terminal (stdout, or the stdio
/// console drawn above the prompt), the in-memory ring for `log`, and the other consoles
/// (event lines such as bursts only while debug logging is on, so a technician can type).
private final class Consoles {
    let context: ConsoleContext
    let plainLog: (String) -> Void
    var server: ConsoleSocketServer?
    private var sessions: [(session: ConsoleSession, isLogTerminal: Bool)] = []

    init(context: ConsoleContext, plainLog: @escaping (String) -> Void) {
        self.context = context
        self.plainLog = plainLog
    }

    func attach(_ port: TerminalPort, colour: Bool, isLogTerminal: Bool) {
        let context = self.context
        let session = ConsoleSession(port: port, table: ConsoleCommands.table, colour: colour) { line, session in
            ConsoleCommands.run(line, context, session: session)
        }
        sessions.append((session, isLogTerminal))
    }

    func log(_ line: String) {
        context.logRing.append(line)
        if !sessions.contains(where: { $0.isLogTerminal }) { plainLog(line) }
        let isEvent = line.hasPrefix("[")
        for entry in sessions where entry.isLogTerminal || !isEvent || context.manager.debugLogging {
            entry.session.logLine(line)
        }
    }

    func service() {
        if let client = server?.accept() { attach(client, colour: false, isLogTerminal: false) }
        for entry in sessions { entry.session.service() }
        for entry in sessions where entry.session.isClosed && !entry.isLogTerminal {
            let reason = entry.session.port.isClosed ? entry.session.port.closeReason : "exit"
            plainLog("console \(entry.session.port.name) closed (\(reason))")
        }
        sessions.removeAll { $0.session.isClosed && !$0.isLogTerminal }
    }
}

/// The daemon's own subscription, following the box's strategy: listening while its mode
/// includes scan, on its mediums. On the sim board the microphone hears the simulated speaker
/// and the scanner the simulated advertiser.
private final class Listener {
    private(set) var subscription: Subscription?
    private(set) var mediums: DiscoveryMediums = []
    private(set) var microphone: BurstDecoder?
    /// The board's ALSA microphone while listening over audio (nil on the sim board, whose
    /// microphone hears the simulated speaker inside the loop).
    private(set) var capture: AudioInput?
    private var captured: [Float] = []
    private let manager: MessageManager
    private let context: ConsoleContext
    private let heard: LineBuffer
    private let sampleRate: Int

    init(manager: MessageManager, context: ConsoleContext, heard: LineBuffer, sampleRate: Int) {
        self.manager = manager
        self.context = context
        self.heard = heard
        self.sampleRate = sampleRate
    }

    /// Listens on `wanted` (nothing: stops listening). The decoder is made once, on first use.
    func follow(_ wanted: DiscoveryMediums, log: (String) -> Void) throws {
        guard wanted != mediums else { return }
        subscription?.cancel()
        subscription = nil
        context.present.removeAll()
        mediums = wanted
        if !wanted.contains(.audio), let capture {
            capture.stop()
            self.capture = nil
            microphone = nil
        }
        guard !wanted.isEmpty else {
            log("listening stopped")
            return
        }
        let context = self.context, heard = self.heard
        subscription = try manager.subscribe(strategy: Strategy(mediums: wanted, mode: .scan),
                                             onFound: { heard.lines.append("found \($0)"); context.present.append($0) },
                                             onLost: { message in
                                                 heard.lines.append("lost \(message.token)")
                                                 context.present.removeAll { $0.token == message.token }
                                             })
        var how: [String] = []
        if wanted.contains(.audio), let input = context.board.audioInput, input.driver == "alsa" {
            if capture == nil {
                let opened = try ALSACapture(device: input.device, sampleRate: input.rate, periodFrames: input.period)
                capture = opened
                captured = [Float](repeating: 0, count: opened.periodFrames)
                microphone = try BurstDecoder(sampleRate: input.rate)
            }
            how.append("the microphone (ALSA \(input.device), \(input.rate) Hz) is decoded"
                       + (capture?.status.problem.map { " once it opens (\($0))" } ?? ""))
        } else if wanted.contains(.audio) {
            if microphone == nil { microphone = try BurstDecoder(sampleRate: sampleRate) }
            how.append("the simulated microphone hears the simulated speaker")
        }
        if wanted.contains(.ble) {
            how.append(context.board.bluetooth.driver == "sim" ? "the simulated scanner hears the simulated advertiser"
                                                               : "the controller scans (passive)")
        }
        log("listening over \(wanted): \(how.joined(separator: ", ")); tokens unheard for \(Formatting.fixed(Double(manager.lostAfter) / Double(sampleRate), decimals: 0)) s are lost")
    }
}

extension Listener {
    /// Feeds the microphone's decoder everything captured since the last call.
    func decodeCaptured(_ onBurst: (DecodedBurst) -> Void) {
        guard let capture, let microphone else { return }
        captured.withUnsafeMutableBufferPointer { buffer in
            while true {
                let got = capture.read(into: buffer)
                if got == 0 { break }
                microphone.push(UnsafeBufferPointer(rebasing: buffer[0..<got]), onBurst)
            }
        }
    }
}

/// Lines collected by handlers that run inside the loop, logged once the period is rendered.
private final class LineBuffer {
    var lines: [String] = []
}

extension BLEAdvertiser {
    /// Stamps the simulated advertiser's next log lines with stream time `seconds`.
    func setTime(_ seconds: Double) { (self as? SimulatedBLEAdvertiser)?.now = seconds }
}
