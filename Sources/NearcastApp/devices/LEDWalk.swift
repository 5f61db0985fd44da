import NearcastCore
import NearcastDrivers

/// Lights each LED alone for `step` seconds, in table order (`leds test`, `selftest`), moving
/// `clock` with it so the simulated LEDs' log shows the walk's own time. `lit` hears each LED
/// as it lights. A failure names the LED.
enum LEDWalk {
    static func run(_ leds: StatusLEDOutput, step: Double, clock: StreamClock,
                    lit: (StatusLED) -> Void = { _ in }) throws(Failure) {
        for (index, led) in StatusLED.allCases.enumerated() {
            clock.seconds = Double(index) * step
            do {
                try leds.set(led, lit: true)
                lit(led)
                MonotonicClock.sleep(until: MonotonicClock.nanoseconds() + Int64(step * 1e9))
                clock.seconds = Double(index + 1) * step
                try leds.set(led, lit: false)
            } catch {
                throw Failure(led: led, error: error)
            }
        }
    }

    /// An LED the walk could not light.
    struct Failure: Error {
        let led: StatusLED
        let error: SystemError
    }
}
