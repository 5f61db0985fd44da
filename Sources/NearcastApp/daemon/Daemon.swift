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
    }

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
        let output = try openOutput()
        let fs = output.sampleRate
        let encoder: BurstEncoder
        do { encoder = try BurstEncoder(sampleRate: fs, amplitude: settings.amplitude) } catch {
            throw CommandFailure("\(board.source): audio.output.rate: \(error)")
        }
        let advertiser = try openAdvertiser()
        let consent = board.consentGrantedAtStart || consentGranted()

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
        manager.debugLogging = settings.debug
        var published: [Publication] = []
        for request in settings.publications {
            do {
                let publication = try manager.publish(request.message, strategy: request.strategy)
                published.append(publication)
                log("publishing \(request.message) over \(request.strategy.mediums) as \(publication.slot)")
            } catch {
                throw CommandFailure("cannot publish \(request.message): \(error)")
            }
        }
        log("audio: each publication every \(Formatting.fixed(Double(manager.schedule.effectiveAudioInterval) / Double(fs), decimals: 2)) s"
            + " (bursts \(Formatting.fixed(Double(manager.schedule.audioBurstSpacing) / Double(fs), decimals: 2)) s apart,"
            + " duty cycle at most \(Int(config.audioDutyCycle * 100)) %); BLE: \(advertiser.setCount) advertising set\(advertiser.setCount == 1 ? "" : "s")")
        let heard = LineBuffer()
        var subscription: Subscription?
        var microphone: BurstDecoder?
        if let mediums = settings.subscribe {
            do {
                subscription = try manager.subscribe(strategy: Strategy(mediums: mediums, mode: .scan),
                                                     onFound: { heard.lines.append("found \($0)") },
                                                     onLost: { heard.lines.append("lost \($0.token)") })
            } catch {
                throw CommandFailure("cannot subscribe: \(error)")
            }
            if mediums.contains(.audio) {
                do { microphone = try BurstDecoder(sampleRate: fs) } catch { throw CommandFailure("\(error)") }
            }
            log("subscribed over \(mediums): the simulated microphone hears the simulated speaker and the simulated scanner the advertiser; tokens unheard for \(Formatting.fixed(Double(manager.lostAfter) / Double(fs), decimals: 0)) s are lost")
        }
        var lastScan = -fs
        log(consent ? "consent granted: broadcasting" :
            "consent not granted: broadcasting nothing until a technician grants consent on the console")
        log("leds: status=\(consent ? "slow-blink" : "off") audio=off ble=off consent=\(consent ? "off" : "on")")

        let limit = settings.duration.map { Int(($0 * Double(fs)).rounded()) }
        // The hand-over to the driver: the period is rendered in place in the ring and the
        // driver writes it to the device straight from there (4 periods: regions never wrap).
        let ring = SampleRing(capacity: 4 * output.periodFrames)
        let txPower = Int8(clamping: board.bluetooth.txPower)
        var position = 0
        var bursts = 0
        var stopReason = "duration reached"
        var events: [String] = []

        while true {
            if let signal = signals.poll() {
                if signal == .hangUp {
                    log("SIGHUP: nothing to reload in this build")
                } else {
                    stopReason = signal == .interrupt ? "SIGINT" : "SIGTERM"
                    break
                }
            }
            let wanted = limit.map { min(output.periodFrames, $0 - position) } ?? output.periodFrames
            if wanted <= 0 { break }
            let count = ring.withWritableRegion(maximum: wanted) { span in
                for i in span.indices { span[i] = 0 }
                // Finish a burst that began in an earlier period.
                let carried = encoder.render(into: span)
                manager.tick(at: Int64(position), count: span.count) { action in
                    switch action {
                    case .audioBurst(let slot, let token, let at):
                        let offset = max(Int(at) - position, carried)
                        encoder.start(token)
                        encoder.render(into: UnsafeMutableBufferPointer(rebasing: span[offset...]))
                        bursts += 1
                        events.append(burstLine(burst: bursts, at: Double(position + offset) / Double(fs), token: token,
                                                slot: slot, manager: manager))
                    case .advertise(let set, let slot, let token, let address, let at):
                        advertiser.setTime(Double(at) / Double(fs))
                        do {
                            try advertiser.advertise(set: set, data: EddystoneFrame.advertisingData(for: token, txPower: txPower),
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
                if let microphone, manager.isScanning(on: .audio) {
                    microphone.push(UnsafeBufferPointer(span)) { burst in
                        manager.heard(burst.token, on: .audio, at: Int64(position))
                    }
                }
                return span.count
            }
            // The simulated scanner hears every enabled set once per 100 ms advertising interval.
            if manager.isScanning(on: .ble) && position - lastScan >= fs / 10 {
                lastScan = position
                for shown in advertiser.sets {
                    guard let shown else { continue }
                    let report = LEAdvertisingReport(eventType: 3, isExtended: false, addressType: 1, address: shown.address,
                                                     rssi: -50, data: shown.data)
                    do { try manager.heard(report: LEAdvertisingReports.legacyEvent(for: report), at: Int64(position)) } catch {
                        events.append("error: simulated scanner: \(error)")
                    }
                }
            }
            // Log outside the period's rendering (formatting allocates; the audio path does not).
            for line in events { log(line) }
            events.removeAll(keepingCapacity: true)
            for line in heard.lines { log("[\(timestamp(Double(position) / Double(fs)))] \(line)") }
            heard.lines.removeAll(keepingCapacity: true)
            do {
                try output.write(from: ring, frames: count)
            } catch {
                throw CommandFailure("\(error)")
            }
            position += count
            saveReservation(&reservation, at: manager.schedule.beaconTime(at: Int64(position)))
        }
        do { try output.drain() } catch { log("warning: \(error)") }
        advertiser.setTime(Double(position) / Double(fs))
        for set in 0..<advertiser.setCount {
            do { try advertiser.stop(set: set) } catch { log("warning: BLE set \(set): \(error)") }
        }
        published.removeAll()
        subscription?.cancel()
        // A clean stop saves the exact time: the next start continues from here.
        let final = manager.schedule.beaconTime(at: Int64(position))
        saveClock(final)
        log("stopped (\(stopReason)) after \(Formatting.fixed(Double(position) / Double(fs), decimals: 2)) s: \(bursts) burst\(bursts == 1 ? "" : "s"); beacon time \(final)")
        log("leds: status=off audio=off ble=off consent=off")
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
            switch device.driver {
            case "wav":
                let path = settings.state.file(device.device)
                log("audio output: \(path) (simulated speaker, \(device.rate) Hz)")
                return try SimulatedAudioOutput(path: path, sampleRate: device.rate, periodFrames: device.period)
            default:
                log("audio output: ALSA \(device.device) (\(device.rate) Hz, period \(device.period))")
                return try ALSAAudioOutput(device: device.device, sampleRate: device.rate, periodFrames: device.period)
            }
        } catch {
            throw CommandFailure("\(error) (board \(settings.board.source), audio.output)")
        }
    }

    private func openAdvertiser() throws(CommandFailure) -> SimulatedBLEAdvertiser {
        let bluetooth = settings.board.bluetooth
        let path = settings.state.file("ble.log")
        if bluetooth.driver != "sim" {
            // Audio still goes out; BLE is recorded so that nothing is silently dropped.
            log("warning: bluetooth.driver \(bluetooth.driver): the HCI driver is not in this build; BLE advertising is recorded in \(path), not sent")
        }
        do {
            let advertiser = try SimulatedBLEAdvertiser(path: path, setCount: bluetooth.advertisingSets)
            log("bluetooth: simulated controller, \(bluetooth.advertisingSets) advertising set\(bluetooth.advertisingSets == 1 ? " (legacy)" : "s"); advertising recorded in \(path)")
            return advertiser
        } catch {
            throw CommandFailure("\(path): \(error)")
        }
    }

    private func consentGranted() -> Bool {
        guard let text = try? FileSystem.readText(settings.state.file("consent"), limit: 64) else { return false }
        return text.filter { !$0.isWhitespace } == "granted"
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

/// Lines collected by handlers that run inside the loop, logged once the period is rendered.
private final class LineBuffer {
    var lines: [String] = []
}

extension SimulatedBLEAdvertiser {
    /// Stamps the next log lines with stream time `seconds`.
    func setTime(_ seconds: Double) { now = seconds }
}
