import NearcastCore

/// What one source says about the box's settings; nil is "this source does not say". Each
/// field is named as the config file's key, and each is described once, in ``BoxSettings``:
/// the command line, the config file (``StaticConfig`` is this type), the defaults and the
/// console's saved settings are all layers of this one shape.
struct SettingsLayer: Equatable {
    /// The venue's name for the box (its room).
    var name: String?
    /// A board name or board file path.
    var board: String?
    var mediums: DiscoveryMediums?
    var mode: DiscoveryMode?
    /// Seconds between one publication's bursts.
    var audioInterval: Double?
    /// Burst peak level, % of full scale.
    var audioLevel: Int?
    /// The band(s) the bursts are sent in.
    var audioBand: BandSelection?
    /// Seconds between the field check's sweeps (`audio sweep every N`); no default, never saved.
    var audioSweepEvery: Int?
    /// BLE advertising interval, ms.
    var bleInterval: Int?
    /// Calibrated TX power at 0 m written into the frames, dBm.
    var txPower: Int?
    /// `stdio`, `none` or a serial device.
    var console: String?
    var debug: Bool?
    var publications: [PublicationSpec]?
    /// The hub message publications go through.
    var hub: HubSettings?
}
