/// Keeps an audio thread from running ahead of real time on a device that does not pace it.
///
/// A sound card blocks `snd_pcm_writei`/`readi` until it has room or data, which paces the
/// driver. ALSA's `file` and `null` PCMs (the tests, a board with no speaker) and a missing
/// device (samples discarded while the driver retries) do not: there the thread would spin.
/// The pacer lets `aheadFrames` plus `speed` × the elapsed time through and sleeps beyond it.
/// With `speed` a little above 1 a real card always blocks first, even one whose crystal runs
/// fast against the system clock, so the pacer never starves it.
struct RealTimePacer {
    let sampleRate: Int
    let speed: Double
    let aheadFrames: Int
    private var startNanoseconds: Int64 = 0
    private var frames = 0

    init(sampleRate: Int, speed: Double, aheadFrames: Int) {
        self.sampleRate = sampleRate
        self.speed = speed
        self.aheadFrames = aheadFrames
        restart()
    }

    /// Starts counting again from now.
    mutating func restart() {
        startNanoseconds = MonotonicClock.nanoseconds()
        frames = 0
    }

    /// Counts `count` more frames and sleeps until real time has caught up with them.
    mutating func pass(_ count: Int) {
        frames += count
        let due = frames - aheadFrames
        guard due > 0 else { return }
        let deadline = startNanoseconds + Int64(Double(due) * 1e9 / (Double(sampleRate) * speed))
        if deadline > MonotonicClock.nanoseconds() { MonotonicClock.sleep(until: deadline) }
    }
}
