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

        public init() {}
    }

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
    /// The last candidate decoded: a weaker one within a burst after it is its echo in a
    /// reverberant room, not another burst (bursts do not overlap), and is not decoded again.
    private var lastAttemptUp = Int.min / 2
    private var lastAttemptScore: Float = 0
    /// How far (baseband samples) the up-chirp peak may sit from d − L at the largest time scale.
    private let pairSlack: Int
    /// Baseband samples by which the peaks part per unit of time scale.
    private let spreadPerUnitScale: Double
    /// Baseband samples a candidate waits after its up-chirp before it is decoded: its whole
    /// burst at the largest stretch, the timing margin on both sides and the interpolator's reach.
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
        let largestScale = Double(ModemProfile.maximumTimeScalePPM) / 1e6
        spreadPerUnitScale = ModemProfile.chirpPairSpreadSeconds * Double(rate.basebandRate)
        pairSlack = Int((largestScale * spreadPerUnitScale).rounded(.up)) + 1
        let maximumStretch = Int((largestScale * Double(rate.basebandBurstSamples)).rounded(.up)) + 1
        candidateWait = rate.basebandBurstSamples + maximumStretch + 2 * Self.timingMargin
            + FractionalInterpolator.halfTaps + 3

        let (ur, ui) = Self.chirpTemplate(rate: rate, rising: true)
        let (dr, di) = Self.chirpTemplate(rate: rate, rising: false)
        upRe = ur; upIm = ui; downRe = dr; downIm = di
        templateEnergy = Float(rate.basebandChirpSamples)
        syncThreshold = configuration.syncThresholdOverNoise / Float(rate.basebandChirpSamples)
        syncStride = rate.basebandRate >= 4_000 ? 2 : 1

        pendingUp = [Int](repeating: 0, count: Self.maximumPendingCandidates)
        pendingDown = [Int](repeating: 0, count: Self.maximumPendingCandidates)
        pendingScore = [Float](repeating: 0, count: Self.maximumPendingCandidates)
        let span = rate.basebandBurstSamples + 2 * Self.timingMargin
        scratchRe = [Float](repeating: 0, count: span)
        scratchIm = [Float](repeating: 0, count: span)
        llrs = [Float](repeating: 0, count: ModemProfile.codedBits)
    }

    /// Audio samples pushed so far.
    public private(set) var samplesPushed = 0
    /// Sync candidates whose frame was run through the Viterbi decoder and checked, so far: the
    /// chances noise had to pass the CRC.
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
            } else {
                let (up, down) = correlate(windowStart: window)
                upScore[scoreSlot] = up
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
                if up - lastAttemptUp < rate.basebandBurstSamples && score < 0.5 * lastAttemptScore {
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

    private func decode(up: Int, down: Int, syncScore: Float) -> DecodedBurst? {
        let chirp = Double(rate.basebandChirpSamples)
        let upPeak = refinedPeak(near: up, rising: true)
        let downPeak = refinedPeak(near: down, rising: false)
        let largest = Double(ModemProfile.maximumTimeScalePPM) / 1e6
        let scale = max(-largest, min(largest, (downPeak - upPeak - chirp) / spreadPerUnitScale))
        // Each peak sits ε·L/2 early from the chirp's compression; the pair's mean puts the start.
        let start = 0.5 * (upPeak + downPeak - chirp) + scale * chirp

        // Resample the burst (plus the timing margin either side) onto the sender's clock.
        let margin = Self.timingMargin
        let span = rate.basebandBurstSamples + 2 * margin
        let stretch = 1 / (1 + scale)
        let origin = Int((start - Double(margin) * stretch).rounded(.down)) - FractionalInterpolator.halfTaps - 1
        let last = start + Double(span) * stretch + Double(FractionalInterpolator.halfTaps) + 1
        // Before the stream began the ring holds zeros (origin may be negative at the start).
        guard Int(last) < produced, produced - origin <= capacity else { return nil }
        let offset = origin & (capacity - 1)
        // After resampling, the tones sit ε·f_c/(1+ε) above where they belong.
        let step = -2 * CoreMath.pi * Double(ModemProfile.basebandCenterHz) * scale * stretch / Double(rate.basebandRate)
        let stepRe = CoreMath.cos(step), stepIm = CoreMath.sin(step)
        var rotRe = 1.0, rotIm = 0.0
        ringRe.withUnsafeBufferPointer { xr in
            ringIm.withUnsafeBufferPointer { xi in
                for i in 0..<span {
                    let position = start + Double(i - margin) * stretch - Double(origin) + Double(offset)
                    let (re, im) = interpolator.value(re: xr, im: xi, at: position)
                    scratchRe[i] = re * Float(rotRe) - im * Float(rotIm)
                    scratchIm[i] = re * Float(rotIm) + im * Float(rotRe)
                    let nextRe = rotRe * stepRe - rotIm * stepIm
                    rotIm = rotRe * stepIm + rotIm * stepRe
                    rotRe = nextRe
                }
            }
        }

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
                _ = demodulator.measure(re: xr, im: xi, start: margin + bestShift + dataOffset)
            }
        }
        framesTried += 1
        let snr = llrs.withUnsafeMutableBufferPointer { demodulator.llrs(into: $0) }
        let decoded = llrs.withUnsafeBufferPointer { viterbi.decode($0) }
        guard let token = FrameCodec.token(fromFrameBits: decoded.bits) else { return nil }

        let burstStart = start + Double(bestShift) * stretch
        suppressUntil = Int(burstStart) + rate.basebandBurstSamples - rate.basebandChirpSamples
        // Baseband sample t is the filter output after audio sample (t + 1)·D − 1, centred
        // `delaySamples` earlier.
        let audioStart = Int(((burstStart + 1) * Double(rate.decimation)).rounded()) - 1 - converter.delaySamples
        return DecodedBurst(token: token, startSample: max(0, audioStart), sampleRate: rate.sampleRate,
                            syncScore: syncScore, symbolSNR: snr, timeScalePPM: Float(scale * 1e6))
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
