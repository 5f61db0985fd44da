import Glibc
import NearcastCore

/// ALSA capture on a thread of its own: the microphone of a real board, for scan mode.
///
/// The thread ("nearcast-capture") reads one period at a time with `snd_pcm_readi`, converts to
/// floats and puts them in a ``SharedSampleRing``, allocating nothing; the daemon's loop takes
/// what has arrived once per period (`read`) and feeds the streaming decoder. Overruns are
/// recovered with `snd_pcm_recover` and counted; samples the loop did not take in time are
/// dropped and counted. A lost or missing device is retried with a growing backoff, as for
/// ``ALSAPlayback``.
public final class ALSACapture: ALSAStream, AudioInput {
    /// Starts the capture thread ("nearcast-capture") on `device` (see ``ALSAStream``).
    public init(device: String, sampleRate: Int, periodFrames: Int, bufferPeriods: Int = 4,
                ringPeriods: Int = 16) throws(AudioDeviceError) {
        try super.init(ALSAStreamConfiguration(.capture, device: device, sampleRate: sampleRate, periodFrames: periodFrames,
                                               bufferPeriods: bufferPeriods),
                       ringPeriods: ringPeriods) { ALSACapture.capture(ring: $0, report: $1, configuration: $2) }
    }

    /// Samples captured but dropped because the loop did not take them in time.
    public var dropped: Int { stream.report.snapshot.dropped }

    public func read(into output: UnsafeMutableBufferPointer<Float>) -> Int { stream.ring.read(into: output) }

    public func stop() { stream.stop() }

    /// The thread's loop.
    private static func capture(ring: SharedSampleRing, report: ALSAStreamReport, configuration: ALSAStreamConfiguration) {
        let period = configuration.periodFrames
        let buffers = ALSAPeriodBuffers(frames: period)
        var keeper = ALSADeviceKeeper(configuration: configuration, report: report)
        while !report.stopRequested {
            guard let pcm = keeper.current() else {
                keeper.waitWhileMissing(period)
                continue
            }
            do {
                let got = try pcm.read(into: buffers.frames, frames: period)
                buffers.framesToFloats(got)
                let kept = ring.writeAvailable(UnsafeBufferPointer(rebasing: buffers.floats[0..<got]))
                if kept < got { report.update { $0.dropped += got - kept } }
                keeper.transferred(got)
            } catch {
                keeper.lost(error)
            }
        }
    }
}
