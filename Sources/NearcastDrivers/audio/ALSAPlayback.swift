import Glibc
import NearcastCore

/// ALSA playback on a thread of its own: the speaker of a real board.
///
/// The daemon's loop renders periods and hands them over through a ``SharedSampleRing``;
/// `write` blocks while the ring is full, so the loop is paced by the sound card. The thread
/// ("nearcast-play") takes one period at a time from the ring, plays silence when nothing is
/// waiting, converts to S16_LE and writes it with `snd_pcm_writei`, allocating nothing. Underruns
/// are recovered with `snd_pcm_recover` and counted. When the device is lost or cannot be
/// opened (a USB card unplugged, a wrong name, no permission) the thread discards samples at
/// real time, so broadcasting on BLE goes on, and reopens the device with a growing backoff;
/// `status` says which state it is in.
public final class ALSAPlayback: ALSAStream, AudioOutput {
    /// Starts the playback thread ("nearcast-play") on `device` (see ``ALSAStream``).
    public init(device: String, sampleRate: Int, periodFrames: Int, bufferPeriods: Int = 4,
                ringPeriods: Int = 4) throws(AudioDeviceError) {
        try super.init(ALSAStreamConfiguration(.playback, device: device, sampleRate: sampleRate, periodFrames: periodFrames,
                                               bufferPeriods: bufferPeriods),
                       ringPeriods: ringPeriods) { ALSAPlayback.play(ring: $0, report: $1, configuration: $2) }
    }

    public func write(_ samples: UnsafeBufferPointer<Float>) throws(AudioDeviceError) {
        var index = 0
        while index < samples.count {
            let block = UnsafeBufferPointer(rebasing: samples[index..<min(samples.count, index + stream.ring.capacity)])
            let written = stream.ring.write(block)
            if written == 0 { throw .failed(device: device, reason: "playback has stopped") }
            index += written
        }
    }

    /// Plays what is waiting, lets the device play out its buffer, and stops the thread.
    public func drain() throws(AudioDeviceError) { stream.stop() }

    /// The thread's loop.
    private static func play(ring: SharedSampleRing, report: ALSAStreamReport, configuration: ALSAStreamConfiguration) {
        let period = configuration.periodFrames
        let buffers = ALSAPeriodBuffers(frames: period)
        var keeper = ALSADeviceKeeper(configuration: configuration, report: report)
        _ = keeper.current()
        // Half a period is how long a late block may be waited for before silence is played
        // instead: the device still holds several periods, so nothing is heard of the wait.
        let patience = Int64(period) * 500_000_000 / Int64(configuration.sampleRate)
        while true {
            let stopping = report.stopRequested
            let got = ring.read(into: buffers.floats, waitingUpTo: stopping ? 0 : patience)
            if stopping && got == 0 { break }
            guard let pcm = keeper.current() else {
                keeper.waitWhileMissing(period)
                continue
            }
            let frames = stopping ? got : period
            buffers.floatsToFrames(got, paddedTo: frames)
            do {
                try pcm.write(buffers.frames, frames: frames)
                keeper.transferred(frames)
            } catch {
                keeper.lost(error)
            }
        }
        keeper.pcm?.drain()
    }
}
