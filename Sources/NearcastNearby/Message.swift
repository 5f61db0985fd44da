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

/// A problem the platform reports through the manager (``MessageManager/report(_:present:)``):
/// Nearby's three (microphone permission, Bluetooth permission, Bluetooth power) and the other
/// device states of the LED table in DESIGN.md. The manager's set of current problems is the
/// one source the status LEDs, `status` and the error handlers read.
///
/// ```swift
/// manager.report(.bluetoothPower, present: true)      // onBluetoothPowerError(true) runs
/// manager.currentProblems.bluetoothHealth              // .poweredOff: the ble LED blinks slowly
/// ```
public enum MediumProblem: String, Sendable, CaseIterable, CustomStringConvertible {
    /// The microphone refused us (EACCES/EPERM): listening by audio cannot work.
    case microphonePermission = "microphone-permission"
    /// The speaker's device refused us (EACCES/EPERM): nothing is played.
    case audioPermission = "audio-permission"
    /// A sound device is gone (a USB card unplugged, a wrong name); its driver retries.
    case audioMissing = "audio-missing"
    /// Underruns or overruns were counted in the last seconds.
    case audioUnderruns = "audio-underruns"
    /// The HCI socket refused us (no CAP_NET_RAW).
    case bluetoothPermission = "bluetooth-permission"
    /// The adapter is down or rfkill-blocked.
    case bluetoothPower = "bluetooth-power"
    /// No adapter (unplugged, or no Bluetooth in the kernel).
    case bluetoothNoAdapter = "bluetooth-no-adapter"

    /// The name `status --json` lists it by (the raw value).
    public var identifier: String { rawValue }

    public var description: String {
        switch self {
        case .microphonePermission: return "microphone permission denied"
        case .audioPermission: return "speaker permission denied"
        case .audioMissing: return "audio device missing"
        case .audioUnderruns: return "audio underruns"
        case .bluetoothPermission: return "bluetooth permission denied"
        case .bluetoothPower: return "bluetooth powered off"
        case .bluetoothNoAdapter: return "no bluetooth adapter"
        }
    }

    /// What the audio LED shows for this problem (nil: not an audio problem).
    public var audioHealth: AudioHealth? {
        switch self {
        case .microphonePermission, .audioPermission: return .permissionDenied
        case .audioMissing: return .missing
        case .audioUnderruns: return .underruns
        default: return nil
        }
    }

    /// What the ble LED shows for this problem (nil: not a Bluetooth problem).
    public var bluetoothHealth: BluetoothHealth? {
        switch self {
        case .bluetoothPermission: return .permissionDenied
        case .bluetoothPower: return .poweredOff
        case .bluetoothNoAdapter: return .noAdapter
        default: return nil
        }
    }
}

extension Set where Element == MediumProblem {
    /// The audio LED's state: the worst audio problem present.
    public var audioHealth: AudioHealth { reduce(.ok) { Swift.max($0, $1.audioHealth ?? .ok) } }
    /// The ble LED's state: the worst Bluetooth problem present.
    public var bluetoothHealth: BluetoothHealth { reduce(.ok) { Swift.max($0, $1.bluetoothHealth ?? .ok) } }
    /// The identifiers, sorted (as `status --json` lists them).
    public var identifiers: [String] { map { $0.identifier }.sorted() }
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
