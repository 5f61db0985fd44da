import NearcastCore
import NearcastDrivers

/// The box's static configuration, `/etc/nearcast/nearcast.json5` on an installed box (the
/// unit file passes it with `--config`): what the installer decides once. Every key is
/// optional; a flag on the command line wins over the file, and the file over the defaults.
/// A technician's `config save` (state) is applied on top at start.
///
/// ```json5
/// {
///   name: "Room 101",      // the venue's name for the box: the hub and the presenter list it so
///   board: "rpi4b",        // a name from /usr/share/nearcast/boards or a path
///   mediums: "both",       // audio, ble or both
///   audioInterval: 1.0,    // seconds between one publication's bursts (0.5-3600)
///   audioLevel: 50,        // burst peak, % of full scale
///   audioBand: "high",     // high (18.5-20 kHz), low (15-16.5 kHz) or both (alternating)
///   bleInterval: 100,      // advertising interval, ms (20-10240)
///   txPower: -12,          // calibrated TX power at 0 m written into the frames, dBm
///   console: "/dev/serial0",
///   debug: false,
///   publications: ["message:demo/event:42"],   // as --publish; the console's saved ones win
///   hub: { url: "https://hub.example.org", key: "ncsec_...", ca: "/etc/nearcast/hub-ca.pem" },
/// }
/// ```
///
/// SIGHUP reads the file again: the tunables change at once, without a gap in the broadcast;
/// `board`, `console` and `audioInterval` are reported as needing a restart; a file with an
/// error is reported (file:line:column key) and the running configuration kept.
struct StaticConfig: Equatable {
    static let defaultPath = "/etc/nearcast/nearcast.json5"

    /// The venue's name for the box (its room), sent to the hub with every heartbeat.
    var name: String?
    var board: String?
    var mediums: DiscoveryMediums?
    var audioInterval: Double?
    var audioLevel: Int?
    var audioBand: BandSelection?
    /// Seconds between the field check's sweeps while the box runs (before a talk); never saved.
    var audioSweepEvery: Int?
    var bleInterval: Int?
    var txPower: Int?
    var console: String?
    var debug: Bool?
    var publications: [PublicationSpec]?
    var hub: HubSettings?

    /// Parses and validates the text of a config file called `file`.
    static func parse(_ text: String, file: String) throws(ConfigError) -> StaticConfig {
        let root: JSON5Node
        do { root = try JSON5Parser.parse(text) } catch {
            throw ConfigError(file: file, line: error.line, column: error.column, key: "", message: error.message)
        }
        var reader = try ObjectReader(root, file: file, path: "")
        if let version = try reader.int("version", in: 0...1_000), version != 1 {
            throw reader.error("version", "version \(version) is not one this build reads (1)")
        }
        var config = StaticConfig()
        config.name = try reader.string("name")
        if let name = config.name, let problem = SettingsDefaults.nameProblem(name) { throw reader.error("name", problem) }
        config.board = try reader.string("board")
        config.mediums = try reader.choice("mediums", ["audio", "ble", "both"]).flatMap { DiscoveryMediums(name: $0) }
        config.audioInterval = try reader.number("audioInterval", in: 0.5...3600)
        config.audioLevel = try reader.int("audioLevel", in: 1...100)
        config.audioBand = try reader.choice("audioBand", ["high", "low", "both"]).flatMap { BandSelection(name: $0) }
        config.audioSweepEvery = try reader.int("audioSweepEvery", in: SettingsDefaults.sweepIntervals)
        config.bleInterval = try reader.int("bleInterval", in: 20...10_240)
        config.txPower = try reader.int("txPower", in: -100...20)
        config.console = try reader.string("console")
        if let console = config.console, !(console == "stdio" || console == "none" || console.hasPrefix("/")) {
            throw reader.error("console", "'\(console)': use stdio, none or a serial device path such as /dev/serial0")
        }
        config.debug = try reader.bool("debug")
        if let publications = try reader.strings("publications") {
            guard publications.count <= SchedulerConfiguration.maximumPublications else {
                throw reader.error("publications", "\(publications.count) publications: at most \(SchedulerConfiguration.maximumPublications)")
            }
            var specs: [PublicationSpec] = []
            for (index, text) in publications.enumerated() {
                do { specs.append(try PublicationSpec.parse(text, defaultExponent: SettingsDefaults.exponent)) } catch {
                    throw reader.error("publications", "item \(index + 1): \(text): \(error)")
                }
            }
            config.publications = specs
        }
        if var hub = try reader.object("hub") {
            let url = try hub.requiredString("url"), key = try hub.requiredString("key")
            let ca = try hub.string("ca")
            do { config.hub = try HubSettings(url: url, key: key, certificateAuthority: ca) } catch {
                throw hub.error(error.field, error.message)
            }
            try hub.finish()
        }
        try reader.finish()
        return config
    }

    /// Reads and validates the file at `path`.
    static func load(_ path: String) throws(ConfigError) -> StaticConfig {
        try loadText(path).config
    }

    private static func loadText(_ path: String) throws(ConfigError) -> (config: StaticConfig, text: String) {
        let text: String
        do { text = try FileSystem.readText(path, limit: 256 * 1024) } catch {
            throw ConfigError(file: path, key: "", message: "cannot read: \(error.message)")
        }
        return (try parse(text, file: path), text)
    }

    /// The copy of the last config the box started from (or reloaded) with a board that
    /// loads, in the state directory.
    static let lastGoodName = "config.last-good.json5"

    /// A config file as read at start.
    struct AtStart {
        var config: StaticConfig
        /// The file's text, to keep as the last good copy once the box has started from it;
        /// nil when `config` is the last good copy itself.
        var text: String?
    }

    /// Reads `path` at start. When the file is broken or unreadable and the state directory
    /// holds a last good copy, the box starts from that copy with an error line, rather than
    /// not at all: an unattended box keeps broadcasting while someone fixes the file (then
    /// SIGHUP or a restart picks it up).
    static func loadAtStart(_ path: String, lastGoodIn stateDirectory: String?, log: (String) -> Void) throws(ConfigError) -> AtStart {
        do {
            let (config, text) = try loadText(path)
            return AtStart(config: config, text: text)
        } catch {
            guard let stateDirectory, let copy = lastGood(in: stateDirectory) else { throw error }
            log("error: \(error); starting from the last good configuration, \(stateDirectory)/\(lastGoodName) (fix the file, then SIGHUP or restart)")
            return AtStart(config: copy, text: nil)
        }
    }

    /// The last good copy in `stateDirectory`, if there is one that parses.
    static func lastGood(in stateDirectory: String) -> StaticConfig? {
        guard case .good(let text) = lastGoodFile(in: stateDirectory).version(at: "\(stateDirectory)/\(lastGoodName)") else { return nil }
        return try? parse(text, file: "\(stateDirectory)/\(lastGoodName)")
    }

    /// The last good copy, kept the way every file Nearcast must not lose is (``GuardedFile``);
    /// it is itself the previous copy of the config file, so it has none of its own.
    private static func lastGoodFile(in stateDirectory: String) -> GuardedFile {
        let path = "\(stateDirectory)/\(lastGoodName)"
        return GuardedFile(path: path, limit: 256 * 1024) { text in
            do { _ = try parse(text, file: path); return nil } catch { return "\(error)" }
        }
    }

    /// Keeps `text` as the last good config; called once the box has started (or reloaded)
    /// from it, so a file whose board does not load never replaces a good copy.
    static func rememberLastGood(_ text: String, in stateDirectory: String, log: (String) -> Void) {
        let file = lastGoodFile(in: stateDirectory)
        if case .good(let old) = file.version(at: file.path), old == text { return }
        do {
            try FileSystem.makeDirectories(stateDirectory, mode: 0o700)
            try file.save(text, keepPrevious: false)
        } catch {
            log("warning: \(file.path): last good configuration not kept: \(error)")
        }
    }

    /// Reads `path` again for SIGHUP; a good file whose board loads becomes the last good copy.
    static func reload(_ path: String, lastGoodIn stateDirectory: String, log: (String) -> Void) throws(ConfigError) -> StaticConfig {
        let (config, text) = try loadText(path)
        if (try? BoardLoader.load(config.board ?? "sim")) != nil { rememberLastGood(text, in: stateDirectory, log: log) }
        return config
    }

    /// What differs from `old`, one phrase per key (`audioLevel 50 -> 40`).
    func changes(from old: StaticConfig) -> [(key: String, change: String)] {
        func show<T>(_ value: T?) -> String { value.map { "\($0)" } ?? "(default)" }
        var list: [(String, String)] = []
        func compare<T: Equatable>(_ key: String, _ a: T?, _ b: T?) {
            if a != b { list.append((key, "\(key) \(show(a)) -> \(show(b))")) }
        }
        compare("name", old.name, name)
        compare("board", old.board, board)
        compare("mediums", old.mediums, mediums)
        compare("audioInterval", old.audioInterval, audioInterval)
        compare("audioLevel", old.audioLevel, audioLevel)
        compare("audioBand", old.audioBand?.name, audioBand?.name)
        compare("audioSweepEvery", old.audioSweepEvery, audioSweepEvery)
        compare("bleInterval", old.bleInterval, bleInterval)
        compare("txPower", old.txPower, txPower)
        compare("console", old.console, console)
        compare("debug", old.debug, debug)
        return list
    }
}
