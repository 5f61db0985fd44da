import NearcastCore
import NearcastDrivers

/// The broadcasting daemon: renders one burst per interval into the board's audio output,
/// paced by the device (or by its simulated twin), and logs a status line per burst.
public final class Daemon {
    /// How the daemon was asked to run.
    public struct Settings {
        public var board: Board
        public var state: StateDirectory
        public var publication: Publication
        /// Seconds between burst starts.
        public var interval: Double = 1
        /// Stop after this many seconds of audio (nil: run until SIGINT/SIGTERM).
        public var duration: Double?
        /// Peak amplitude of the bursts.
        public var amplitude: Float = 0.5
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
        let consent = board.consentGrantedAtStart || consentGranted()
        let clock = BeaconClock(startingAt: settings.state.savedBeaconTime(log: log))
        log("state directory \(settings.state.path); beacon time starts at \(clock.start)")
        log("publishing \(settings.publication.summary), one burst every \(Formatting.fixed(settings.interval, decimals: 2)) s")
        log(consent ? "consent granted: broadcasting" :
            "consent not granted: broadcasting nothing until a technician grants consent on the console")
        log("leds: status=\(consent ? "slow-blink" : "off") audio=off ble=off consent=\(consent ? "off" : "on")")

        var timer = BurstTimer(interval: Int((settings.interval * Double(fs)).rounded()))
        let limit = settings.duration.map { Int(($0 * Double(fs)).rounded()) }
        // The hand-over to the driver: the period is rendered in place in the ring and the
        // driver writes it to the device straight from there (4 periods: regions never wrap).
        let ring = SampleRing(capacity: 4 * output.periodFrames)
        var position = 0
        var bursts = 0
        var lastSaved = clock.start
        var stopReason = "duration reached"

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
            let elapsed = Double(position) / Double(fs)
            let beaconTime = clock.time(elapsedSeconds: elapsed)
            var startedToken: Token?
            var startOffset = 0
            let count = ring.withWritableRegion(maximum: wanted) { span in
                let count = span.count
                for i in span.indices { span[i] = 0 }
                // Finish a burst that began in an earlier period.
                let carried = encoder.render(into: span)
                if consent, let offset = timer.burstStart(inSpanAt: position, count: count) {
                    let burstTime = clock.time(elapsedSeconds: Double(position + offset) / Double(fs))
                    do {
                        let token = try settings.publication.token(at: burstTime)
                        encoder.start(token)
                        let at = max(offset, carried)
                        encoder.render(into: UnsafeMutableBufferPointer(rebasing: span[at...]))
                        startedToken = token
                        startOffset = at
                    } catch {
                        log("error: no token for beacon time \(burstTime): \(error); burst skipped")
                    }
                }
                return count
            }
            if let token = startedToken {
                bursts += 1
                let at = Double(position + startOffset) / Double(fs)
                log(statusLine(burst: bursts, at: at, token: token, beaconTime: beaconTime))
            }
            do {
                try output.write(from: ring, frames: count)
            } catch {
                throw CommandFailure("\(error)")
            }
            position += count
            // Save the beacon clock every 10 minutes of running: rare enough for an SD card,
            // often enough that a power cut loses little.
            if beaconTime >= lastSaved &+ 600 {
                saveClock(beaconTime)
                lastSaved = beaconTime
            }
        }
        do { try output.drain() } catch { log("warning: \(error)") }
        let final = clock.time(elapsedSeconds: Double(position) / Double(fs))
        saveClock(final)
        log("stopped (\(stopReason)) after \(Formatting.fixed(Double(position) / Double(fs), decimals: 2)) s: \(bursts) burst\(bursts == 1 ? "" : "s"); beacon time \(final)")
        log("leds: status=off audio=off ble=off consent=off")
    }

    private func statusLine(burst: Int, at seconds: Double, token: Token, beaconTime: UInt32) -> String {
        var line = "[\(Formatting.pad(Formatting.fixed(seconds, decimals: 3), 9)) s] burst #\(burst) audio \(token.kind) \(token.hex) beacon-time \(beaconTime)"
        if case .eid(_, let exponent) = settings.publication.source,
           let next = EphemeralIdentifier.nextEpoch(time: beaconTime, exponent: exponent) {
            line += " (next EID in \(next - beaconTime) s)"
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

    private func consentGranted() -> Bool {
        guard let text = try? FileSystem.readText(settings.state.file("consent"), limit: 64) else { return false }
        return text.filter { !$0.isWhitespace } == "granted"
    }

    private func saveClock(_ time: UInt32) {
        do { try settings.state.saveBeaconTime(time) } catch { log("warning: beacon clock not saved: \(error)") }
    }
}
