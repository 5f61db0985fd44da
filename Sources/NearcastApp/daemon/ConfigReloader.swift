import NearcastCore
import NearcastDrivers

/// SIGHUP: reads the static config file again and applies what can change without a gap in
/// the broadcast (audio level, BLE interval and TX power, mediums, debug logging); what needs a
/// restart is named. A file with an error changes nothing, and its last good copy is kept.
final class ConfigReloader {
    private let path: String?
    private let stateDirectory: StateDirectory
    private let board: Board
    /// The config file's contents in effect.
    private var current: StaticConfig

    init(path: String?, loaded: StaticConfig, state: StateDirectory, board: Board) {
        self.path = path
        self.current = loaded
        self.stateDirectory = state
        self.board = board
    }

    func reload(into box: Box, log: (String) -> Void) {
        guard let path else {
            log("SIGHUP: no config file to reload (start with --config FILE)")
            return
        }
        let new: StaticConfig
        do { new = try StaticConfig.reload(path, lastGoodIn: stateDirectory.path, log: log) } catch {
            log("error: SIGHUP: \(error); the running configuration is kept")
            return
        }
        let changes = new.changes(from: current)
        guard !changes.isEmpty else {
            log("SIGHUP: \(path) reloaded: nothing changed")
            return
        }
        var applied: [String] = [], pending: [String] = []
        for (key, change) in changes {
            switch key {
            case "audioLevel":
                box.encoder.amplitude = Float(new.audioLevel ?? SettingsDefaults.audioLevel) / 100
                applied.append(change)
            case "audioBand":
                box.encoder.selection = new.audioBand ?? board.audioBand
                applied.append(change + " (from the next burst)")
            case "audioSweepEvery":
                box.requests.post(.sweepEvery(seconds: new.audioSweepEvery))
                applied.append(change + (new.audioSweepEvery == nil ? " (no more sweeps)" : " (the first now)"))
            case "bleInterval":
                box.advertising.intervalMilliseconds = new.bleInterval ?? SettingsDefaults.bleIntervalMilliseconds
                applied.append(change)
            case "txPower":
                box.advertising.txPower = Int8(clamping: new.txPower ?? board.bluetooth.txPower)
                applied.append(change + " (in the frames from the next advertising change)")
            case "mediums":
                box.publications.apply(Strategy(mediums: new.mediums ?? .both, mode: box.publications.strategy.mode))
                applied.append(change)
            case "debug":
                box.manager.debugLogging = new.debug ?? false
                applied.append(change)
            case "name":
                // Told to the hub with the next heartbeat (within a minute).
                box.hub?.boxName = new.name
                applied.append(change + (box.hub == nil ? " (no hub to tell)" : " (the hub hears it at the next heartbeat)"))
            default:
                pending.append(change)
            }
        }
        current = new
        log("SIGHUP: \(path) reloaded: " + (applied.isEmpty ? "" : "applied \(applied.joined(separator: ", "))")
            + (applied.isEmpty || pending.isEmpty ? "" : "; ")
            + (pending.isEmpty ? "" : "needs a restart: \(pending.joined(separator: ", "))"))
    }
}
