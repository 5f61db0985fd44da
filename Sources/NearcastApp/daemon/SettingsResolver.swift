import NearcastCore

/// What one source says about the box's settings; nil is "this source does not say".
struct SettingsLayer: Equatable {
    var mediums: DiscoveryMediums?
    var mode: DiscoveryMode?
    /// Burst peak level, % of full scale.
    var audioLevel: Int?
    /// The band(s) the bursts are sent in.
    var audioBand: BandSelection?
    /// Seconds between the field check's sweeps (`audio sweep every N`); no default, never saved.
    var audioSweepEvery: Int?
    var bleIntervalMilliseconds: Int?
    var txPower: Int?
    var debug: Bool?
    /// Seconds between one publication's bursts.
    var interval: Double?
    /// `stdio`, `none` or a serial device.
    var console: String?
    var publications: [PublicationSpec]?
    /// The hub message publications go through.
    var hub: HubSettings?
    /// The venue's name for the box (its room).
    var name: String?
}

/// The settings the daemon starts with, each from the layer that won, and which one that was.
struct ResolvedSettings: Equatable {
    var strategy: Strategy
    var audioLevel: Int
    var audioBand: BandSelection
    /// Seconds between field check sweeps from the start, nil for none.
    var audioSweepEvery: Int?
    var bleIntervalMilliseconds: Int
    var txPower: Int
    var debug: Bool
    var interval: Double
    var console: String
    var publications: [PublicationSpec]
    /// The hub, if any layer names one (there is no default hub).
    var hub: HubSettings?
    /// The venue's name for the box, if any layer names one.
    var name: String?
    /// Where each setting came from, by name (`"audioLevel": "saved settings"`), for the log.
    var sources: [String: String]
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
    struct Layer {
        let name: String
        let values: SettingsLayer
    }

    static func resolve(board: Board, config: SettingsLayer, commandLine: SettingsLayer, saved: SettingsLayer?) -> ResolvedSettings {
        let defaults = SettingsLayer(mediums: .both, mode: .broadcast, audioLevel: SettingsDefaults.audioLevel, audioBand: board.audioBand,
                                     bleIntervalMilliseconds: SettingsDefaults.bleIntervalMilliseconds, txPower: board.bluetooth.txPower,
                                     debug: false, interval: SettingsDefaults.interval, console: "stdio",
                                     publications: [SettingsDefaults.publication(over: .both, hasHub: false)])
        var layers = [Layer(name: "default", values: defaults), Layer(name: "config file", values: config),
                      Layer(name: "command line", values: commandLine)]
        if let saved { layers.append(Layer(name: "saved settings", values: saved)) }
        var sources: [String: String] = [:]
        /// The last layer that says something about a setting.
        func pick<Value>(_ name: String, _ value: (SettingsLayer) -> Value?) -> Value {
            for layer in layers.reversed() {
                if let found = value(layer.values) {
                    sources[name] = layer.name
                    return found
                }
            }
            preconditionFailure("the defaults say every setting")
        }
        /// The last layer that says something about an optional setting with no default.
        func pickIfSaid<Value>(_ name: String, _ value: (SettingsLayer) -> Value?) -> Value? {
            for layer in layers.reversed() {
                if let found = value(layer.values) {
                    sources[name] = layer.name
                    return found
                }
            }
            return nil
        }
        let strategy = Strategy(mediums: pick("mediums") { $0.mediums }, mode: pick("mode") { $0.mode })
        let hub = pickIfSaid("hub") { $0.hub }
        var publications = pick("publications") { $0.publications }
        if let explicit = commandLine.publications {
            publications = explicit
            sources["publications"] = "command line"
        } else if sources["publications"] == "default" {
            // A box given a hub and no publication is there to be found through the hub.
            publications = [SettingsDefaults.publication(over: strategy.mediums, hasHub: hub != nil)]
        }
        return ResolvedSettings(
            strategy: strategy,
            audioLevel: pick("audioLevel") { $0.audioLevel },
            audioBand: pick("audioBand") { $0.audioBand },
            audioSweepEvery: pickIfSaid("audioSweepEvery") { $0.audioSweepEvery },
            bleIntervalMilliseconds: pick("bleInterval") { $0.bleIntervalMilliseconds },
            txPower: pick("txPower") { $0.txPower },
            debug: layers.contains { $0.values.debug == true },
            interval: pick("interval") { $0.interval },
            console: pick("console") { $0.console },
            publications: publications,
            hub: hub,
            name: pickIfSaid("name") { $0.name },
            sources: sources)
    }
}

extension StaticConfig {
    /// What the config file says, as a settings layer.
    var layer: SettingsLayer {
        SettingsLayer(mediums: mediums, audioLevel: audioLevel, audioBand: audioBand, audioSweepEvery: audioSweepEvery,
                      bleIntervalMilliseconds: bleInterval, txPower: txPower,
                      debug: debug, interval: audioInterval, console: console, publications: publications, hub: hub, name: name)
    }
}

extension SavedSettings {
    /// What a technician saved, as a settings layer (it says every tunable it holds).
    var layer: SettingsLayer {
        SettingsLayer(mediums: strategy.mediums, mode: strategy.mode, audioLevel: audioLevel, audioBand: audioBand,
                      bleIntervalMilliseconds: bleIntervalMilliseconds, txPower: txPower, debug: debug,
                      publications: publications)
    }
}
