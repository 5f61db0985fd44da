import NearcastCore
import NearcastDrivers

/// Opens a board's status LEDs: simulated (changes recorded in `<state>/leds.log`) when the
/// board's GPIO driver is `sim`, libgpiod otherwise. Errors name the board file's entry.
enum StatusLEDDriver {
    static func open(board: Board, state: StateDirectory) throws(CommandFailure) -> (StatusLEDOutput, String) {
        if board.gpio.driver == "sim" {
            let path = state.file("leds.log")
            do {
                return (try SimulatedStatusLEDs(path: path), "simulated GPIO, changes recorded in \(path)")
            } catch {
                throw CommandFailure("\(path): \(error)")
            }
        }
        let lines = StatusLED.allCases.compactMap { led in
            board.leds[led].map { GPIOStatusLEDs.Line(led: led, offset: $0.line, activeLow: $0.activeLow) }
        }
        do {
            let leds = try GPIOStatusLEDs(chip: board.gpio.chip, lines: lines)
            return (leds, "GPIO chip \(board.gpio.chip), lines "
                    + lines.map { "\($0.led.rawValue)=\($0.offset)\($0.activeLow ? " (active low)" : "")" }.joined(separator: " "))
        } catch {
            let entry = error.subject == board.gpio.chip ? "gpio.chip" : "leds"
            throw CommandFailure("\(board.source): \(entry): \(error)")
        }
    }

    /// Lights each LED alone for `step` seconds, in table order (`leds test`, `selftest`);
    /// `lit` hears each LED as it lights. A failure names the LED.
    static func walk(_ leds: StatusLEDOutput, step: Double, lit: (StatusLED) -> Void = { _ in }) throws(WalkFailure) {
        for (index, led) in StatusLED.allCases.enumerated() {
            (leds as? SimulatedStatusLEDs)?.now = Double(index) * step
            do {
                try leds.set(led, lit: true)
                lit(led)
                MonotonicClock.sleep(until: MonotonicClock.nanoseconds() + Int64(step * 1e9))
                (leds as? SimulatedStatusLEDs)?.now = Double(index + 1) * step
                try leds.set(led, lit: false)
            } catch {
                throw WalkFailure(led: led, error: error)
            }
        }
    }

    /// An LED the walk could not light.
    struct WalkFailure: Error {
        let led: StatusLED
        let error: SystemError
    }
}
