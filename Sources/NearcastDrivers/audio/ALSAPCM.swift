import CALSA
import Glibc
import NearcastCore

/// A failed libasound call: which step and its negative errno. The audio threads record this
/// (a plain value, nothing allocated); the daemon's loop turns it into words with
/// ``deviceError(device:)``.
public struct ALSAFailure: Error, Equatable, Sendable {
    /// The step that failed, named as the error message says it.
    public enum Step: String, Sendable {
        case open, hardwareParameters = "hw_params", access = "interleaved access", format = "S16_LE format"
        case channels = "1 channel", rate, period, bufferSize = "buffer size", prepare, write, read, recover
    }

    public let step: Step
    /// ALSA's negative-errno result.
    public let code: Int32

    public init(_ step: Step, _ code: Int32) {
        self.step = step
        self.code = code
    }

    /// The failure in the terms of the LED table: ENOENT/ENODEV/ENXIO (no such PCM, a card
    /// unplugged) is a missing device, EACCES/EPERM a permission problem, EINVAL while
    /// configuring a stream the device rejects.
    public func deviceError(device: String) -> AudioDeviceError {
        let reason = "\(step.rawValue): \(String(cString: snd_strerror(code)))"
        switch -code {
        case ENOENT, ENODEV, ENXIO, EBADFD: return .missing(device: device, reason: reason)
        case EACCES, EPERM: return .permissionDenied(device: device)
        case EINVAL where step != .open && step != .write && step != .read:
            return .unsupportedConfiguration(device: device, reason: reason)
        default: return .failed(device: device, reason: reason)
        }
    }
}

/// One open ALSA PCM, mono S16_LE, interleaved, in blocking mode: the part of the audio drivers
/// that talks to libasound. Owned by one thread at a time.
///
/// The device is named by ALSA name (`hw:CARD=Headphones,DEV=0`, `plughw:...`, or a PCM from
/// the ALSA configuration), never by card number, which moves between boots.
final class ALSAPCM {
    let periodFrames: Int
    let bufferFrames: Int
    /// Underruns (playback) or overruns (capture) recovered since open.
    private(set) var xruns = 0
    private let handle: OpaquePointer

    /// Opens and configures the device for playback or capture, as `configuration` says.
    init(_ configuration: ALSAStreamConfiguration) throws(ALSAFailure) {
        _ = nearcast_alsa_silence_errors()
        var opened: OpaquePointer?
        let stream = configuration.direction == .capture ? SND_PCM_STREAM_CAPTURE : SND_PCM_STREAM_PLAYBACK
        try Self.check(snd_pcm_open(&opened, configuration.device, stream, 0), .open)
        guard let opened else { throw ALSAFailure(.open, -ENODEV) }
        handle = opened
        do {
            (self.periodFrames, self.bufferFrames) = try Self.configure(opened, sampleRate: configuration.sampleRate,
                                                                        periodFrames: configuration.periodFrames,
                                                                        bufferPeriods: configuration.bufferPeriods)
        } catch {
            snd_pcm_close(opened)
            throw error
        }
    }

    deinit { snd_pcm_close(handle) }

    private static func configure(_ pcm: OpaquePointer, sampleRate: Int, periodFrames: Int,
                                  bufferPeriods: Int) throws(ALSAFailure) -> (period: Int, buffer: Int) {
        var params: OpaquePointer?
        try check(snd_pcm_hw_params_malloc(&params), .hardwareParameters)
        defer { snd_pcm_hw_params_free(params) }
        try check(snd_pcm_hw_params_any(pcm, params), .hardwareParameters)
        try check(snd_pcm_hw_params_set_access(pcm, params, SND_PCM_ACCESS_RW_INTERLEAVED), .access)
        try check(snd_pcm_hw_params_set_format(pcm, params, SND_PCM_FORMAT_S16_LE), .format)
        try check(snd_pcm_hw_params_set_channels(pcm, params, 1), .channels)
        try check(snd_pcm_hw_params_set_rate(pcm, params, UInt32(sampleRate), 0), .rate)
        var period = snd_pcm_uframes_t(periodFrames)
        var direction: Int32 = 0
        try check(snd_pcm_hw_params_set_period_size_near(pcm, params, &period, &direction), .period)
        var buffer = period * snd_pcm_uframes_t(bufferPeriods)
        try check(snd_pcm_hw_params_set_buffer_size_near(pcm, params, &buffer), .bufferSize)
        try check(snd_pcm_hw_params(pcm, params), .hardwareParameters)
        try check(snd_pcm_prepare(pcm), .prepare)
        return (Int(period), Int(buffer))
    }

    /// Plays all `frames`, blocking while the device is full; underruns (EPIPE) and suspends
    /// (ESTRPIPE) are recovered and counted, anything else is thrown.
    func write(_ samples: UnsafePointer<Int16>, frames: Int) throws(ALSAFailure) {
        var done = 0
        while done < frames {
            let result = snd_pcm_writei(handle, samples + done, snd_pcm_uframes_t(frames - done))
            if result >= 0 {
                done += Int(result)
            } else {
                try recover(Int32(result), step: .write)
            }
        }
    }

    /// Captures up to `frames`, blocking until the device has them; overruns are recovered and
    /// counted. Returns how many frames arrived.
    func read(into samples: UnsafeMutablePointer<Int16>, frames: Int) throws(ALSAFailure) -> Int {
        while true {
            let result = snd_pcm_readi(handle, samples, snd_pcm_uframes_t(frames))
            if result >= 0 { return Int(result) }
            try recover(Int32(result), step: .read)
        }
    }

    /// Plays what the device still holds, then stops it.
    func drain() { snd_pcm_drain(handle) }

    private func recover(_ code: Int32, step: ALSAFailure.Step) throws(ALSAFailure) {
        // snd_pcm_recover handles EINTR, EPIPE (an xrun) and ESTRPIPE (a suspend, waiting for the
        // resume); anything else (ENODEV: the card is gone) is the caller's to handle.
        guard code == -EINTR || code == -EPIPE || code == -ESTRPIPE else { throw ALSAFailure(step, code) }
        if code == -EPIPE { xruns += 1 }
        try Self.check(snd_pcm_recover(handle, code, 1), .recover)
    }

    private static func check(_ result: Int32, _ step: ALSAFailure.Step) throws(ALSAFailure) {
        if result < 0 { throw ALSAFailure(step, result) }
    }
}
