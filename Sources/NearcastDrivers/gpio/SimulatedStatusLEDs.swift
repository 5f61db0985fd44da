import Glibc
import NearcastCore

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
