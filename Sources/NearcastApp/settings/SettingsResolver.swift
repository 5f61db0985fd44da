import NearcastCore

/// The settings the daemon starts with: every setting from the layer that won, and which one
/// that was. A setting with a default (every row of ``BoxSettings`` that has one) reads as its
/// value (`resolved.audioLevel`); one without (`hub`, `name`, `audioSweepEvery`) through
/// ``values`` (`resolved.values.hub`).
@dynamicMemberLookup
struct ResolvedSettings: Equatable {
    /// Every setting as resolved; nil only for a setting with no default that no layer names.
    var values: SettingsLayer
    /// Where each setting came from, by name (`"audioLevel": "saved settings"`), for the log.
    var sources: [String: String]

    /// A setting with a default: the defaults' layer always says it.
    subscript<Value>(dynamicMember path: KeyPath<SettingsLayer, Value?>) -> Value {
        guard let value = values[keyPath: path] else { preconditionFailure("a setting without a default read as if it had one") }
        return value
    }

    /// The box's strategy: its mediums and mode.
    var strategy: Strategy { Strategy(mediums: self.mediums, mode: self.mode) }
}

/// The one place the box's settings are layered: the built-in defaults (``SettingsDefaults``,
/// the board's TX power and audio band), then the static config file, then the command line, then what a
/// technician saved on the console, each overriding the ones before wherever it says anything.
/// Two rules on top, both deliberate: publications named on the command line replace the saved
/// ones (they are this run's explicit instruction; the saved ones come back at the next plain
/// start), and debug logging is on when any layer turns it on. The hub has no default: the box
/// publishes through one only when the config file or the command line names it; a box with a
/// hub and no publication named broadcasts its hub identity's EID (`hub`), not the direct token.
enum SettingsResolver {
    static func resolve(board: Board, config: SettingsLayer, commandLine: SettingsLayer, saved: SettingsLayer?) -> ResolvedSettings {
        var defaults = SettingsLayer()
        for setting in BoxSettings.all { setting.putDefault(board, &defaults) }
        var layers = [(name: "default", values: defaults), (name: "config file", values: config),
                      (name: "command line", values: commandLine)]
        if let saved { layers.append((name: "saved settings", values: saved)) }
        var resolved = ResolvedSettings(values: SettingsLayer(), sources: [:])
        // Each setting from the last layer that says something about it.
        for setting in BoxSettings.all {
            for layer in layers.reversed() where setting.layOver(layer.values, &resolved.values) {
                resolved.sources[setting.key] = layer.name
                break
            }
        }
        resolved.values.debug = layers.contains { $0.values.debug == true }
        if let explicit = commandLine.publications {
            resolved.values.publications = explicit
            resolved.sources["publications"] = "command line"
        } else if resolved.sources["publications"] == nil {
            // A box given a hub and no publication is there to be found through the hub.
            resolved.values.publications = [SettingsDefaults.publication(over: resolved.mediums, hasHub: resolved.values.hub != nil)]
            resolved.sources["publications"] = "default"
        }
        return resolved
    }
}
