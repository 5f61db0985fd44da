/// A problem the platform reports through the manager (``MessageManager/report(_:present:)``):
/// Nearby's three (microphone permission, Bluetooth permission, Bluetooth power) and the other
/// device states of the LED table in docs/design.md. The manager's set of current problems is the
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
