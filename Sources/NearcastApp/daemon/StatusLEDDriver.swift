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
}
