import NearcastCore

/// What a publication sends: a fixed token, or Eddystone EIDs that rotate every 2^K seconds of
/// beacon time (computed from the box's identity key; only a resolver holding it can map them
/// back).
public enum Message: Sendable, Equatable, CustomStringConvertible {
    /// A direct token: the payload itself (an event id of 1 to 8 bytes).
    case direct(Token)
    /// Rotating EIDs from a 16-byte identity key and rotation exponent K (0-15).
    case eid(identityKey: [UInt8], exponent: Int)

    public var description: String {
        switch self {
        case .direct(let token): return "direct token \(token.hex)"
        case .eid(_, let exponent): return "EID, rotating every 2^\(exponent) = \(1 << exponent) s"
        }
    }
}

/// A token that a subscription heard.
public struct FoundMessage: Sendable, Equatable, CustomStringConvertible {
    /// The token heard.
    public var token: Token
    /// The medium it was first heard on.
    public var medium: DiscoveryMediums

    public init(token: Token, medium: DiscoveryMediums) {
        self.token = token
        self.medium = medium
    }

    public var description: String { "\(token) over \(medium)" }
}

/// The problems the platform reports through the manager's error handlers, as Nearby's
/// microphone permission, Bluetooth permission and Bluetooth power handlers did.
public enum MediumProblem: String, Sendable, CaseIterable, CustomStringConvertible {
    /// The sound device refused us (EACCES/EPERM): scanning by audio cannot work.
    case microphonePermission = "microphone permission denied"
    /// The HCI socket refused us (no CAP_NET_RAW).
    case bluetoothPermission = "bluetooth permission denied"
    /// The adapter is down or rfkill-blocked.
    case bluetoothPower = "bluetooth powered off"

    public var description: String { rawValue }
}

/// Why a publication or subscription could not be made.
public enum NearbyError: Error, Equatable, CustomStringConvertible {
    /// All publication slots are taken.
    case tooManyPublications(limit: Int)
    /// All subscription slots are taken.
    case tooManySubscriptions(limit: Int)
    /// The strategy has no medium or no mode.
    case emptyStrategy(Strategy)
    /// An identity key that is not 16 bytes, or an exponent outside 0-15.
    case badMessage(String)
    /// AES failed while computing an EID.
    case cipherFailed(String)

    public var description: String {
        switch self {
        case .tooManyPublications(let limit): return "already \(limit) publications: unpublish one first"
        case .tooManySubscriptions(let limit): return "already \(limit) subscriptions: cancel one first"
        case .emptyStrategy(let strategy): return "strategy \(strategy) uses no medium or no mode"
        case .badMessage(let why): return why
        case .cipherFailed(let why): return "EID computation failed: \(why)"
        }
    }
}
