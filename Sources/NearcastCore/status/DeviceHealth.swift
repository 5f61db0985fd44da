/// The audio device's state as the driver reports it, in rising order of priority: when several
/// hold, the LED shows the highest.
public enum AudioHealth: Int, Sendable, Comparable {
    case ok
    /// Underruns (or overruns) were counted recently.
    case underruns
    /// The device is gone (a USB card unplugged); the driver retries with backoff.
    case missing
    /// EACCES/EPERM opening the device.
    case permissionDenied

    public static func < (a: AudioHealth, b: AudioHealth) -> Bool { a.rawValue < b.rawValue }
}

/// The Bluetooth controller's state as the driver reports it, in rising order of priority.
public enum BluetoothHealth: Int, Sendable, Comparable {
    case ok
    /// ENETDOWN, ERFKILL, or the controller is down.
    case poweredOff
    /// ENODEV or EAFNOSUPPORT: no adapter (or no Bluetooth in the kernel).
    case noAdapter
    /// EPERM: no CAP_NET_RAW.
    case permissionDenied

    public static func < (a: BluetoothHealth, b: BluetoothHealth) -> Bool { a.rawValue < b.rawValue }
}

/// Everything the status LEDs show, gathered from the drivers and the scheduler.
public struct DeviceStates: Sendable, Equatable {
    /// Whether the box is on the air: consent granted and at least one publication.
    public var broadcasting = false
    /// An error the daemon cannot recover from by itself.
    public var fatal = false
    public var audio = AudioHealth.ok
    public var bluetooth = BluetoothHealth.ok
    /// Whether the operator allows broadcasting (the Nearby permission).
    public var consentGranted = true
    /// Whether the box's state (its beacon clock) cannot be saved: a full or read-only disk.
    /// The box goes on broadcasting, but a power cut now could lose what it should keep.
    public var stateNotSaved = false

    public init(broadcasting: Bool = false, fatal: Bool = false, audio: AudioHealth = .ok,
                bluetooth: BluetoothHealth = .ok, consentGranted: Bool = true, stateNotSaved: Bool = false) {
        self.broadcasting = broadcasting
        self.fatal = fatal
        self.audio = audio
        self.bluetooth = bluetooth
        self.consentGranted = consentGranted
        self.stateNotSaved = stateNotSaved
    }
}

/// The status model: device states in, one pattern per LED out, exactly as the LED table in docs/design.md:
///
/// | LED | off | on | slow blink (1 Hz) | fast blink (5 Hz) |
/// |---|---|---|---|---|
/// | status | stopped | state not saved (disk full or read-only) | broadcasting (heartbeat) | fatal error |
/// | audio | ok | permission denied on the sound device | device missing, retrying | underruns |
/// | ble | ok | permission denied (no CAP_NET_RAW) | powered off / rfkill | no adapter |
/// | consent | broadcasting allowed | broadcasting not allowed by the operator | - | - |
public enum StatusModel {
    /// The pattern `led` shows for `states`.
    public static func pattern(for led: StatusLED, _ states: DeviceStates) -> LEDPattern {
        switch led {
        case .status:
            // The table's unused "on" cell: steady light where the heartbeat should be, so a
            // technician sees that something needs a hand though the box still broadcasts.
            return states.fatal ? .fastBlink : states.stateNotSaved ? .on : states.broadcasting ? .slowBlink : .off
        case .audio:
            switch states.audio {
            case .ok: return .off
            case .permissionDenied: return .on
            case .missing: return .slowBlink
            case .underruns: return .fastBlink
            }
        case .ble:
            switch states.bluetooth {
            case .ok: return .off
            case .permissionDenied: return .on
            case .poweredOff: return .slowBlink
            case .noAdapter: return .fastBlink
            }
        case .consent:
            return states.consentGranted ? .off : .on
        }
    }
}

/// Turns a driver's running count of underruns into "underruns lately": the audio LED blinks
/// fast from the period an underrun is counted until `holdMilliseconds` pass without another,
/// long enough for a technician to see a single one.
public struct XrunWatch: Sendable, Equatable {
    public let holdMilliseconds: Int64
    private var lastCount = 0
    private var lastSeenAt: Int64?

    public init(holdMilliseconds: Int64 = 10_000) { self.holdMilliseconds = holdMilliseconds }

    /// Takes the driver's count at `now` (milliseconds on any monotonic scale); returns whether
    /// an underrun was counted within the hold time.
    public mutating func update(count: Int, atMilliseconds now: Int64) -> Bool {
        if count > lastCount { lastSeenAt = now }
        lastCount = count
        guard let seen = lastSeenAt else { return false }
        return now - seen < holdMilliseconds
    }
}
