import NearcastCore
import NearcastDrivers
import NearcastNearby

/// The broadcasting daemon: the first user of ``MessageManager``. ``run()`` opens the board's
/// devices, resolves what to publish, and then runs the loop: one audio period at a time, the
/// ``ActionPerformer`` renders it (the scheduler's bursts and advertising changes), the
/// ``Listener`` decodes what was heard, the ``DeviceHealthReporter`` reports the drivers'
/// states to the manager, the consoles and LEDs are served, the period goes to the device
/// (which paces the loop), systemd hears how it went, and the beacon clock's reservation is
/// kept on disk. The box's state lives in its parts, each with one owner (``Box``); what the
/// consoles ask of the loop arrives as ``LoopRequest`` values it drains once a period.
public final class Daemon {
    /// Whether the daemon stopped to be started again (the console's `restart`).
    public private(set) var restartRequested = false

    private let settings: DaemonSettings
    private let log: (String) -> Void
    /// SIGHUP's reload of the config file, beside the box rather than in it: it applies to the
    /// box, which then need not know it.
    private let reloader: ConfigReloader

    public init(settings: DaemonSettings, log: @escaping (String) -> Void) {
        self.settings = settings
        self.log = log
        reloader = ConfigReloader(path: settings.configPath, loaded: settings.config, state: settings.state, board: settings.board)
    }

    /// Runs until the duration is reached or a stop signal arrives.
    public func run() throws(CommandFailure) {
        let signals = SignalWatcher()
        let (box, consoles) = try start()
        var position = 0
        let reason = try loop(box, consoles, signals: signals, position: &position)
        stop(box, consoles, at: position, reason: reason)
    }

    /// Opens the devices, resolves the settings, restores the beacon clock, makes the manager
    /// and the state, publishes, and opens the consoles (made from the box, so not in it).
    private func start() throws(CommandFailure) -> (Box, Consoles) {
        let board = settings.board
        log("nearcast \(BuildInfo.version): board \(board.name) (\(board.description)) from \(board.source)")
        let devices = try Devices.open(board, state: settings.state, log: log)
        for line in devices.descriptions { log(line) }
        if let problem = devices.ledsProblem { log("error: \(problem); broadcasting without status LEDs") }
        let fs = devices.output.sampleRate
        let resolved = resolveSettings()
        let encoder: MultiBandEncoder
        do {
            encoder = try MultiBandEncoder(sampleRate: fs, selection: resolved.audioBand, amplitude: Float(resolved.audioLevel) / 100)
        } catch {
            throw CommandFailure("\(board.source): audio.output.rate: \(error)")
        }
        let consent = board.consentGrantedAtStart || settings.state.savedConsent(log: log)

        // The beacon clock resumes from disk and reserves its next stretch before anything is sent.
        var reservation = BeaconClockReservation(saved: settings.state.savedBeaconTime(log: log))
        let firstSave = saveReservation(&reservation, at: reservation.clock.start)
        log("state directory \(settings.state.path); beacon time starts at \(reservation.clock.start)")

        var config = SchedulerConfiguration(ticksPerSecond: fs, audioBurstLength: Int64(encoder.rate.burstSamples))
        config.audioInterval = Int64((resolved.audioInterval * Double(fs)).rounded())
        config.bleAdvertisingSets = devices.radio.setCount
        let seed: UInt64
        do { seed = try FileSystem.randomBytes(8).reduce(0) { $0 << 8 | UInt64($1) } } catch {
            throw CommandFailure("cannot read the kernel's random source: \(error)")
        }
        let manager = MessageManager(configuration: config, clock: reservation.clock, cipher: OpenSSLAES128(), seed: seed,
                                     consentGranted: consent, lostAfterSeconds: settings.lostAfter, log: log)
        manager.debugLogging = resolved.debug
        // The box's strategy: each publication is made within it, on the mediums it asks for.
        var strategy = resolved.strategy
        if settings.subscribe != nil { strategy.mode.insert(.scan) }
        let hub = resolved.values.hub.map { hub in
            let link = HubLink(settings: hub, state: settings.state, exponent: settings.exponent,
                               description: resolved.values.name ?? "nearcast \(board.name) (\(board.description))", log: log)
            link.boxName = resolved.values.name
            return link
        }
        let box = Box(board: board, stateDirectory: settings.state, manager: manager, encoder: encoder, devices: devices,
                      strategy: strategy, listenMediums: (settings.subscribe ?? .both).intersection(board.listenableMediums),
                      advertising: AdvertisingSettings(txPower: Int8(clamping: resolved.txPower),
                                                       intervalMilliseconds: resolved.bleInterval),
                      hub: hub, reservation: reservation, log: log)
        if case .failed(let why) = firstSave { box.problems.state = why }
        if let link = box.hub {
            // A known identity puts the messages on air at once; the hub is told when it answers.
            box.publications.hubIdentityChanged(link.identity)
            log("hub: publishing messages through \(link.settings.url)"
                + (link.identity == nil ? " (the first contact derives the box's identity; messages go on air then)" : ""))
        }
        for request in try publicationRequests(resolved) {
            do {
                let id = try box.publications.publish(request)
                log("publishing \(request.message) over \(request.strategy.mediums) as publication \(id)"
                    + (box.publications.isWaiting(id) ? " once the hub has answered" : ""))
            } catch {
                throw CommandFailure("cannot publish \(request.message): \(error)")
            }
        }
        let consoles = try Consoles.open(settings, console: resolved.console, box: box, log: log)
        DeviceHealthReporter.logHandlers(of: manager, to: consoles.log)
        let sets = devices.radio.setCount
        log("audio: each publication every \(Formatting.fixed(Double(manager.schedule.effectiveAudioInterval) / Double(fs), decimals: 2)) s"
            + " (bursts \(Formatting.fixed(Double(manager.schedule.audioBurstSpacing) / Double(fs), decimals: 2)) s apart,"
            + " duty cycle at most \(Int(config.audioDutyCycle * 100)) %); BLE: \(sets) advertising set\(sets == 1 ? "" : "s")")
        log(consent ? "consent granted: broadcasting" :
            "consent not granted: broadcasting nothing until a technician grants consent on the console")
        if let every = resolved.values.audioSweepEvery {
            box.performer.repeatSweep(everySeconds: every)
            log("field check: the sweep plays every \(every) s (from the \(resolved.sources["audioSweepEvery"] ?? "command line"); "
                + "'audio sweep off' on the console stops it)")
        }
        box.health.update(devices, microphone: box.listener.microphone, atMilliseconds: 0, manager: manager,
                          problems: box.problems, log: consoles.log)
        box.display.update(box.lights, atMilliseconds: 0, log: consoles.log)
        return (box, consoles)
    }

    /// The settings in effect at start: defaults, config file, command line, saved settings.
    private func resolveSettings() -> ResolvedSettings {
        let saved = SavedSettings.load(from: settings.state, log: log)
        let resolved = SettingsResolver.resolve(board: settings.board, config: settings.config,
                                                commandLine: settings.commandLine, saved: saved?.layer)
        if let saved {
            let file = settings.state.file(SavedSettings.fileName)
            log("saved settings from \(file): \(saved.strategy), audio level \(saved.audioLevel), band \(saved.audioBand.name),"
                + " ble interval \(saved.bleInterval) ms, txpower \(saved.txPower) dBm")
            if resolved.sources["publications"] == "command line" && saved.publications != resolved.publications {
                log("the command line's publications replace the \(saved.publications.count) saved in \(file)")
            }
        }
        return resolved
    }

    /// One audio period at a time until the duration, a stop signal or a restart; returns why
    /// it stopped. `position` is the stream position reached.
    private func loop(_ box: Box, _ consoles: Consoles, signals: SignalWatcher, position: inout Int) throws(CommandFailure) -> String {
        let output = box.devices.output, fs = box.sampleRate
        let performer = box.performer, listener = box.listener
        let limit = settings.duration.map { Int(($0 * Double(fs)).rounded()) }
        // The hand-over to the driver: the period is rendered in place in the ring and the
        // driver writes it to the device straight from there (4 periods: regions never wrap).
        let ring = SampleRing(capacity: 4 * output.periodFrames)
        while true {
            if let signal = signals.poll() {
                guard signal == .hangUp else { return signal == .interrupt ? "SIGINT" : "SIGTERM" }
                box.systemd.reloading { reloader.reload(into: box, log: consoles.log) }
            }
            // The daemon's own subscription follows the strategy (the console's `strategy mode scan`).
            do { try listener.follow(box.publications.listeningMediums, log: consoles.log) } catch {
                throw CommandFailure("cannot subscribe: \(error)")
            }
            let wanted = limit.map { min(output.periodFrames, $0 - position) } ?? output.periodFrames
            if wanted <= 0 { return "duration reached" }
            let start = position
            let count = ring.withWritableRegion(maximum: wanted) { span in
                performer.render(into: span, at: start)
                return span.count
            }
            let restart = servicePeriod(box, consoles, at: position)
            do { try output.write(from: ring, frames: count) } catch { throw CommandFailure("\(error)") }
            position += count
            box.progress.position = position
            box.systemd.periodPlayed(box.lights, publications: box.publications, problems: box.problems)
            switch saveReservation(&box.reservation, at: box.manager.schedule.beaconTime(at: Int64(position))) {
            case .notDue: break
            case .saved:
                if box.problems.state != nil { log("state directory writable again: beacon clock reservation saved") }
                box.problems.state = nil
            case .failed(let why): box.problems.state = why
            }
            if restart {
                restartRequested = true
                return "restart requested on the console"
            }
        }
    }

    /// Everything but the audio, once per period before it is played: what was heard, the
    /// log lines, the radio, the devices' health, the consoles, the hub, the LEDs, and what the
    /// consoles asked of the loop. Returns whether a restart was asked for.
    private func servicePeriod(_ box: Box, _ consoles: Consoles, at position: Int) -> Bool {
        let devices = box.devices, fs = box.sampleRate
        box.listener.service(at: position)
        // Log outside the period's rendering (formatting allocates; the audio path does not).
        box.performer.flush(consoles.log)
        box.listener.flush(stamp: ActionPerformer.stamp(Double(position) / Double(fs)), consoles.log)
        devices.radio.intervalMilliseconds = box.advertising.intervalMilliseconds
        devices.clock.seconds = Double(position) / Double(fs)
        devices.radio.maintain(now: devices.clock.seconds)
        let now = Int64(position) * 1000 / Int64(fs)
        box.health.update(devices, microphone: box.listener.microphone, atMilliseconds: now, manager: box.manager,
                          problems: box.problems, log: consoles.log)
        consoles.service()
        if let hub = box.hub {
            let publications = box.publications
            hub.service(now: devices.clock.seconds, beaconTime: box.beaconTime, manager: box.manager,
                        heartbeat: { box.hubHeartbeat }, identityChanged: publications.hubIdentityChanged, log: consoles.log)
        }
        box.display.update(box.lights, atMilliseconds: now, log: consoles.log)
        var restart = false
        while let request = box.requests.next() {
            switch request {
            case .restart: restart = true
            case .testBurst: box.performer.requestTestBurst()
            case .sweep: box.performer.requestSweep()
            case .sweepEvery(let seconds): box.performer.repeatSweep(everySeconds: seconds)
            case .stall(let seconds):
                // Deliberately blocks the loop, watchdog pings included (see `debug stall`).
                log("warning: the loop stalls for \(seconds) s on the console's request (debug stall): no audio, no watchdog ping")
                MonotonicClock.sleep(until: MonotonicClock.nanoseconds() + Int64(seconds) * 1_000_000_000)
                log("the loop runs again after the \(seconds) s stall")
            }
        }
        return restart
    }

    /// A clean stop: the device drained, advertising off, the exact beacon time saved.
    private func stop(_ box: Box, _ consoles: Consoles, at position: Int, reason: String) {
        box.systemd.stopping(reason)
        do { try box.devices.output.drain() } catch { log("warning: \(error)") }
        box.performer.stopAdvertising(at: position, log: log)
        box.hub?.cancel()
        box.publications.unpublishAll()
        box.listener.stop()
        // A clean stop saves the exact time: the next start continues from here.
        let final = box.manager.schedule.beaconTime(at: Int64(position))
        saveClock(final)
        consoles.log("stopped (\(reason)) after \(Formatting.fixed(Double(position) / Double(box.sampleRate), decimals: 2)) s: "
                     + "\(box.progress.bursts) burst\(box.progress.bursts == 1 ? "" : "s"); beacon time \(final)")
        box.display.release(log: consoles.log)
        consoles.service()
    }

    /// The publications the resolved settings name, as requests (an EID's key from the state
    /// directory). A message with no hub configured stops the start when the command line asked
    /// for it, and is skipped with an error when it comes from the saved settings or the config
    /// file (a box whose hub was removed from its config still broadcasts the rest).
    private func publicationRequests(_ resolved: ResolvedSettings) throws(CommandFailure) -> [PublicationRequest] {
        var requests: [PublicationRequest] = []
        let origin = resolved.sources["publications"] ?? "command line"
        let source = origin == "saved settings" ? settings.state.file(SavedSettings.fileName)
            : origin == "config file" ? (settings.configPath ?? "the config file") : "--publish"
        for spec in resolved.publications {
            if spec.isMessage && resolved.values.hub == nil {
                let why = "a message is published through a hub: add --hub URL --hub-key SECRET (or hub in the config file)"
                guard origin != "command line" else { throw CommandFailure(why) }
                log("error: \(source): publication '\(spec.text)' skipped: \(why)")
                continue
            }
            do {
                requests.append(try spec.request(identityKey: { () throws(StorageError) in try settings.state.identityKey(log: log) }))
            } catch {
                throw CommandFailure("\(source): publication '\(spec.text)': \(error)")
            }
        }
        return requests
    }

    /// What became of a due reservation write.
    private enum ReservationSave {
        case notDue, saved
        /// Not written: the error, which `status` and the status LED show until a write succeeds.
        case failed(String)
    }

    /// Writes the next reservation when it is due; a failed write is retried a minute later and
    /// reported (log, `status`, the status LED lit steadily), since a power cut while it fails
    /// could send the clock back.
    private func saveReservation(_ reservation: inout BeaconClockReservation, at time: UInt32) -> ReservationSave {
        guard let value = reservation.valueToSave(at: time) else { return .notDue }
        do {
            try settings.state.saveBeaconTime(value)
            reservation.saved(value)
            return .saved
        } catch {
            reservation.saveFailed(at: time)
            log("warning: beacon clock reservation not saved (retrying in \(BeaconClockReservation.retrySeconds) s): \(error)")
            return .failed("\(error)")
        }
    }

    private func saveClock(_ time: UInt32) {
        do { try settings.state.saveBeaconTime(time) } catch { log("warning: beacon clock not saved: \(error)") }
    }
}
