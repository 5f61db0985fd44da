import NearcastCore
import NearcastDrivers
import NearcastNearby

/// The settings in effect, gathered from their owners (the publications and strategy, the
/// burst level, the advertising tunables, debug logging) as `config save` stores them, and
/// their saving: at `config save`, and straight after a console line that changed them.
final class SettingsKeeper {
    private let stateDirectory: StateDirectory
    private let manager: MessageManager
    private let publications: Publications
    private let encoder: MultiBandEncoder
    private let advertising: AdvertisingSettings
    private let progress: LoopProgress
    private let log: LogSink

    init(stateDirectory: StateDirectory, manager: MessageManager, publications: Publications, encoder: MultiBandEncoder,
         advertising: AdvertisingSettings, progress: LoopProgress, log: LogSink) {
        self.stateDirectory = stateDirectory
        self.manager = manager
        self.publications = publications
        self.encoder = encoder
        self.advertising = advertising
        self.progress = progress
        self.log = log
    }

    /// Where they are saved.
    var path: String { stateDirectory.file(SavedSettings.fileName) }

    /// The settings in effect.
    var inEffect: SavedSettings {
        SavedSettings(SettingsLayer(mediums: publications.strategy.mediums, mode: publications.strategy.mode,
                                    audioLevel: Int((encoder.amplitude * 100).rounded()), audioBand: encoder.selection,
                                    bleInterval: advertising.intervalMilliseconds, txPower: Int(advertising.txPower),
                                    debug: manager.debugLogging, publications: publications.specs))
    }

    /// What was saved last (nil: nothing), read without repairing anything.
    var saved: SavedSettings? { SavedSettings.load(from: stateDirectory, repairing: false, log: { _ in }) }

    /// Saves the settings in effect.
    func save() throws(SystemError) {
        try inEffect.save(to: stateDirectory, beaconTime: manager.beaconTime(at: progress))
    }

    /// Saves after a console change; returns a warning for the console when that failed.
    func persist() -> String? {
        do {
            try save()
            return nil
        } catch {
            log("warning: settings not saved: \(error); the change holds until the next restart")
            return "warning: not saved (\(error)): the change holds until the next restart"
        }
    }
}
