import NearcastCore
import NearcastDrivers

/// Puts the status model's patterns on the LEDs each period and logs a line when a pattern
/// changes. The levels come from ``StatusLights`` (the status model, or the walk `leds test`
/// started); nothing is allocated unless a pattern changed. A failing LED line is logged once and broadcasting goes on.
final class LEDDisplay {
    private let leds: StatusLEDOutput?
    private var shown = FixedArray<Tuple4<LEDPattern>, LEDPattern>(repeating: .pulses(count: -1))   // none yet: the first update logs
    private var failureLogged = false

    init(leds: StatusLEDOutput?) { self.leds = leds }

    func update(_ lights: StatusLights, atMilliseconds now: Int64, log: (String) -> Void) {
        lights.update(atMilliseconds: now) { led, lit in
            do { try leds?.set(led, lit: lit) } catch {
                if !failureLogged { log("error: \(error); the LEDs may be wrong, broadcasting continues") }
                failureLogged = true
            }
        }
        var changed = false
        for index in 0..<StatusLED.count where lights.pattern(of: StatusLED(index: index)) != shown[index] {
            shown[index] = lights.pattern(of: StatusLED(index: index))
            changed = true
        }
        if changed {
            log("leds: " + lights.patterns.map { "\($0.0)=\($0.1)" }.joined(separator: " "))
        }
    }

    /// Turns the LEDs off and gives the lines back (at exit).
    func release(log: (String) -> Void) {
        leds?.release()
        log("leds: all off" + (leds == nil ? "" : " and released"))
    }
}
