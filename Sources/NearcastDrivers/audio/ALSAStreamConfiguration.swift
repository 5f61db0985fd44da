/// What an ALSA stream is opened with, in either direction: the device by ALSA name, the rate,
/// the period and how many periods the device buffers. Playback and capture are opened from one
/// of these along one path (``ALSAStreamThread``, ``ALSADeviceKeeper``, ``ALSAPCM``), so the two
/// directions cannot drift apart in how they open, retry or report a device.
struct ALSAStreamConfiguration: Sendable {
    /// Which way the samples go.
    enum Direction: Sendable {
        case playback, capture

        /// The audio thread's name, as `top -H` and crash reports show it.
        var threadName: String { self == .playback ? "nearcast-play" : "nearcast-capture" }
    }

    var direction: Direction
    var device: String
    var sampleRate: Int
    var periodFrames: Int
    var bufferPeriods: Int

    init(_ direction: Direction, device: String, sampleRate: Int, periodFrames: Int, bufferPeriods: Int) {
        self.direction = direction
        self.device = device
        self.sampleRate = sampleRate
        self.periodFrames = periodFrames
        self.bufferPeriods = bufferPeriods
    }
}
