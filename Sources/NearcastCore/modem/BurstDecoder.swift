/// The streaming burst decoder: push audio in chunks of any size, get tokens back.
///
/// Pipeline, all at the complex baseband rate after ``BasebandConverter``:
/// 1. **Sync**: at every baseband sample, the normalised correlation of the last chirp-length
///    window with the up-chirp and with the down-chirp templates (0...1, level-independent).
///    A down-chirp peak at d pairs with the best up-chirp peak u within ±`pairSlack` of d − L
///    (a time scale parts the two peaks, see ``ModemProfile/chirpPairSpreadSeconds``) and
///    scores `(ρ_up(u) + ρ_down(d)) / 2`.
/// 2. **Candidates**: a score above the threshold that stays the largest for one chirp length
///    either side becomes a candidate; up to ``maximumPendingCandidates`` wait for their audio.
/// 3. **Time scale**: both peaks are located to a fraction of a sample (parabola through the
///    peak and its neighbours); their distance gives the time scale ε and their mean the
///    burst's start. The burst is then resampled at 1/(1+ε) and turned back by the frequency
///    offset ε·f_c (``FractionalInterpolator``), so the symbols are demodulated as if sent
///    and received on the same clock.
/// 4. **Decode**: the symbol timing is refined over ±2 baseband samples, soft bits are computed
///    (``SoftDemodulator``), Viterbi-decoded, and the frame's CRC, kind and tail are checked
///    (``FrameCodec``). Only a frame that passes all of them is reported.
/// 5. **When that fails**: the other plausible pairs of sync peaks are tried, and the one whose
///    symbols look most like tones is decoded (see `decode`); a frame whose CRC still fails gets
///    a coherent second pass with the carrier phase fitted to its re-encoded tones
///    (``SoftDemodulator/coherentLLRs(into:sentTones:minimumCoherence:phaseConcentration:)``).
///
/// Every buffer is allocated in `init`; `push` and `finish` do not allocate.
///
/// ```swift
/// let decoder = try BurstDecoder(sampleRate: 48_000)
/// decoder.push(chunk) { burst in print(burst.token) }
/// decoder.finish { burst in print(burst.token) }
/// ```
public final class BurstDecoder {
    /// Tunables of the decoder.
    public struct Configuration: Sendable {
        /// Sync score above which a candidate is decoded, in units of the mean score of pure
        /// noise (1/L for a template of L baseband samples). The same multiple at every sample
        /// rate gives the same miss and false-candidate odds per window, although the window
        /// holds more noise at 44.1 kHz's wider baseband. Candidates from noise that get through
        /// cost CPU, never a token: the CRC, kind and tail checks reject them.
        public var syncThresholdOverNoise: Float = 7
        /// Whether a candidate whose first decode fails is tried with the other plausible pairs
        /// of sync peaks (see `decode`).
        public var alternativePeakPairs = true
        /// Whether a frame that fails its CRC gets a second, coherent pass (see
        /// ``SoftDemodulator/coherentLLRs(into:sentTones:minimumCoherence:phaseConcentration:)``).
        public var coherentRetry = true
        /// The phase fit's coherence below which no second pass is made. Noise fits about 0.1,
        /// so noise hardly ever earns a second CRC check; a burst at 28 dB-Hz fits about 0.85.
        public var minimumCoherence: Float = 0.3
        /// How far the second pass trusts the fitted phase (von Mises concentration κ; 0 turns
        /// the pass off, as it would only repeat the first).
        public var phaseConcentration: Float = 8

        public init() {}
    }

    /// Local maxima of each chirp's score a candidate's pairing is tried with: at 28 dB-Hz a
    /// noise peak within the pairing window sometimes outscores a chirp's true peak, and the
    /// wrong pair gives a wrong time scale.
    static let peakAlternatives = 3
    /// The mean strongest-tone share per symbol an alternative peak pair needs to be decoded:
    /// noise gives 0.21 ± 0.012 over 44 symbols (the largest of 16 exponentials over their
    /// sum), a burst at 28 dB-Hz about 0.35, a clean one nearly 1.
    static let tonalQuality: Float = 0.25
    /// Peaks weaker than this share of the strongest in their window are not tried.
    static let alternativePeakShare: Float = 0.4
    /// The part of a reverberant room's echo after a burst that is still taken for the burst's
    /// (RT60 0.6 s: 15 dB down after 0.3 s).
    static let reverberationTailSeconds = 0.3
    /// Candidates that may wait for their audio at once.
    public static let maximumPendingCandidates = 8
    /// Timing refinement either side of the sync peak, in baseband samples.
    static let timingMargin = 2

    public let rate: ModemRate
    public let configuration: Configuration
    private var converter: BasebandConverter
    private let demodulator: SoftDemodulator
    private let viterbi: ViterbiDecoder

    // Baseband history, stored twice (at i and i + capacity) so any window is contiguous.
    private let capacity: Int
    private var ringRe: [Float]
    private var ringIm: [Float]
    private var upScore: [Float]            // ρ_up by window start, mod capacity
    private var downScore: [Float]          // ρ_down by window start, mod capacity
    private var produced = 0                // baseband samples so far

    // Conjugated chirp templates.
    private let upRe: [Float], upIm: [Float], downRe: [Float], downIm: [Float]
    private let templateEnergy: Float

    private let interpolator = FractionalInterpolator()
    private let syncThreshold: Float
    /// Sync scores every this many baseband samples. At 44.1 kHz the baseband (4.9 kHz) is four
    /// times the chirps' bandwidth, so every other window still lands on each correlation peak's
    /// main lobe; this halves the decoder's largest cost.
    private let syncStride: Int
    /// The last candidate tried (decoded or not): one less than half as strong within
    /// `echoWindow` after it is taken for its echo in a reverberant room, not another burst, and
    /// is not decoded. One box sends bursts at least a second apart (the default 50 % duty
    /// cap); a much weaker burst from another box within 0.3 s of a burst's end is lost to this,
    /// as it would mostly be to that burst's echo anyway.
    private var lastAttemptUp = Int.min / 2
    private var lastAttemptScore: Float = 0
    /// How long after a candidate a much weaker one is taken for its echo (baseband samples):
    /// the burst plus ``reverberationTailSeconds``, in which a room's echo of the tones still
    /// trips the sync now and then.
    private let echoWindow: Int
    /// How far (baseband samples) the up-chirp peak may sit from d − L at the largest time scale.
    private let pairSlack: Int
    /// Baseband samples by which the peaks part per unit of time scale.
    private let spreadPerUnitScale: Double
    /// Baseband samples a candidate waits after its up-chirp before it is decoded: its whole
    /// burst at the largest stretch, the timing margin on both sides, the interpolator's reach,
    /// and three pairing slacks for the other peak pairs a failed first decode tries.
    private let candidateWait: Int

    private var candidateUp = -1
    private var candidateDown = -1
    private var candidateScore: Float = 0
    private var pendingUp: [Int]
    private var pendingDown: [Int]
    private var pendingScore: [Float]
    private var pendingCount = 0
    private var suppressUntil = 0

    private var scratchRe: [Float]
    private var scratchIm: [Float]
    private var llrs: [Float]
    /// The tones of a first decode that failed its CRC, re-encoded for the coherent pass.
    private var retryTones: [UInt8]
    /// Peak pairs (up, down) a candidate is tried with; see `decode`.
    private var hypothesisUp: [Int]
    private var hypothesisDown: [Int]
    /// The strongest local maxima of one score around a point (`strongestPeaks`).
    private var peakPositions: [Int]
    private var peakScores: [Float]
    /// Candidates whose first decode failed and whose other pairs of sync peaks were looked for.
    public private(set) var alternativePairSearches = 0
    /// Other pairs of sync peaks resampled and measured, over all those searches.
    public private(set) var alternativePairsMeasured = 0
    /// Second, coherent passes made so far (each is one more CRC check).
    public private(set) var coherentRetries = 0

    /// Makes a decoder for audio at `sampleRate` (allocates all its buffers).
    public init(sampleRate: Int, configuration: Configuration = Configuration()) throws(ModemRateError) {
        let rate = try ModemRate(sampleRate: sampleRate)
        self.rate = rate
        self.configuration = configuration
        converter = BasebandConverter(rate: rate)
        demodulator = SoftDemodulator(rate: rate)
        viterbi = ViterbiDecoder(steps: ModemProfile.encodedBits)

        var capacity = 1
        while capacity < 2 * rate.basebandBurstSamples + 4 * rate.basebandChirpSamples { capacity <<= 1 }
        self.capacity = capacity
        ringRe = [Float](repeating: 0, count: 2 * capacity)
        ringIm = [Float](repeating: 0, count: 2 * capacity)
        upScore = [Float](repeating: 0, count: capacity)
        downScore = [Float](repeating: 0, count: capacity)
        let largestScale = Double(ModemProfile.maximumTimeScalePPM) / 1e6
        spreadPerUnitScale = ModemProfile.chirpPairSpreadSeconds * Double(rate.basebandRate)
        pairSlack = Int((largestScale * spreadPerUnitScale).rounded(.up)) + 1
        let maximumStretch = Int((largestScale * Double(rate.basebandBurstSamples)).rounded(.up)) + 1
        // An alternative peak pair tried when decoding may put the up-chirp up to three
        // pairing slacks later than the candidate's own (its down-chirp one slack later, its
        // up-chirp two slacks from there).
        candidateWait = rate.basebandBurstSamples + maximumStretch + 2 * Self.timingMargin
            + FractionalInterpolator.halfTaps + 3 + 3 * pairSlack

        let (ur, ui) = Self.chirpTemplate(rate: rate, rising: true)
        let (dr, di) = Self.chirpTemplate(rate: rate, rising: false)
        upRe = ur; upIm = ui; downRe = dr; downIm = di
        templateEnergy = Float(rate.basebandChirpSamples)
        syncThreshold = configuration.syncThresholdOverNoise / Float(rate.basebandChirpSamples)
        syncStride = rate.basebandRate >= 4_000 ? 2 : 1
        echoWindow = rate.basebandBurstSamples + Int(Self.reverberationTailSeconds * Double(rate.basebandRate))

        pendingUp = [Int](repeating: 0, count: Self.maximumPendingCandidates)
        pendingDown = [Int](repeating: 0, count: Self.maximumPendingCandidates)
        pendingScore = [Float](repeating: 0, count: Self.maximumPendingCandidates)
        let span = rate.basebandBurstSamples + 2 * Self.timingMargin
        scratchRe = [Float](repeating: 0, count: span)
        scratchIm = [Float](repeating: 0, count: span)
        llrs = [Float](repeating: 0, count: ModemProfile.codedBits)
        retryTones = [UInt8](repeating: 0, count: ModemProfile.symbolCount)
        hypothesisUp = [Int](repeating: 0, count: Self.peakAlternatives * Self.peakAlternatives)
        hypothesisDown = [Int](repeating: 0, count: Self.peakAlternatives * Self.peakAlternatives)
        peakPositions = [Int](repeating: 0, count: Self.peakAlternatives)
        peakScores = [Float](repeating: 0, count: Self.peakAlternatives)
    }

    /// Audio samples pushed so far.
    public private(set) var samplesPushed = 0
    /// CRC checks made so far, the chances noise had to pass the CRC: one per candidate decoded,
    /// one more when another pair of sync peaks is decoded, and one per coherent pass (up to
    /// four per candidate).
    public private(set) var framesTried = 0

    /// Feeds audio samples; calls `onBurst` for each token found, in order.
    public func push(_ samples: UnsafeBufferPointer<Float>, _ onBurst: (DecodedBurst) -> Void) {
        for sample in samples {
            samplesPushed += 1
            if let baseband = converter.push(sample) {
                process(baseband, onBurst)
            }
        }
    }

    /// Feeds silence long enough to flush every burst still in the pipeline (end of a file).
    public func finish(_ onBurst: (DecodedBurst) -> Void) {
        let zeros = rate.burstSamples + 4 * rate.chirpSamples
        for _ in 0..<zeros {
            samplesPushed += 1
            if let baseband = converter.push(0) { process(baseband, onBurst) }
        }
    }

    // MARK: - Per baseband sample

    private func process(_ x: (re: Float, im: Float), _ onBurst: (DecodedBurst) -> Void) {
        let t = produced
        let slot = t & (capacity - 1)
        ringRe[slot] = x.re; ringRe[slot + capacity] = x.re
        ringIm[slot] = x.im; ringIm[slot + capacity] = x.im
        produced += 1

        let chirp = rate.basebandChirpSamples
        if t >= chirp - 1 {
            let window = t - chirp + 1
            let scoreSlot = window & (capacity - 1)
            if window % syncStride != 0 {
                // Not scored: the peak is found to a fraction of a sample when decoding.
                upScore[scoreSlot] = 0
                downScore[scoreSlot] = 0
            } else {
                let (up, down) = correlate(windowStart: window)
                upScore[scoreSlot] = up
                downScore[scoreSlot] = down
                // The best up-chirp peak that could belong with a down-chirp at `window`. Near
                // the start of the stream u may be negative: those ring slots still hold the
                // zeros the stream is taken to begin with.
                var bestUp = window - chirp
                var bestScore: Float = -1
                for u in (window - chirp - pairSlack)...(window - chirp + pairSlack) {
                    let score = upScore[u & (capacity - 1)]
                    if score > bestScore { bestScore = score; bestUp = u }
                }
                consider(up: bestUp, down: window, score: 0.5 * (bestScore + down))
            }
        }
        decodeReadyCandidates(onBurst)
    }

    /// Normalised correlations of the window starting at `windowStart` with both chirps.
    private func correlate(windowStart: Int) -> (up: Float, down: Float) {
        let chirp = rate.basebandChirpSamples
        let base = windowStart & (capacity - 1)
        var upR: Float = 0, upI: Float = 0, downR: Float = 0, downI: Float = 0, energy: Float = 0
        ringRe.withUnsafeBufferPointer { xr in
            ringIm.withUnsafeBufferPointer { xi in
                upRe.withUnsafeBufferPointer { ur in
                    upIm.withUnsafeBufferPointer { ui in
                        downRe.withUnsafeBufferPointer { dr in
                            downIm.withUnsafeBufferPointer { di in
                                for m in 0..<chirp {
                                    let a = xr[base + m], b = xi[base + m]
                                    upR += a * ur[m] - b * ui[m]
                                    upI += a * ui[m] + b * ur[m]
                                    downR += a * dr[m] - b * di[m]
                                    downI += a * di[m] + b * dr[m]
                                    energy += a * a + b * b
                                }
                            }
                        }
                    }
                }
            }
        }
        guard energy > 0 else { return (0, 0) }
        let norm = 1 / (templateEnergy * energy)
        return ((upR * upR + upI * upI) * norm, (downR * downR + downI * downI) * norm)
    }

    /// Peak picking: the largest score above threshold within ±one chirp becomes a candidate.
    private func consider(up: Int, down: Int, score: Float) {
        let chirp = rate.basebandChirpSamples
        if candidateDown >= 0 {
            if down - candidateDown <= chirp {
                if score > candidateScore {
                    candidateUp = up
                    candidateDown = down
                    candidateScore = score
                }
                return
            }
            enqueue(up: candidateUp, down: candidateDown, score: candidateScore)
            candidateDown = -1
        }
        if score >= syncThreshold && up >= suppressUntil {
            candidateUp = up
            candidateDown = down
            candidateScore = score
        }
    }

    private func enqueue(up: Int, down: Int, score: Float) {
        var slot = pendingCount
        if pendingCount == Self.maximumPendingCandidates {
            // Full: replace the weakest if this one is stronger.
            slot = 0
            for index in 1..<pendingCount where pendingScore[index] < pendingScore[slot] { slot = index }
            guard score > pendingScore[slot] else { return }
        } else {
            pendingCount += 1
        }
        pendingUp[slot] = up
        pendingDown[slot] = down
        pendingScore[slot] = score
    }

    private func decodeReadyCandidates(_ onBurst: (DecodedBurst) -> Void) {
        var index = 0
        while index < pendingCount {
            let up = pendingUp[index]
            if up < suppressUntil {
                removePending(at: index)
                continue
            }
            if produced >= up + candidateWait {
                let down = pendingDown[index]
                let score = pendingScore[index]
                removePending(at: index)
                if up - lastAttemptUp < echoWindow && score < 0.5 * lastAttemptScore {
                    continue
                }
                lastAttemptUp = up
                lastAttemptScore = score
                if let burst = decode(up: up, down: down, syncScore: score) {
                    onBurst(burst)
                }
                continue
            }
            index += 1
        }
    }

    private func removePending(at index: Int) {
        pendingCount -= 1
        pendingUp[index] = pendingUp[pendingCount]
        pendingDown[index] = pendingDown[pendingCount]
        pendingScore[index] = pendingScore[pendingCount]
    }

    // MARK: - Frame decoding

    /// Where a correlation peak near `index` really is, to a fraction of a sample: the largest
    /// score within ±`syncStride` (scored afresh, since the sync may have skipped windows), then
    /// the vertex of the parabola through it and its two neighbours.
    private func refinedPeak(near index: Int, rising: Bool) -> Double {
        func score(_ window: Int) -> Float {
            let (up, down) = correlate(windowStart: window)
            return rising ? up : down
        }
        var best = index
        var bestScore = score(index)
        for window in (index - syncStride)...(index + syncStride) where window != index {
            let value = score(window)
            if value > bestScore { bestScore = value; best = window }
        }
        let left = score(best - 1), right = score(best + 1)
        let curvature = left - 2 * bestScore + right
        guard curvature < 0 else { return Double(best) }
        let offset = 0.5 * (left - right) / curvature
        return Double(best) + Double(max(-0.5, min(0.5, offset)))
    }

    /// Up to `peakAlternatives` strongest local maxima of the up (or down) score within
    /// `center ± radius`, strongest first, into `peakPositions`/`peakScores`; returns how many.
    private func strongestPeaks(rising: Bool, center: Int, radius: Int) -> Int {
        var count = 0
        let scores = rising ? upScore : downScore
        let mask = capacity - 1
        scores.withUnsafeBufferPointer { scores in
            peakPositions.withUnsafeMutableBufferPointer { positions in
                peakScores.withUnsafeMutableBufferPointer { values in
                    // Only windows on the sync stride were scored.
                    var p = center - radius
                    p += (syncStride - p % syncStride) % syncStride
                    while p <= center + radius {
                        let value = scores[p & mask]
                        if value > scores[(p - syncStride) & mask] && value >= scores[(p + syncStride) & mask] {
                            // Insert, keeping the list sorted strongest first.
                            var slot = min(count, Self.peakAlternatives)
                            while slot > 0 && values[slot - 1] < value {
                                if slot < Self.peakAlternatives {
                                    positions[slot] = positions[slot - 1]
                                    values[slot] = values[slot - 1]
                                }
                                slot -= 1
                            }
                            if slot < Self.peakAlternatives {
                                positions[slot] = p
                                values[slot] = value
                                count = min(count + 1, Self.peakAlternatives)
                            }
                        }
                        p += syncStride
                    }
                }
            }
        }
        return count
    }

    /// The peak pairs a candidate is tried with: its own, then the strongest local maxima of
    /// the down score near its down-chirp and, for each, of the up score where that down-chirp's
    /// partner may sit. Returns how many pairs were written.
    private func pairHypotheses(up: Int, down: Int) -> Int {
        hypothesisUp[0] = up
        hypothesisDown[0] = down
        var count = 1
        let chirp = rate.basebandChirpSamples
        let downs = strongestPeaks(rising: false, center: down, radius: pairSlack)
        // strongestPeaks reuses its buffers for the up-chirps: keep the down-chirps aside.
        var downPositions = (0, 0, 0)
        var downScores = (Float(0), Float(0), Float(0))
        for i in 0..<downs {
            switch i {
            case 0: downPositions.0 = peakPositions[0]; downScores.0 = peakScores[0]
            case 1: downPositions.1 = peakPositions[1]; downScores.1 = peakScores[1]
            default: downPositions.2 = peakPositions[2]; downScores.2 = peakScores[2]
            }
        }
        for i in 0..<downs {
            let (d, score) = i == 0 ? (downPositions.0, downScores.0)
                : i == 1 ? (downPositions.1, downScores.1) : (downPositions.2, downScores.2)
            guard score >= Self.alternativePeakShare * downScores.0 else { continue }
            let ups = strongestPeaks(rising: true, center: d - chirp, radius: pairSlack)
            for j in 0..<ups where peakScores[j] >= Self.alternativePeakShare * peakScores[0] {
                let u = peakPositions[j]
                var known = false
                for k in 0..<count where hypothesisUp[k] == u && hypothesisDown[k] == d { known = true }
                if !known && count < hypothesisUp.count {
                    hypothesisUp[count] = u
                    hypothesisDown[count] = d
                    count += 1
                }
            }
        }
        return count
    }

    /// Where the burst of the peak pair (`up`, `down`) starts (baseband samples) and its time
    /// scale, from both peaks located to a fraction of a sample.
    private func pairTiming(up: Int, down: Int) -> (start: Double, scale: Double) {
        let chirp = Double(rate.basebandChirpSamples)
        let upPeak = refinedPeak(near: up, rising: true)
        let downPeak = refinedPeak(near: down, rising: false)
        let largest = Double(ModemProfile.maximumTimeScalePPM) / 1e6
        let scale = max(-largest, min(largest, (downPeak - upPeak - chirp) / spreadPerUnitScale))
        // Each peak sits ε·L/2 early from the chirp's compression; the pair's mean puts the start.
        return (0.5 * (upPeak + downPeak - chirp) + scale * chirp, scale)
    }

    /// Resamples the burst that starts at `start` with time scale `scale` (plus the timing
    /// margin either side) into the scratch buffers, onto the sender's clock; false when its
    /// audio is not (or no longer) in the ring.
    private func resample(start: Double, scale: Double) -> Bool {
        let margin = Self.timingMargin
        let span = rate.basebandBurstSamples + 2 * margin
        let stretch = 1 / (1 + scale)
        let origin = Int((start - Double(margin) * stretch).rounded(.down)) - FractionalInterpolator.halfTaps - 1
        let last = start + Double(span) * stretch + Double(FractionalInterpolator.halfTaps) + 1
        // Before the stream began the ring holds zeros (origin may be negative at the start).
        guard Int(last) < produced, produced - origin <= capacity else { return false }
        let offset = origin & (capacity - 1)
        // After resampling, the tones sit ε·f_c/(1+ε) above where they belong.
        let step = -2 * CoreMath.pi * Double(ModemProfile.basebandCenterHz) * scale * stretch / Double(rate.basebandRate)
        let stepRe = CoreMath.cos(step), stepIm = CoreMath.sin(step)
        var rotRe = 1.0, rotIm = 0.0
        // Every buffer is taken as a pointer once: element writes to a class's arrays inside the
        // loop would each pay an exclusivity check and a uniqueness test.
        ringRe.withUnsafeBufferPointer { xr in
            ringIm.withUnsafeBufferPointer { xi in
                scratchRe.withUnsafeMutableBufferPointer { outRe in
                    scratchIm.withUnsafeMutableBufferPointer { outIm in
                        for i in 0..<span {
                            let position = start + Double(i - margin) * stretch - Double(origin) + Double(offset)
                            let (re, im) = interpolator.value(re: xr, im: xi, at: position)
                            outRe[i] = re * Float(rotRe) - im * Float(rotIm)
                            outIm[i] = re * Float(rotIm) + im * Float(rotRe)
                            let nextRe = rotRe * stepRe - rotIm * stepIm
                            rotIm = rotRe * stepIm + rotIm * stepRe
                            rotRe = nextRe
                        }
                    }
                }
            }
        }
        return true
    }

    /// The symbol timing (shift within ±`timingMargin`) that makes the resampled burst's
    /// symbols most tone-like, and that measure over every fourth symbol.
    private func bestTiming() -> (shift: Int, quality: Float) {
        let margin = Self.timingMargin
        let dataOffset = 2 * rate.basebandChirpSamples
        var bestShift = 0
        var bestQuality: Float = -1
        scratchRe.withUnsafeBufferPointer { xr in
            scratchIm.withUnsafeBufferPointer { xi in
                for shift in -margin...margin {
                    // Every fourth symbol is enough to rank the timings.
                    let quality = demodulator.measure(re: xr, im: xi, start: margin + shift + dataOffset,
                                                      symbolStride: 4)
                    if quality > bestQuality {
                        bestQuality = quality
                        bestShift = shift
                    }
                }
            }
        }
        return (bestShift, bestQuality)
    }

    /// Measures every symbol of the resampled burst at timing `shift`, ready for the LLRs;
    /// returns the sum over symbols of the strongest tone's share (higher: more tone-like).
    private func measureAll(shift: Int) -> Float {
        scratchRe.withUnsafeBufferPointer { xr in
            scratchIm.withUnsafeBufferPointer { xi in
                demodulator.measure(re: xr, im: xi, start: Self.timingMargin + shift + 2 * rate.basebandChirpSamples)
            }
        }
    }

    private func decode(up: Int, down: Int, syncScore: Float) -> DecodedBurst? {
        // The candidate's own peak pair first.
        let (start, scale) = pairTiming(up: up, down: down)
        guard resample(start: start, scale: scale) else { return nil }
        let (shift, sampledQuality) = bestTiming()
        let quality = measureAll(shift: shift)
        if let burst = decodeMeasured(start: start, scale: scale, shift: shift, syncScore: syncScore) {
            return burst
        }
        guard configuration.alternativePeakPairs else { return nil }
        // At low SNR a noise peak near a chirp's true peak sometimes outscores it, and the wrong
        // pair gives a wrong time scale. Rank the other plausible pairs by how much their
        // symbols look like tones (every fourth symbol, as the timing search measures them) and
        // decode the best, if it beats this pair and, measured over every symbol, is clearly
        // not noise: so noise candidates (almost) never get a second CRC check from here.
        alternativePairSearches += 1
        let hypotheses = pairHypotheses(up: up, down: down)
        var best = (index: 0, start: start, scale: scale, shift: shift, quality: sampledQuality)
        var bestIsResampled = true
        for index in 1..<max(1, hypotheses) {
            let (otherStart, otherScale) = pairTiming(up: hypothesisUp[index], down: hypothesisDown[index])
            guard resample(start: otherStart, scale: otherScale) else { continue }
            alternativePairsMeasured += 1
            let (otherShift, otherQuality) = bestTiming()
            bestIsResampled = otherQuality > best.quality
            if bestIsResampled { best = (index, otherStart, otherScale, otherShift, otherQuality) }
        }
        guard best.index != 0 else { return nil }
        if !bestIsResampled {
            // The scratch buffers hold a worse pair: redo the best.
            guard resample(start: best.start, scale: best.scale) else { return nil }
        }
        let bestQuality = measureAll(shift: best.shift)
        guard bestQuality > quality, bestQuality >= Self.tonalQuality * Float(ModemProfile.symbolCount) else {
            return nil
        }
        var burst = decodeMeasured(start: best.start, scale: best.scale, shift: best.shift, syncScore: syncScore)
        burst?.pairedAgain = true
        return burst
    }

    /// Soft bits, Viterbi and the frame checks for the burst last measured (starting at
    /// `start` with time scale `scale`, symbols at timing `shift`), then the coherent second
    /// pass if the first fails.
    private func decodeMeasured(start: Double, scale: Double, shift: Int, syncScore: Float) -> DecodedBurst? {
        let stretch = 1 / (1 + scale)
        framesTried += 1
        var snr = llrs.withUnsafeMutableBufferPointer { demodulator.llrs(into: $0) }
        var decoded = llrs.withUnsafeBufferPointer { viterbi.decode($0) }
        var found = FrameCodec.token(fromFrameBits: decoded.bits)
        var coherently = false
        if found == nil && configuration.coherentRetry && configuration.phaseConcentration > 0 {
            // Most of a failed frame's bits are right: its tones show the carrier's phase.
            retryTones.withUnsafeMutableBufferPointer { FrameCodec.encode(frameBits: decoded.bits, into: $0) }
            let coherentSNR = retryTones.withUnsafeBufferPointer { tones in
                llrs.withUnsafeMutableBufferPointer { output in
                    demodulator.coherentLLRs(into: output, sentTones: tones,
                                             minimumCoherence: configuration.minimumCoherence,
                                             phaseConcentration: configuration.phaseConcentration)
                }
            }
            if let coherentSNR {
                framesTried += 1
                coherentRetries += 1
                snr = coherentSNR
                decoded = llrs.withUnsafeBufferPointer { viterbi.decode($0) }
                found = FrameCodec.token(fromFrameBits: decoded.bits)
                coherently = true
            }
        }
        guard let token = found else { return nil }

        let burstStart = start + Double(shift) * stretch
        suppressUntil = Int(burstStart) + rate.basebandBurstSamples - rate.basebandChirpSamples
        // Baseband sample t is the filter output after audio sample (t + 1)·D − 1, centred
        // `delaySamples` earlier.
        let audioStart = Int(((burstStart + 1) * Double(rate.decimation)).rounded()) - 1 - converter.delaySamples
        return DecodedBurst(token: token, startSample: max(0, audioStart), sampleRate: rate.sampleRate,
                            syncScore: syncScore, symbolSNR: snr, timeScalePPM: Float(scale * 1e6),
                            decodedCoherently: coherently)
    }

    // MARK: - Templates

    /// The conjugate of a chirp at baseband, sampled at the baseband rate.
    private static func chirpTemplate(rate: ModemRate, rising: Bool) -> ([Float], [Float]) {
        let count = rate.basebandChirpSamples
        let fsb = Double(rate.basebandRate)
        let low = Double(ModemProfile.chirpLowHz - ModemProfile.basebandCenterHz)
        let high = Double(ModemProfile.chirpHighHz - ModemProfile.basebandCenterHz)
        let duration = Double(count) / fsb
        let slope = (rising ? high - low : low - high) / duration     // Hz per second
        let begin = rising ? low : high
        var re = [Float](repeating: 0, count: count)
        var im = [Float](repeating: 0, count: count)
        for m in 0..<count {
            let time = Double(m) / fsb
            let cycles = begin * time + 0.5 * slope * time * time
            let angle = 2 * CoreMath.pi * cycles
            re[m] = Float(CoreMath.cos(angle))
            im[m] = Float(-CoreMath.sin(angle))
        }
        return (re, im)
    }
}
