import NearcastCore
import NearcastDrivers

/// What a technician saved with the console's `config save`: the box's strategy, its
/// publications and the tunables, in `<state>/settings.json5`. The daemon starts from them, so
/// a box switched off at the wall comes back broadcasting the same event.
///
/// The file is JSON5 like the board files and is validated the same way (an unknown key or a
/// value out of range is an error naming file, line and key). Saving replaces it atomically
/// and keeps the last good copy as `settings.json5.previous`, which is used when the main file
/// is damaged.
struct SavedSettings: Equatable {
    static let fileName = "settings.json5"
    static let formatVersion = 1

    var strategy: Strategy
    /// Burst level, % of full scale.
    var audioLevel: Int
    /// The band(s) the bursts are sent in (files saved before there were two bands: high).
    var audioBand: BandSelection = .high
    var bleIntervalMilliseconds: Int
    var txPower: Int
    var debug: Bool
    /// The publications, written in the file as `--publish` writes them.
    var publications: [PublicationSpec]

    /// The file's text.
    func text(savedAtBeaconTime time: UInt32) -> String {
        let list = publications.map { "    \(Formatting.jsonString($0.text)),\n" }.joined()
        return """
            // Saved by `config save` on the Nearcast console at beacon time \(time).
            // The daemon starts from these settings; `config save` replaces them. Remove this file
            // (and settings.json5.previous) to start from the board's defaults.
            {
              version: \(Self.formatVersion),
              strategy: { mediums: "\(strategy.mediums)", mode: "\(strategy.mode)" },
              audioLevel: \(audioLevel),
              audioBand: "\(audioBand.name)",
              bleInterval: \(bleIntervalMilliseconds),
              txPower: \(txPower),
              debug: \(debug),
              publications: [
            \(list)  ],
            }

            """
    }

    /// Parses and validates the text of a settings file called `file`.
    static func parse(_ text: String, file: String) throws(ConfigError) -> SavedSettings {
        let root: JSON5Node
        do { root = try JSON5Parser.parse(text) } catch {
            throw ConfigError(file: file, line: error.line, column: error.column, key: "", message: error.message)
        }
        var reader = try ObjectReader(root, file: file, path: "")
        let version = try reader.requiredInt("version", in: 1...1_000)
        guard version == formatVersion else {
            throw reader.error("version", "version \(version) is not one this build reads (\(formatVersion))")
        }
        var strategyReader = try reader.requiredObject("strategy")
        let mediums = DiscoveryMediums(name: try strategyReader.choice("mediums", ["audio", "ble", "both"]) ?? "both") ?? .both
        let mode = DiscoveryMode(name: try strategyReader.choice("mode", ["broadcast", "scan", "both"]) ?? "broadcast") ?? .broadcast
        try strategyReader.finish()
        var settings = SavedSettings(
            strategy: Strategy(mediums: mediums, mode: mode),
            audioLevel: try reader.requiredInt("audioLevel", in: 0...100),
            audioBand: try reader.choice("audioBand", ["high", "low", "both"]).flatMap { BandSelection(name: $0) } ?? .high,
            bleIntervalMilliseconds: try reader.requiredInt("bleInterval", in: 20...10_240),
            txPower: try reader.requiredInt("txPower", in: -100...20),
            debug: try reader.bool("debug") ?? false,
            publications: [])
        let list = try reader.required("publications")
        guard case .array(let items) = list.value else {
            throw reader.error("publications", "expected an array of publications, found \(list.value.typeName)")
        }
        guard items.count <= SchedulerConfiguration.maximumPublications else {
            throw reader.error("publications", "\(items.count) publications; at most \(SchedulerConfiguration.maximumPublications)")
        }
        for (index, item) in items.enumerated() {
            let place = ConfigError(file: file, line: item.line, column: item.column, key: "publications[\(index)]", message: "")
            guard case .string(let spec) = item.value else {
                throw place.with("expected a string such as \"direct:c0ffee@both\", found \(item.value.typeName)")
            }
            do { settings.publications.append(try PublicationSpec.parse(spec, defaultExponent: SettingsDefaults.exponent)) } catch {
                throw place.with("'\(spec)' is not a publication (\(error)): direct:HEX, eid:K or message:NAMESPACE/TYPE:TEXT, then @audio, @ble or @both")
            }
        }
        try reader.finish()
        return settings
    }

    /// The saved settings, or nil when none were saved. A damaged file (corrupt, truncated, a
    /// version this build does not read) is reported, kept aside as `settings.json5.damaged`
    /// and the previous copy restored in its place (``GuardedFile``); with `repairing` off (the
    /// console's `config show`) the previous copy is only read, nothing is written.
    static func load(from state: StateDirectory, repairing: Bool = true, log: (String) -> Void) -> SavedSettings? {
        let file = guardedFile(in: state)
        let parsed: (String) -> SavedSettings? = { try? parse($0, file: file.path) }
        switch file.load(repair: repairing) {
        case .absent:
            return nil
        case .good(let text):
            return parsed(text)
        case .unreadable(let why):
            log("error: \(file.path): \(why); saved settings not used")
            return nil
        case .bad(let problem):
            if repairing { log("error: \(problem); no previous copy to use; saved settings not used") }
            return nil
        case .restored(let text, let problem, let keptAs, let failure):
            if repairing {
                log("error: \(problem); " + (keptAs.map { "kept aside as \($0)" } ?? "cannot keep it aside: \(failure.map { "\($0)" } ?? "")"))
            }
            log("warning: using the previous saved settings, \(file.previousPath)")
            return parsed(text)
        }
    }

    /// Saves atomically; the file being replaced becomes `settings.json5.previous` if it is good.
    func save(to state: StateDirectory, beaconTime: UInt32) throws(SystemError) {
        try Self.guardedFile(in: state).save(text(savedAtBeaconTime: beaconTime))
    }

    private static func guardedFile(in state: StateDirectory) -> GuardedFile {
        let path = state.file(fileName)
        return GuardedFile(path: path, limit: 64 * 1024) { text in
            do { _ = try parse(text, file: path); return nil } catch { return "\(error)" }
        }
    }
}

extension SavedSettings {
    /// What a technician saved, as a settings layer (it says every tunable it holds).
    var layer: SettingsLayer {
        SettingsLayer(mediums: strategy.mediums, mode: strategy.mode, audioLevel: audioLevel, audioBand: audioBand,
                      bleInterval: bleIntervalMilliseconds, txPower: txPower, debug: debug, publications: publications)
    }
}

extension ConfigError {
    /// The same place with another message.
    func with(_ message: String) -> ConfigError {
        var copy = self
        copy.message = message
        return copy
    }
}
