/// How one LED shows a state: steady, blinking, or a code of N short pulses.
///
/// A pattern is a pure function of time, so the daemon's tick asks "lit at t?" and writes the
/// GPIO line only when the answer changes; nothing here allocates or reads a clock.
public enum LEDPattern: Sendable, Equatable {
    case off
    case on
    /// 1 Hz, half on: the heartbeat, or a state that will pass (device missing, retrying).
    case slowBlink
    /// 5 Hz, half on: a state that needs a person.
    case fastBlink
    /// `count` pulses of 150 ms (150 ms apart), then a 1 s gap: a code a technician can count.
    case pulses(count: Int)

    /// Whether the LED is lit `milliseconds` after the pattern's epoch (any monotonic time).
    public func isLit(atMilliseconds milliseconds: Int64) -> Bool {
        switch self {
        case .off: return false
        case .on: return true
        case .slowBlink: return Self.phase(milliseconds, 1_000) < 500
        case .fastBlink: return Self.phase(milliseconds, 200) < 100
        case .pulses(let count):
            guard count > 0 else { return false }
            let cycle = Int64(count) * 300 + 1_000
            let t = Self.phase(milliseconds, cycle)
            return t < Int64(count) * 300 && t % 300 < 150
        }
    }

    /// The pattern's name as the console and logs show it.
    public var name: String {
        switch self {
        case .off: return "off"
        case .on: return "on"
        case .slowBlink: return "slow-blink"
        case .fastBlink: return "fast-blink"
        case .pulses(let count): return "pulse-\(count)"
        }
    }

    private static func phase(_ t: Int64, _ period: Int64) -> Int64 {
        let r = t % period
        return r < 0 ? r + period : r
    }
}

/// The four status LEDs every board has, in the order of the LED table (docs/design.md).
public enum StatusLED: String, Sendable, CaseIterable {
    case status, audio, ble, consent

    /// How many there are.
    public static let count = 4

    /// The LED at `index` (0 to 3, table order).
    public init(index: Int) {
        switch index {
        case 0: self = .status
        case 1: self = .audio
        case 2: self = .ble
        default: self = .consent
        }
    }

    /// The LED's position in ``LEDPanel``.
    public var index: Int {
        switch self {
        case .status: return 0
        case .audio: return 1
        case .ble: return 2
        case .consent: return 3
        }
    }
}
