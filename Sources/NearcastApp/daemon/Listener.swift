import NearcastCore
import NearcastDrivers
import NearcastNearby

/// The daemon's own subscription, following the box's strategy: listening while its mode
/// includes scan, on its mediums. Audio comes from the board's microphone (on the sim board,
/// the twin that hears the simulated speaker) through one capture drain; BLE reports come from
/// the radio (the real controller scanning, or the simulated one hearing its own sets).
final class Listener {
    private(set) var subscription: Subscription?
    private(set) var mediums: DiscoveryMediums = []
    /// The microphone and its decoder while listening over audio.
    private(set) var capture: CapturedAudioDecoder?
    private let devices: Devices
    private let manager: MessageManager
    private let progress: LoopProgress
    private let tokens: HeardTokens
    /// Lines for the log from handlers that run inside the loop, written once the period is done.
    private(set) var heard: [String] = []

    init(devices: Devices, manager: MessageManager, progress: LoopProgress, heard tokens: HeardTokens) {
        self.devices = devices
        self.manager = manager
        self.progress = progress
        self.tokens = tokens
        heard.reserveCapacity(64)
        devices.radio.onReport = { [unowned self, manager, progress] event in
            do { try manager.heard(report: Array(event), at: Int64(progress.position)) } catch {
                self.heard.append("error: advertising report from the controller: \(error)")
            }
        }
    }

    /// The microphone while it is open.
    var microphone: AudioInput? { capture?.input }

    /// Listens on `wanted` (nothing: stops listening). The microphone is opened while audio is wanted.
    func follow(_ wanted: DiscoveryMediums, log: (String) -> Void) throws {
        guard wanted != mediums else { return }
        subscription?.cancel()
        subscription = nil
        tokens.clear()
        mediums = wanted
        if !wanted.contains(.audio), let capture {
            capture.input.stop()
            self.capture = nil
        }
        guard !wanted.isEmpty else {
            log("listening stopped")
            return
        }
        let tokens = self.tokens
        subscription = try manager.subscribe(
            strategy: Strategy(mediums: wanted, mode: .scan),
            onFound: { [unowned self] in self.heard.append("found \($0)"); tokens.found($0) },
            onLost: { [unowned self] message in
                self.heard.append("lost \(message.token)")
                tokens.lost(message)
            })
        var how: [String] = []
        if wanted.contains(.audio), capture == nil, let input = try devices.openMicrophone() {
            capture = try CapturedAudioDecoder(input: input)
        }
        if wanted.contains(.audio), let capture {
            how.append("\(devices.microphoneDescription) is decoded"
                       + (capture.input.status.problem.map { " once it opens (\($0))" } ?? ""))
        }
        if wanted.contains(.ble) {
            how.append(devices.board.bluetooth.driver == .sim ? "the simulated scanner hears the simulated advertiser"
                                                              : "the controller scans (passive)")
        }
        log("listening over \(wanted): \(how.joined(separator: ", ")); tokens unheard for "
            + "\(Formatting.fixed(Double(manager.lostAfter) / Double(progress.sampleRate), decimals: 0)) s are lost")
    }

    /// Decodes what the microphone captured since the last period, and keeps the radio
    /// scanning exactly while the subscription listens over BLE.
    func service(at position: Int) {
        let manager = self.manager
        // Drained every period even while consent is withdrawn (the manager then ignores what
        // is heard), so the microphone never backs up with stale audio.
        capture?.decodeAvailable { burst in manager.heard(burst.token, on: .audio, at: Int64(position)) }
        devices.radio.setScanning(mediums.contains(.ble) && manager.isScanning(on: .ble))
    }

    /// Hands the lines gathered since the last call to `log`, stamped.
    func flush(stamp: String, _ log: (String) -> Void) {
        for line in heard { log("[\(stamp)] \(line)") }
        heard.removeAll(keepingCapacity: true)
    }

    /// Stops listening (at shutdown).
    func stop() {
        subscription?.cancel()
        capture?.input.stop()
    }
}
