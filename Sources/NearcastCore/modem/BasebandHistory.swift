/// The decoder's memory of the stream: the last `capacity` baseband samples and the two chirps'
/// sync scores of every window that ends among them.
///
/// The samples are stored twice, at slot i and i + capacity, so any window that starts in the
/// ring is contiguous in memory: the correlator reads a chirp's length and the resampler a
/// burst's span without wrapping. A score is kept by the sample its window starts at, modulo
/// `capacity` (a power of two, so a slot is a mask). Before the stream began the ring holds
/// zeros, which is what the stream is taken to begin with.
///
/// Allocated once in `init`; `append` does not allocate.
struct BasebandHistory {
    /// Samples kept: a power of two, at least two bursts and four chirps.
    let capacity: Int
    /// The baseband samples, each at its slot and again `capacity` later.
    private(set) var re: [Float]
    private(set) var im: [Float]
    /// ρ₁ and ρ₂ by window start, modulo `capacity` (0 for windows not scored).
    private(set) var firstScores: [Float]
    private(set) var secondScores: [Float]
    /// Baseband samples so far; the next one is sample `produced`.
    private(set) var produced = 0

    init(rate: ModemRate) {
        var capacity = 1
        while capacity < 2 * rate.basebandBurstSamples + 4 * rate.basebandChirpSamples { capacity <<= 1 }
        self.capacity = capacity
        re = [Float](repeating: 0, count: 2 * capacity)
        im = [Float](repeating: 0, count: 2 * capacity)
        firstScores = [Float](repeating: 0, count: capacity)
        secondScores = [Float](repeating: 0, count: capacity)
    }

    /// The ring slot of stream sample (or window start) `index`; negative indices wrap too.
    @inline(__always)
    func slot(_ index: Int) -> Int { index & (capacity - 1) }

    /// Appends the next baseband sample.
    @inline(__always)
    mutating func append(_ x: (re: Float, im: Float)) {
        let slot = slot(produced)
        re[slot] = x.re; re[slot + capacity] = x.re
        im[slot] = x.im; im[slot + capacity] = x.im
        produced += 1
    }

    /// Keeps the sync scores of the window that starts at `window`.
    @inline(__always)
    mutating func setScores(window: Int, first: Float, second: Float) {
        let slot = slot(window)
        firstScores[slot] = first
        secondScores[slot] = second
    }

    /// Whether samples `origin` through `last` are all in the ring (none still to come, none
    /// overwritten). An `origin` before the stream began is in it: those slots hold zeros.
    func holds(from origin: Int, through last: Int) -> Bool {
        last < produced && produced - origin <= capacity
    }
}
