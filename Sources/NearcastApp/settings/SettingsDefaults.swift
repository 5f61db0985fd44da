import NearcastCore
import NearcastNearby

/// The settings' defaults, named once: what the box uses when neither the command line, the
/// config file nor the console's saved settings say otherwise.
enum SettingsDefaults {
    /// Burst peak level, % of full scale.
    static let audioLevel = 50
    /// BLE advertising interval (ms): the beacon floor of Core 4.x.
    static let bleIntervalMilliseconds = 100
    /// Seconds between one publication's bursts (stretched by the 50 % duty cap to 1.44 s).
    static let interval = 1.0
    /// Seconds a token may go unheard before a subscription reports it lost.
    static let lostAfter = 10.0
    /// EID rotation exponent K (a new EID every 2^K s).
    static let exponent = 10
    /// The intervals `audio sweep every`, `--sweep-every` and the config's `audioSweepEvery` take,
    /// seconds: at least a sweep's 3.94 s and a burst, at most an hour.
    static let sweepIntervals = 5...3_600
    /// Why a name the venue gives the box (`--name`, the config's `name`) cannot be used, or nil:
    /// 1-100 characters, none of them a control character (it goes to the hub with every heartbeat).
    static func nameProblem(_ name: String) -> String? {
        guard !name.isEmpty, name.count <= 100 else { return "'\(name.prefix(40))': give 1 to 100 characters, e.g. \"Room 101\"" }
        guard !name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            return "'\(name.prefix(40))' holds a control character"
        }
        return nil
    }
    /// The direct token published when nothing else is asked for: "nearcast".
    static let payload = "6e65617263617374"

    /// The publication a box makes when nothing names one: with a hub, the hub identity's EID
    /// (what phones resolve to the box's beacon, and its show); without, the direct token
    /// "nearcast".
    static func publication(over mediums: DiscoveryMediums, hasHub: Bool) -> PublicationSpec {
        hasHub ? PublicationSpec(kind: .hubBeacon, mediums: mediums)
            : PublicationSpec(kind: .direct((try? Token(kind: .direct, hex: payload))!), mediums: mediums)
    }
}
