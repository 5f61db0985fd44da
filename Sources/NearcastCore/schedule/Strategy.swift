/// Which mediums a publication or subscription uses, the way Nearby's `GNSDiscoveryMediums` did.
public struct DiscoveryMediums: OptionSet, Sendable, Hashable, CustomStringConvertible {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// Near-ultrasonic audio bursts (speaker out, microphone in).
    public static let audio = DiscoveryMediums(rawValue: 1)
    /// BLE advertising (Eddystone frames out, advertising reports in).
    public static let ble = DiscoveryMediums(rawValue: 2)
    /// Both mediums: Nearby's default.
    public static let both: DiscoveryMediums = [.audio, .ble]

    /// Parses `audio`, `ble` or `both`.
    public init?(name: some StringProtocol) {
        switch name {
        case "audio": self = .audio
        case "ble": self = .ble
        case "both": self = .both
        default: return nil
        }
    }

    public var description: String {
        switch self {
        case .audio: return "audio"
        case .ble: return "ble"
        case .both: return "both"
        default: return "none"
        }
    }
}

/// Whether a strategy broadcasts its tokens, scans for others', or both, the way Nearby's
/// `GNSDiscoveryMode` did.
public struct DiscoveryMode: OptionSet, Sendable, Hashable, CustomStringConvertible {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// Send tokens (speaker, advertiser).
    public static let broadcast = DiscoveryMode(rawValue: 1)
    /// Listen for tokens (microphone, scanner).
    public static let scan = DiscoveryMode(rawValue: 2)
    /// Both.
    public static let both: DiscoveryMode = [.broadcast, .scan]

    /// Parses `broadcast`, `scan` or `both`.
    public init?(name: some StringProtocol) {
        switch name {
        case "broadcast": self = .broadcast
        case "scan": self = .scan
        case "both": self = .both
        default: return nil
        }
    }

    public var description: String {
        switch self {
        case .broadcast: return "broadcast"
        case .scan: return "scan"
        case .both: return "both"
        default: return "none"
        }
    }
}

/// How a publication or subscription uses the mediums: which ones, and in which direction.
///
/// ```swift
/// let strategy = Strategy(mediums: .ble, mode: .broadcast)
/// strategy.broadcasts(on: .audio)   // false
/// ```
public struct Strategy: Sendable, Hashable, CustomStringConvertible {
    public var mediums: DiscoveryMediums
    public var mode: DiscoveryMode

    public init(mediums: DiscoveryMediums = .both, mode: DiscoveryMode = .both) {
        self.mediums = mediums
        self.mode = mode
    }

    /// Both mediums, broadcast and scan (Nearby's default strategy).
    public static let `default` = Strategy()

    /// True when this strategy sends tokens on `medium`.
    public func broadcasts(on medium: DiscoveryMediums) -> Bool {
        mode.contains(.broadcast) && mediums.contains(medium)
    }

    /// True when this strategy listens for tokens on `medium`.
    public func scans(on medium: DiscoveryMediums) -> Bool {
        mode.contains(.scan) && mediums.contains(medium)
    }

    public var description: String { "mediums \(mediums), mode \(mode)" }
}
