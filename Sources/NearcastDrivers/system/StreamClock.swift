/// Stream time, in seconds, for the simulated drivers. They have no clock of their own: the
/// daemon's loop (or a command walking the LEDs) moves this one as the audio it renders moves,
/// so `ble.log` and `leds.log` line up with `audio.wav` sample for sample, however fast the
/// machine runs. Opened devices share it; nobody reaches into a driver to set its time.
public final class StreamClock {
    /// Seconds of stream time now.
    public var seconds: Double

    public init(seconds: Double = 0) { self.seconds = seconds }
}
