/// What the last bursts leave behind, and what a candidate after them is taken for.
///
/// A room's tail keeps tripping the sync for a few hundred milliseconds after a burst. So:
/// - no candidate starts inside a burst already decoded (its own chirps and data);
/// - a candidate less than half as strong as the last one tried, within `window` after it, is
///   taken for its echo and not decoded. One box sends bursts at least a second apart (the
///   default 50 % duty cap); a much weaker burst from another box within 0.3 s of a burst's end
///   is lost to this, as it would mostly be to that burst's echo anyway;
/// - a candidate no stronger than the last decoded burst, within `window` after it, is a likely
///   echo and gets the decoder's quick check first. Measured in the 0.8 s room: 8.5
///   demodulations per burst without it, 1.9 with it.
struct EchoSuppression {
    /// How long after a candidate a much weaker one is taken for its echo (baseband samples): a
    /// burst and the reverberation tail.
    let window: Int
    /// The last candidate tried (decoded or not): its first-chirp window start and sync score.
    private var lastAttemptFirst = Int.min / 2
    private var lastAttemptScore: Float = 0
    /// Where the echo of the last decoded burst ends (its start plus `window`) and its sync score.
    private var decodedEchoEnd = Int.min / 2
    private var decodedScore: Float = 0
    /// Where the last decoded burst's own span ends for new candidates (its start plus a burst
    /// less a chirp).
    private(set) var decodedBurstEnd = 0

    /// What a candidate is taken for.
    enum Verdict {
        /// The echo of the last candidate tried: not decoded.
        case echo
        /// Perhaps the echo of the last decoded burst: the quick check first.
        case likelyEcho
        /// A burst of its own.
        case fresh
    }

    init(rate: ModemRate, tailSeconds: Double) {
        window = rate.basebandBurstSamples + Int(tailSeconds * Double(rate.basebandRate))
    }

    /// Whether a candidate at `first` starts inside the last decoded burst.
    @inline(__always)
    func isInsideDecodedBurst(_ first: Int) -> Bool { first < decodedBurstEnd }

    /// Judges the candidate at `first` with sync score `score`; unless it is an echo, it becomes
    /// the last candidate tried.
    mutating func judge(first: Int, score: Float) -> Verdict {
        if first - lastAttemptFirst < window && score < 0.5 * lastAttemptScore { return .echo }
        lastAttemptFirst = first
        lastAttemptScore = score
        return first < decodedEchoEnd && score <= decodedScore ? .likelyEcho : .fresh
    }

    /// Notes a burst decoded from baseband sample `start` with sync score `score`.
    mutating func noteDecoded(start: Int, score: Float, rate: ModemRate) {
        decodedBurstEnd = start + rate.basebandBurstSamples - rate.basebandChirpSamples
        decodedEchoEnd = start + window
        decodedScore = score
    }
}
