/// Sync candidates waiting for their audio: up to a fixed number at once, taken earliest first.
///
/// A candidate waits twice. First for its chirps' correlation profiles (`timingWait` baseband
/// samples after its first chirp): then the decoder measures where the burst begins (step 3)
/// and notes it here with the sample from which the burst's own audio is all in. Then for that
/// audio. Before, every candidate waited for the worst case (a first arrival at the far end of
/// the timing's search, the timing's whole reach added to a burst): about 0.16 s after the
/// burst's end where 0.02 s suffices for the usual burst. `worstCaseWait` bounds both waits
/// (how much silence flushes the decoder at the end of a stream).
///
/// When the queue is full a new candidate replaces the weakest one if it is stronger. Taking
/// them in the order they were heard matters in a room: when the multi-tone data correlate with a
/// chirp more strongly than the burst's own chirps, the true, earlier peak is still tried first.
///
/// Allocated once in `init`; nothing after allocates.
struct PendingCandidates {
    /// What step 3 measured of a candidate, and how the echo rule judged it then.
    typealias Timing = (firstArrival: Double, strongest: Double, scale: Double, reverberation: Float, likelyEcho: Bool)

    /// One waiting candidate.
    struct Entry {
        /// First-chirp window start and sync score.
        var first = 0
        var score: Float = 0
        /// The baseband sample count from which it can go on (to step 3, or, once measured, to decoding).
        var readyAt = 0
        var timing: Timing?
        /// A repeat of a kept burst, due here although the sync found nothing: the kept burst's
        /// time scale (nil for a sync candidate).
        var predictedScale: Double?
    }

    /// Baseband samples a candidate waits after its first chirp before its timing is measured.
    let timingWait: Int
    /// The longest a candidate can wait in all, after its first chirp.
    let worstCaseWait: Int
    /// The first `count` are in use, in no order.
    private var entries: [Entry]
    private var count = 0

    init(capacity: Int, timingWait: Int, worstCaseWait: Int) {
        self.timingWait = timingWait
        self.worstCaseWait = worstCaseWait
        entries = [Entry](repeating: Entry(), count: capacity)
    }

    /// Adds a candidate; when full, in place of the weakest if this one is stronger.
    mutating func enqueue(first: Int, score: Float, predictedScale: Double? = nil) {
        var slot = count
        if count == entries.count {
            slot = 0
            for index in 1..<count where entries[index].score < entries[slot].score { slot = index }
            guard score > entries[slot].score else { return }
        } else {
            count += 1
        }
        entries[slot] = Entry(first: first, score: score, readyAt: first + timingWait, timing: nil, predictedScale: predictedScale)
    }

    /// The earliest waiting candidate (its slot and entry), or nil.
    func earliest() -> (slot: Int, entry: Entry)? {
        var next = -1
        for index in 0..<count where next < 0 || entries[index].first < entries[next].first { next = index }
        guard next >= 0 else { return nil }
        return (next, entries[next])
    }

    /// Notes what step 3 measured of the candidate in `slot`, and when its burst's audio is in.
    mutating func noteTiming(_ timing: Timing, readyAt: Int, slot: Int) {
        entries[slot].timing = timing
        entries[slot].readyAt = readyAt
    }

    /// Takes the candidate in `slot` out.
    mutating func remove(slot: Int) {
        count -= 1
        entries[slot] = entries[count]
    }
}
