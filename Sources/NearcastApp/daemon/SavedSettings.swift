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
    var bleIntervalMilliseconds: Int
    var txPower: Int
    var debug: Bool
    /// Publications as `--publish` specs: `direct:HEX@MEDIUMS` or `eid:K@MEDIUMS`.
    var publications: [String]

    /// The spec of a publication request, as `--publish` and the settings file write it.
    static func spec(of request: Daemon.PublicationRequest) -> String {
        switch request.message {
        case .direct(let token): return "direct:\(token.hex)@\(request.strategy.mediums)"
        case .eid(_, let exponent): return "eid:\(exponent)@\(request.strategy.mediums)"
        }
    }

    /// The file's text.
    func text(savedAtBeaconTime time: UInt32) -> String {
        let list = publications.map { "    \(Formatting.jsonString($0)),\n" }.joined()
        return """
            // Saved by `config save` on the Nearcast console at beacon time \(time).
            // The daemon starts from these settings; `config save` replaces them. Remove this file
            // (and settings.json5.previous) to start from the board's defaults.
            {
              version: \(Self.formatVersion),
              strategy: { mediums: "\(strategy.mediums)", mode: "\(strategy.mode)" },
              audioLevel: \(audioLevel),
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
            do { _ = try PublicationSpec.parse(spec, defaultExponent: 10) } catch {
                throw place.with("'\(spec)' is not a publication: direct:HEX or eid:K, then @audio, @ble or @both")
            }
            settings.publications.append(spec)
        }
        try reader.finish()
        return settings
    }

    /// The saved settings, or nil when none were saved. A damaged file (corrupt, truncated, a
    /// version this build does not read) is reported and the previous copy used; with
    /// `keepingDamagedAside` (the daemon's start) it is renamed to `<name>.damaged` for
    /// inspection, so the next save cannot make the damaged copy the "previous" one.
    static func load(from state: StateDirectory, keepingDamagedAside: Bool = true, log: (String) -> Void) -> SavedSettings? {
        let path = state.file(fileName)
        let previous = path + ".previous"
        for candidate in [path, previous] where FileSystem.exists(candidate) {
            let problem: String
            do {
                let settings = try parse(try FileSystem.readText(candidate, limit: 64 * 1024), file: candidate)
                if candidate == previous { log("warning: using the previous saved settings, \(previous)") }
                return settings
            } catch let error as SystemError {
                problem = "\(candidate): cannot read: \(error.message)"
            } catch {
                problem = "\(error)"
            }
            guard keepingDamagedAside else { continue }
            do {
                try FileSystem.rename(candidate, to: candidate + ".damaged")
                log("error: \(problem); kept aside as \(candidate).damaged")
            } catch {
                log("error: \(problem); saved settings not used (cannot keep it aside: \(error))")
            }
        }
        return nil
    }

    /// Saves atomically; the file being replaced becomes `settings.json5.previous` if it is good.
    func save(to state: StateDirectory, beaconTime: UInt32) throws(SystemError) {
        let path = state.file(Self.fileName)
        if FileSystem.exists(path), let old = try? FileSystem.readText(path, limit: 64 * 1024),
           (try? Self.parse(old, file: path)) != nil {
            try FileSystem.writeAtomically(path + ".previous", Array(old.utf8), mode: 0o600)
        }
        try FileSystem.writeAtomically(path, Array(text(savedAtBeaconTime: beaconTime).utf8), mode: 0o600)
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
