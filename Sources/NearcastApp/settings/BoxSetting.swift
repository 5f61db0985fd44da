import NearcastCore

/// One row of the box's table of settings (``BoxSettings/all``): what a setting is and where it
/// may come from, described once, with the small pieces of behaviour that tie it to its field of
/// ``SettingsLayer``. The command line's flags, the config file's keys, the layering of the
/// sources, the SIGHUP reload, the console's `config show` and docs/settings.md are read from
/// these rows, never written per setting.
///
/// A row is made with ``make(_:_:type:unit:range:default:sources:help:onReload:saved:console:consoleLabel:flags:config:flag:show:consoleValue:defaultValue:)``,
/// which turns the typed pieces (a key path into the layer, a config reader, a flag reader)
/// into the type-free closures below.
struct BoxSetting {
    /// Where a setting's value may come from, in the order they are laid over each other
    /// (board defaults first, saved settings last).
    enum Source: String, CaseIterable {
        case board, configFile = "config file", commandLine = "command line", console, savedSettings = "saved settings"
    }

    /// What a SIGHUP does when the config file changes the setting.
    enum OnReload: Equatable {
        /// Applied at once, without a gap in the broadcast.
        case applied
        /// Reported as needing a restart.
        case needsRestart
        /// Not compared: the running value has another owner (the console's publications), or
        /// the value holds a secret that a log line must not show (the hub's key).
        case notCompared
        /// The setting is not in the config file.
        case notInConfigFile
    }

    /// The config file's key, and the setting's name everywhere (`audioLevel`).
    let key: String
    /// The value's type as a user reads it: "whole number", "audio, ble or both".
    let type: String
    /// The values taken ("1-100"), or "" when the type says it all.
    let range: String
    /// The default as a user reads it ("50", "the board's", "none").
    let defaultText: String
    let sources: [Source]
    let help: String
    let onReload: OnReload
    /// Whether the console's `config save` keeps it in the saved settings.
    var keptByConfigSave: Bool { savedGroup != nil }
    /// For a setting `config save` keeps: the object it sits in, in the saved file ("" for the
    /// top level); nil for one it does not keep.
    let savedGroup: String?
    /// The console command that shows or sets it, if any ("audio level [0-100]").
    let console: String?
    /// How `config show` names it ("audio level"), when `config save` keeps it.
    let consoleLabel: String?
    /// The unit after its value ("ms", "dBm"), or "".
    let unit: String
    /// Its flags on `nearcast run`'s command line (one setting, the hub, takes three).
    let flags: [ArgumentSpec]

    /// Reads the key from the config file's object into the layer (nothing when absent).
    let readConfig: (inout ObjectReader, inout SettingsLayer) throws(ConfigError) -> Void
    /// Reads the flags into the command line's layer, checking what the argument parser cannot.
    let readFlags: (ParsedArguments, inout SettingsLayer) throws(UsageError) -> Void
    /// The layer's value as a log line shows it (`audioLevel 50 -> 40`), nil when unsaid.
    let shown: (SettingsLayer) -> String?
    /// Copies the value from `source` to `target` when `source` says it; returns whether it did.
    let layOver: (SettingsLayer, inout SettingsLayer) -> Bool
    /// Puts the built-in default for `board` (when there is one) into the defaults' layer.
    let putDefault: (Board, inout SettingsLayer) -> Void
    /// Whether two layers say the same of this setting.
    let isSame: (SettingsLayer, SettingsLayer) -> Bool
    /// The layer's value as the console shows it ("on" for true), nil when unsaid.
    let consoleShown: (SettingsLayer) -> String?
    /// Reads the saved file's key into the layer (the value for an older file's missing key).
    let readSaved: (inout ObjectReader, inout SettingsLayer) throws(ConfigError) -> Void
    /// The saved file's `key: value`, nil when the layer does not say it.
    let writeSaved: (SettingsLayer) -> String?
    /// Fills the value an older saved file would be read with, when the layer does not say it.
    let fillAbsent: (inout SettingsLayer) -> Void

    /// A row for the field at `path`. `config` reads the key (nil: not in the config file),
    /// `flag` reads the flags (nil: none, or read elsewhere), `show` writes a value for the log.
    static func make<Value: Equatable>(
        _ key: String, _ path: WritableKeyPath<SettingsLayer, Value?>,
        type: String, unit: String = "", range: String = "", default defaultText: String, sources: [Source], help: String,
        onReload: OnReload, saved: SavedForm<Value>? = nil, console: String? = nil, consoleLabel: String? = nil,
        flags: [ArgumentSpec] = [],
        config: ((inout ObjectReader, String) throws(ConfigError) -> Value?)?,
        flag: ((ParsedArguments) throws(UsageError) -> Value?)? = nil,
        show: @escaping (Value) -> String = { "\($0)" },
        consoleValue: ((Value) -> String)? = nil,
        defaultValue: @escaping (Board) -> Value? = { _ in nil }
    ) -> BoxSetting {
        BoxSetting(
            key: key, type: type, range: range, defaultText: defaultText, sources: sources, help: help, onReload: onReload,
            savedGroup: saved.map { $0.group ?? "" }, console: console, consoleLabel: consoleLabel, unit: unit, flags: flags,
            readConfig: { (reader: inout ObjectReader, layer: inout SettingsLayer) throws(ConfigError) in
                guard let config else { return }
                if let value = try config(&reader, key) { layer[keyPath: path] = value }
            },
            readFlags: { (arguments: ParsedArguments, layer: inout SettingsLayer) throws(UsageError) in
                guard let flag else { return }
                if let value = try flag(arguments) { layer[keyPath: path] = value }
            },
            shown: { layer in layer[keyPath: path].map(show) },
            layOver: { source, target in
                guard let value = source[keyPath: path] else { return false }
                target[keyPath: path] = value
                return true
            },
            putDefault: { board, layer in layer[keyPath: path] = defaultValue(board) },
            isSame: { $0[keyPath: path] == $1[keyPath: path] },
            consoleShown: { layer in layer[keyPath: path].map(consoleValue ?? show) },
            readSaved: { (reader: inout ObjectReader, layer: inout SettingsLayer) throws(ConfigError) in
                guard let saved else { return }
                layer[keyPath: path] = try saved.read(&reader, key) ?? saved.absent
            },
            writeSaved: { layer in
                guard let saved, let value = layer[keyPath: path] else { return nil }
                return "\(key): \(saved.write(value))"
            },
            fillAbsent: { layer in
                if layer[keyPath: path] == nil { layer[keyPath: path] = saved?.absent }
            })
    }

    /// Whether the config file may set it.
    var isInConfigFile: Bool { onReload != .notInConfigFile }

    /// How `config save`'s file (``SavedSettings``) holds a setting's value: the object it sits in
    /// (the strategy's two), how it is read (stricter than the config file: most are required),
    /// the value used when a file from an older build lacks it, and how it is written.
    struct SavedForm<Value> {
        /// The object the key sits in (`strategy`), nil for the top level.
        var group: String?
        /// Reads the key; nil when absent and not required.
        var read: (inout ObjectReader, String) throws(ConfigError) -> Value?
        /// The value when the file does not say it (nil: the file must).
        var absent: Value?
        /// The value as the file writes it: `50`, `"high"`.
        var write: (Value) -> String
    }

    /// Its line in the console's `config show` ("ble txpower -12 dBm"), for a setting
    /// `config save` keeps.
    func consoleLine(_ layer: SettingsLayer) -> String? {
        guard keptByConfigSave, let label = consoleLabel, let value = consoleShown(layer) else { return nil }
        return "\(label) \(value)" + (unit.isEmpty ? "" : " \(unit)")
    }
}
