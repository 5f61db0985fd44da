import NearcastCore
import NearcastDrivers

/// Puts the status model's patterns on the LEDs each period and logs a line when a pattern
/// changes. The levels come from ``DaemonState/panel`` (the status model, or the walk `leds
/// test` started) fed with ``DaemonState/deviceStates``; nothing is allocated unless a
/// pattern changed. A failing LED line is logged once and broadcasting goes on.
final class LEDDisplay {
    private let leds: StatusLEDOutput?
    private var shown = FixedArray<Tuple4<LEDPattern>, LEDPattern>(repeating: .pulses(count: -1))   // none yet: the first update logs
    private var failureLogged = false

    init(leds: StatusLEDOutput?) { self.leds = leds }

    func update(_ state: DaemonState, atMilliseconds now: Int64, log: (String) -> Void) {
        state.panel.update(states: state.deviceStates, atMilliseconds: now) { led, lit in
            do { try leds?.set(led, lit: lit) } catch {
                if !failureLogged { log("error: \(error); the LEDs may be wrong, broadcasting continues") }
                failureLogged = true
            }
        }
        var changed = false
        for index in 0..<StatusLED.count where state.panel.pattern(of: StatusLED(index: index)) != shown[index] {
            shown[index] = state.panel.pattern(of: StatusLED(index: index))
            changed = true
        }
        if changed {
            log("leds: " + state.ledPatterns.map { "\($0.0)=\($0.1)" }.joined(separator: " "))
        }
    }

    /// Turns the LEDs off and gives the lines back (at exit).
    func release(log: (String) -> Void) {
        leds?.release()
        log("leds: all off" + (leds == nil ? "" : " and released"))
    }
}
