import Glibc
import NearcastCore

/// Where the status LEDs' levels go: GPIO lines through libgpiod on a board, a log file on the
/// simulated board. Levels are logical (lit or not); active-low wiring is the driver's business.
public protocol StatusLEDOutput: AnyObject {
    /// Lights or darkens `led`.
    func set(_ led: StatusLED, lit: Bool) throws(SystemError)
    /// Turns every LED off and gives the lines back (at exit).
    func release()
}

/// The simulated board's LEDs: every change appended to a log file as
/// `SECONDS led NAME on|off` (stream seconds from the shared ``StreamClock``), so tests and
/// newcomers can see what the lines would do.
public final class SimulatedStatusLEDs: StatusLEDOutput {
    public var path: String { log.path }
    private let log: SimulatedLogFile
    private let clock: StreamClock
    private var lit: [Bool] = Array(repeating: false, count: StatusLED.count)

    /// Starts a new log at `path` (replacing an old one).
    public init(path: String, clock: StreamClock) throws(SystemError) {
        log = try SimulatedLogFile(path: path)
        self.clock = clock
    }

    public func set(_ led: StatusLED, lit on: Bool) throws(SystemError) {
        lit[led.index] = on
        try log.record(clock.seconds, "led \(led.rawValue) \(on ? "on" : "off")")
    }

    public func release() {
        for index in 0..<StatusLED.count where lit[index] { try? set(StatusLED(index: index), lit: false) }
    }
}

/// One LED's GPIO line, as the board file gives it.
public struct GPIOLine: Sendable {
    public var led: StatusLED
    public var offset: Int
    public var activeLow: Bool
    public init(led: StatusLED, offset: Int, activeLow: Bool) {
        self.led = led
        self.offset = offset
        self.activeLow = activeLow
    }

    /// How errors name this line: "pinctrl-bcm2711 line 17 (status LED)".
    func subject(onChip chip: String) -> String { "\(chip) line \(offset) (\(led.rawValue) LED)" }
}
