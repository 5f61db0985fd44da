/// The coarse time scale and the first arrival of a burst, from its two chirps' correlation
/// profiles around a sync candidate.
///
/// In a room each chirp's correlation is not one peak but the room's impulse response in the
/// band: the direct sound, then reflections, some stronger than it. So the time scale is not
/// read from two peaks but from how far the second profile must be slid to match the first
/// (their cross-correlation over −20...+80 ms, each cleared of twice its noise floor measured
/// 80-30 ms before), and the burst's start is the *first* arrival: the earliest point within
/// 15 ms before the strongest of the aligned profiles that reaches 35 % of it, climbed to its
/// local maximum. (Taking the strongest reflection instead put the symbol windows up to 15 ms
/// late in the lab's rooms.)
///
/// All buffers are allocated in `init`; `measure` does not allocate.
final class ChirpPairTiming {
    let rate: ModemRate
    /// The band's ``ModemBand/chirpPairSpreadSeconds``.
    let pairSpreadSeconds: Double
    /// Largest shift (baseband samples) of the second profile against the first.
    let maximumLag: Int
    /// Windows before the candidate the profiles start (80 ms), and the other spans.
    private let before: Int
    private let floorEnd: Int
    private let searchBefore: Int
    private let firstArrivalReach: Int
    /// ±1 ms, and 2...40 ms after the first arrival: the spans of the reverberation measure.
    private let directHalfWidth: Int
    private let tailStart: Int
    private let tailEnd: Int
    private var first: [Float]
    private var second: [Float]
    /// The profiles with their noise floors removed.
    private var clearedFirst: [Float]
    private var clearedSecond: [Float]
    /// Baseband samples after the candidate's first-chirp window that `measure` reads.
    let reachAfter: Int
    /// The largest time scale `measure` can return (either sign): the largest shift of the
    /// profiles. It exceeds ``ModemProfile/maximumTimeScalePPM`` by the pairing's slack.
    let largestScale: Double

    /// The share of the strongest aligned peak the first arrival must reach.
    static let firstArrivalShare: Float = 0.35
    /// Multiples of its noise floor removed from each profile before they are matched.
    static let floorMultiple: Float = 2

    init(rate: ModemRate, band: ModemBand, pairSlack: Int) {
        pairSpreadSeconds = band.chirpPairSpreadSeconds
        self.rate = rate
        maximumLag = pairSlack
        let fb = Double(rate.basebandRate)
        before = Int(0.080 * fb)
        floorEnd = Int(0.030 * fb)
        searchBefore = Int(0.020 * fb)
        firstArrivalReach = Int(0.015 * fb)
        directHalfWidth = Int(0.001 * fb)
        tailStart = Int(0.002 * fb)
        tailEnd = Int(0.040 * fb)
        let chirp = rate.basebandChirpSamples
        let length = 2 * before + chirp + maximumLag + 1
        // Each its own buffer: copies of one array share it until the first write, and that
        // write (in `measure`, a decoder's first candidate, on the audio thread) would allocate.
        first = [Float](repeating: 0, count: length)
        second = [Float](repeating: 0, count: length)
        clearedSecond = [Float](repeating: 0, count: length)
        clearedFirst = [Float](repeating: 0, count: length)
        reachAfter = before + 2 * chirp + maximumLag + 1
        largestScale = Double(maximumLag) / (fb * abs(pairSpreadSeconds))
    }

    /// Measures the candidate whose first chirp's window starts at baseband sample `u`.
    /// `history` holds the decoder's sync scores (scored every `stride` windows); `correlate`
    /// scores the windows between. Returns the first arrival (a
    /// first-chirp window start, baseband samples), the strongest arrival, the time scale ε, and how reverberant the first chirp's
    /// profile is: its energy 2-40 ms after the first arrival over the energy within ±1 ms of
    /// it (white noise alone gives 0.3-0.6, the bar's rooms 2-10).
    func measure(around u: Int, stride: Int, history: BasebandHistory,
                 correlate: (Int) -> (first: Float, second: Float)) -> (firstArrival: Double, strongest: Double, scale: Double, reverberation: Float) {
        let chirp = rate.basebandChirpSamples
        let origin = u - before
        let length = first.count
        let lags = maximumLag
        first.withUnsafeMutableBufferPointer { p1 in
            second.withUnsafeMutableBufferPointer { p2 in
                history.firstScores.withUnsafeBufferPointer { s1 in
                    history.secondScores.withUnsafeBufferPointer { s2 in
                        for index in 0..<length {
                            let window = origin + index
                            if window % stride == 0 {
                                p1[index] = s1[history.slot(window)]
                                p2[index] = s2[history.slot(window)]
                            } else {
                                (p1[index], p2[index]) = correlate(window)
                            }
                        }
                    }
                }
            }
        }
        return first.withUnsafeBufferPointer { p1 in
            second.withUnsafeBufferPointer { p2 in
                clearedFirst.withUnsafeMutableBufferPointer { clearedFirst in
                    clearedSecond.withUnsafeMutableBufferPointer { clearedSecond in
                        // Noise floors, 80-30 ms before the candidate.
                        var floor1: Float = 0, floor2: Float = 0
                        let floorCount = before - floorEnd
                        for index in 0..<floorCount {
                            floor1 += p1[index]
                            floor2 += p2[index + chirp]
                        }
                        floor1 /= Float(floorCount)
                        floor2 /= Float(floorCount)
                        for index in 0..<length {
                            clearedFirst[index] = max(p1[index] - Self.floorMultiple * floor1, 0)
                            clearedSecond[index] = max(p2[index] - Self.floorMultiple * floor2, 0)
                        }
                        // Slide the second profile against the first over −20...+80 ms.
                        let a = before - searchBefore, b = 2 * before
                        var bestLag = 0
                        var best = -Float.infinity
                        var scores = (Float(0), Float(0), Float(0))     // at bestLag − 1, bestLag, bestLag + 1
                        var previous: Float = 0
                        for lag in -lags...lags {
                            var sum: Float = 0
                            for index in a..<b { sum += clearedFirst[index] * clearedSecond[index + chirp + lag] }
                            if sum > best {
                                best = sum
                                bestLag = lag
                                scores = (previous, sum, 0)
                            } else if lag == bestLag + 1 {
                                scores.2 = sum
                            }
                            previous = sum
                        }
                        var lag = Double(bestLag)
                        if bestLag > -lags && bestLag < lags {
                            let curvature = scores.0 - 2 * scores.1 + scores.2
                            if curvature < 0 { lag += Double(0.5 * (scores.0 - scores.2) / curvature) }
                        }
                        let fb = Double(rate.basebandRate)
                        let scale = lag / (fb * pairSpreadSeconds)
    
                        // The first arrival in the aligned profiles.
                        let aligned = chirp + bestLag
                        var strongest = a
                        for index in a..<b where p1[index] + p2[index + aligned] > p1[strongest] + p2[strongest + aligned] {
                            strongest = index
                        }
                        let peak = p1[strongest] + p2[strongest + aligned]
                        var arrival = strongest
                        for index in max(a, strongest - firstArrivalReach)...strongest
                        where p1[index] + p2[index + aligned] >= Self.firstArrivalShare * peak {
                            arrival = index
                            break
                        }
                        while arrival + 1 < b && p1[arrival + 1] + p2[arrival + 1 + aligned] > p1[arrival] + p2[arrival + aligned] {
                            arrival += 1
                        }
                        var direct: Float = 0, tail: Float = 0
                        for index in max(0, arrival - directHalfWidth)...min(length - 1, arrival + directHalfWidth) {
                            direct += p1[index]
                        }
                        for index in (arrival + tailStart)..<min(length, arrival + tailEnd) { tail += p1[index] }
                        let reverberation = direct > 0 ? tail / direct : 0
                        return (Double(origin + arrival), Double(origin + strongest), scale, reverberation)
                    }
                }
            }
        }
    }
}
