import NearcastCore
import NearcastDrivers

/// SIGHUP: reads the static config file again and applies what can change without a gap in
/// the broadcast (audio level, BLE interval and TX power, mediums, debug logging); what needs a
/// restart is named. A file with an error changes nothing, and its last good copy is kept.
/// What is compared, and what is applied or needs a restart, is the table's (``BoxSettings``);
/// here is only how each applied setting reaches its owner (``apply(_:_:into:)``).
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
        // The file's values over the defaults: a key taken out of the file goes back to its default.
        let effective = SettingsResolver.resolve(board: board, config: new, commandLine: SettingsLayer(), saved: nil)
        for (key, change) in changes {
            if BoxSettings.setting(key)?.onReload == .applied, let note = Self.apply(key, effective, into: box) {
                applied.append(change + note)
            } else {
                pending.append(change)
            }
        }
        current = new
        log("SIGHUP: \(path) reloaded: " + (applied.isEmpty ? "" : "applied \(applied.joined(separator: ", "))")
            + (applied.isEmpty || pending.isEmpty ? "" : "; ")
            + (pending.isEmpty ? "" : "needs a restart: \(pending.joined(separator: ", "))"))
    }

    /// Sets the running value of setting `key` from the reloaded file's values over the defaults
    /// (`new`); returns what to add to the log's phrase, or nil for a key this does not apply (a
    /// test checks that every row the table marks applied is applied here, and no other).
    static func apply(_ key: String, _ new: ResolvedSettings, into box: Box?) -> String? {
        switch key {
        case "audioLevel":
            box?.encoder.amplitude = Float(new.audioLevel) / 100
            return ""
        case "audioBand":
            box?.encoder.selection = new.audioBand
            return " (from the next burst)"
        case "audioSweepEvery":
            box?.requests.post(.sweepEvery(seconds: new.values.audioSweepEvery))
            return new.values.audioSweepEvery == nil ? " (no more sweeps)" : " (the first now)"
        case "bleInterval":
            box?.advertising.intervalMilliseconds = new.bleInterval
            return ""
        case "txPower":
            box?.advertising.txPower = Int8(clamping: new.txPower)
            return " (in the frames from the next advertising change)"
        case "mediums":
            if let box { box.publications.apply(Strategy(mediums: new.mediums, mode: box.publications.strategy.mode)) }
            return ""
        case "debug":
            box?.manager.debugLogging = new.debug
            return ""
        case "name":
            // Told to the hub with the next heartbeat (within a minute).
            box?.hub?.boxName = new.values.name
            return box?.hub == nil ? " (no hub to tell)" : " (the hub hears it at the next heartbeat)"
        default:
            return nil
        }
    }
}
