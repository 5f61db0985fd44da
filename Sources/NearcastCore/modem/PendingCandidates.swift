/// Sync candidates waiting for their audio: up to a fixed number at once, taken earliest first.
///
/// A candidate is decoded once the whole burst it may start (and the timing's reach around it)
/// is in the ring, `wait` baseband samples after its first chirp. When the queue is full a new
/// candidate replaces the weakest one if it is stronger. Taking them in the order they were
/// heard matters in a room: when the multi-tone data correlate with a chirp more strongly than
/// the burst's own chirps, the true, earlier peak is still tried first.
///
/// Allocated once in `init`; nothing after allocates.
struct PendingCandidates {
    /// Baseband samples a candidate waits after its first chirp before it is decoded.
    let wait: Int
    /// First-chirp window starts and sync scores; the first `count` are in use, in no order.
    private var firsts: [Int]
    private var scores: [Float]
    private var count = 0

    init(capacity: Int, wait: Int) {
        self.wait = wait
        firsts = [Int](repeating: 0, count: capacity)
        scores = [Float](repeating: 0, count: capacity)
    }

    /// Adds a candidate; when full, in place of the weakest if this one is stronger.
    mutating func enqueue(first: Int, score: Float) {
        var slot = count
        if count == firsts.count {
            slot = 0
            for index in 1..<count where scores[index] < scores[slot] { slot = index }
            guard score > scores[slot] else { return }
        } else {
            count += 1
        }
        firsts[slot] = first
        scores[slot] = score
    }

    /// The earliest waiting candidate (its slot, first-chirp window start and score), or nil.
    func earliest() -> (slot: Int, first: Int, score: Float)? {
        var next = -1
        for index in 0..<count where next < 0 || firsts[index] < firsts[next] { next = index }
        guard next >= 0 else { return nil }
        return (next, firsts[next], scores[next])
    }

    /// Takes the candidate in `slot` out.
    mutating func remove(slot: Int) {
        count -= 1
        firsts[slot] = firsts[count]
        scores[slot] = scores[count]
    }
}
