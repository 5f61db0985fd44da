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
/// error is reported (file:line:column key) and the running configuration kept. The keys, their
/// checks and what a reload does with each are the table's (``BoxSettings``); the file's values
/// are a ``SettingsLayer``, the layer the resolver puts between the defaults and the command line.
typealias StaticConfig = SettingsLayer

extension StaticConfig {
    static let defaultPath = "/etc/nearcast/nearcast.json5"

    /// Parses and validates the text of a config file called `file`: every key the table of
    /// settings (``BoxSettings``) puts in the config file, in the table's order.
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
        for setting in BoxSettings.all where setting.isInConfigFile { try setting.readConfig(&reader, &config) }
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

    /// What differs from `old`, one phrase per key (`audioLevel 50 -> 40`), for every setting
    /// a reload compares (``BoxSetting/OnReload``), in the table's order.
    func changes(from old: StaticConfig) -> [(key: String, change: String)] {
        BoxSettings.all.filter { $0.onReload == .applied || $0.onReload == .needsRestart }.compactMap { setting in
            guard !setting.isSame(old, self) else { return nil }
            return (setting.key, "\(setting.key) \(setting.shown(old) ?? "(default)") -> \(setting.shown(self) ?? "(default)")")
        }
    }
}
