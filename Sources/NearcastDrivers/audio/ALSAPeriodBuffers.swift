/// One period's samples on an ALSA stream's thread: the floats the ring holds and the S16_LE
/// frames the device takes, allocated once when the thread starts, so that nothing is allocated
/// per period. The two conversions are the only places samples change format.
struct ALSAPeriodBuffers: ~Copyable {
    /// Floats in -1...1, as the ring and the modem see samples.
    let floats: UnsafeMutableBufferPointer<Float>
    /// Signed 16-bit frames, as the device reads and writes them (mono).
    let frames: UnsafeMutablePointer<Int16>
    let capacity: Int

    init(frames capacity: Int) {
        self.capacity = capacity
        floats = .allocate(capacity: capacity)
        frames = .allocate(capacity: capacity)
        floats.initialize(repeating: 0)
        frames.initialize(repeating: 0, count: capacity)
    }

    deinit {
        floats.deallocate()
        frames.deallocate()
    }

    /// Capture: the first `count` frames as floats (-32768 is -1).
    func framesToFloats(_ count: Int) {
        for i in 0..<count { floats[i] = Float(frames[i]) / 32_768 }
    }

    /// Playback: the first `count` floats as frames, clipped to -1...1 and rounded, then silence
    /// up to `total` frames (a period played when fewer samples were waiting).
    func floatsToFrames(_ count: Int, paddedTo total: Int) {
        for i in 0..<count { frames[i] = Int16((max(-1, min(1, floats[i])) * 32_767).rounded()) }
        for i in count..<max(count, total) { frames[i] = 0 }
    }
}
