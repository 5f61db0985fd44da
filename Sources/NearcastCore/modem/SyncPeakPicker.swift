/// Candidates from the sync scores: a paired score above the threshold that stays the largest
/// for one chirp length after it becomes a candidate.
///
/// The threshold is in units of the mean score of pure noise (1/L for a template of L baseband
/// samples; see ``BurstDecoder/Configuration/syncThresholdOverNoise``). The picker holds at most
/// one peak while it waits to see whether a larger one follows within a chirp.
struct SyncPeakPicker {
    /// The score a peak needs.
    let threshold: Float
    /// The chirp's length in baseband samples: how long a peak must stay the largest.
    private let chirp: Int
    /// The peak being followed: its first and second chirps' window starts and its score; no
    /// peak while `second` is negative.
    private var first = -1
    private var second = -1
    private var score: Float = 0

    init(rate: ModemRate, thresholdOverNoise: Float) {
        chirp = rate.basebandChirpSamples
        threshold = thresholdOverNoise / Float(rate.basebandChirpSamples)
    }

    /// Takes the paired score of the second-chirp window `second` (its first chirp at `first`).
    /// Returns the peak followed until now once this window is more than a chirp after it. A new
    /// peak is not started before `notBefore` (inside a burst already decoded).
    @inline(__always)
    mutating func consider(first: Int, second: Int, score: Float, notBefore: Int) -> (first: Int, score: Float)? {
        var finished: (first: Int, score: Float)?
        if self.second >= 0 {
            if second - self.second <= chirp {
                if score > self.score {
                    self.first = first
                    self.second = second
                    self.score = score
                }
                return nil
            }
            finished = (self.first, self.score)
            self.second = -1
        }
        if score >= threshold && first >= notBefore {
            self.first = first
            self.second = second
            self.score = score
        }
        return finished
    }
}
