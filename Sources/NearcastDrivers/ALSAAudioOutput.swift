import CALSA
import Glibc
import NearcastCore

/// ALSA playback through libasound: mono 16-bit samples at the board's rate, written in
/// periods with `snd_pcm_writei`. Underruns are recovered with `snd_pcm_recover` and counted;
/// errno values become ``AudioDeviceError`` cases (ENOENT/ENODEV: missing, EACCES/EPERM:
/// permission denied).
///
/// The device is named by ALSA name (`hw:CARD=Headphones,DEV=0`, `plughw:...`, or a PCM from
/// the ALSA configuration), never by card number, which moves between boots.
public final class ALSAAudioOutput: AudioOutput {
    public let device: String
    public let sampleRate: Int
    public private(set) var periodFrames: Int
    /// Underruns recovered since open.
    public private(set) var underruns = 0
    private var pcm: OpaquePointer?
    private var pcmSamples: [Int16]

    /// Opens and configures the device.
    public init(device: String, sampleRate: Int, periodFrames: Int, bufferPeriods: Int = 4) throws(AudioDeviceError) {
        self.device = device
        self.sampleRate = sampleRate
        self.periodFrames = periodFrames
        _ = nearcast_alsa_silence_errors()
        var handle: OpaquePointer?
        try Self.check(snd_pcm_open(&handle, device, SND_PCM_STREAM_PLAYBACK, 0), device, "open")
        pcm = handle
        pcmSamples = []
        do {
            try configure(bufferPeriods: bufferPeriods)
        } catch {
            snd_pcm_close(handle)
            pcm = nil
            throw error
        }
        pcmSamples = [Int16](repeating: 0, count: self.periodFrames)
    }

    deinit { if let pcm { snd_pcm_close(pcm) } }

    private func configure(bufferPeriods: Int) throws(AudioDeviceError) {
        var params: OpaquePointer?
        try Self.check(snd_pcm_hw_params_malloc(&params), device, "hw_params_malloc")
        defer { snd_pcm_hw_params_free(params) }
        try Self.check(snd_pcm_hw_params_any(pcm, params), device, "hw_params_any")
        try Self.check(snd_pcm_hw_params_set_access(pcm, params, SND_PCM_ACCESS_RW_INTERLEAVED), device,
                       "interleaved access")
        try Self.check(snd_pcm_hw_params_set_format(pcm, params, SND_PCM_FORMAT_S16_LE), device, "S16_LE format")
        try Self.check(snd_pcm_hw_params_set_channels(pcm, params, 1), device, "1 channel")
        try Self.check(snd_pcm_hw_params_set_rate(pcm, params, UInt32(sampleRate), 0), device, "rate \(sampleRate) Hz")
        var period = snd_pcm_uframes_t(periodFrames)
        var direction: Int32 = 0
        try Self.check(snd_pcm_hw_params_set_period_size_near(pcm, params, &period, &direction), device,
                       "period \(periodFrames) frames")
        var buffer = period * snd_pcm_uframes_t(bufferPeriods)
        try Self.check(snd_pcm_hw_params_set_buffer_size_near(pcm, params, &buffer), device, "buffer size")
        try Self.check(snd_pcm_hw_params(pcm, params), device, "hw_params")
        periodFrames = Int(period)
    }

    public func write(_ samples: UnsafeBufferPointer<Float>) throws(AudioDeviceError) {
        guard let pcm else { throw .failed(device: device, reason: "device is closed") }
        var index = 0
        while index < samples.count {
            let chunk = min(samples.count - index, pcmSamples.count)
            pcmSamples.withUnsafeMutableBufferPointer { out in
                for i in 0..<chunk {
                    let clipped = max(-1, min(1, samples[index + i]))
                    out[i] = Int16((clipped * 32_767).rounded())
                }
            }
            var done = 0
            while done < chunk {
                let result = pcmSamples.withUnsafeBufferPointer { out in
                    snd_pcm_writei(pcm, out.baseAddress! + done, snd_pcm_uframes_t(chunk - done))
                }
                if result >= 0 {
                    done += Int(result)
                    continue
                }
                let code = Int32(result)
                if code == -EINTR || code == -EPIPE || code == -ESTRPIPE {
                    if code == -EPIPE { underruns += 1 }
                    // snd_pcm_recover handles EINTR, EPIPE (underrun) and ESTRPIPE (suspend).
                    try Self.check(snd_pcm_recover(pcm, code, 1), device, "recover")
                    continue
                }
                try Self.check(code, device, "write")
            }
            index += chunk
        }
    }

    public func drain() throws(AudioDeviceError) {
        guard let pcm else { return }
        let result = snd_pcm_drain(pcm)
        snd_pcm_close(pcm)
        self.pcm = nil
        try Self.check(result, device, "drain")
    }

    /// Turns ALSA's negative-errno convention into ``AudioDeviceError``.
    static func check(_ result: Int32, _ device: String, _ what: String) throws(AudioDeviceError) {
        guard result < 0 else { return }
        let reason = "\(what): \(String(cString: snd_strerror(result)))"
        switch -result {
        case ENOENT, ENODEV, ENXIO: throw .missing(device: device, reason: reason)
        case EACCES, EPERM: throw .permissionDenied(device: device)
        case EINVAL where what != "open" && what != "write": throw .unsupportedConfiguration(device: device, reason: reason)
        default: throw .failed(device: device, reason: reason)
        }
    }
}
