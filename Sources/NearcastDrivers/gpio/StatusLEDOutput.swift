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
