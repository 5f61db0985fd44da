/// The streaming burst decoder: push audio in chunks of any size, get tokens back.
///
/// Pipeline, all at the complex baseband rate after ``BasebandConverter``:
/// 1. **Sync**: at every baseband sample, the normalised correlation of the last chirp-length
///    window with the first (falling) and the second (rising) chirp templates (0...1,
///    level-independent). A second-chirp peak at d pairs with the best first-chirp peak u within
///    ±`pairSlack` of d − L (a time scale parts the two peaks, see
///    ``ModemProfile/chirpPairSpreadSeconds``) and scores `(ρ₁(u) + ρ₂(d)) / 2`.
/// 2. **Candidates**: a score above the threshold that stays the largest for one chirp length
///    either side becomes a candidate; up to ``maximumPendingCandidates`` wait for their audio.
///    They are decoded in the order they were heard, so when a room makes the multi-tone data
///    correlate with a chirp more strongly than the burst's own chirps, the true, earlier peak
///    is still tried first.
/// 3. **Coarse time scale and first arrival** (``ChirpPairTiming``): the two chirps' correlation
///    profiles around the candidate, cleared of their noise floor, are cross-correlated to find
///    how far apart they sit (the time scale ε), and the burst's start is the *first* arrival
///    that reaches 35 % of the strongest, not the strongest reflection.
/// 4. **Time scale from the data tones** (``ToneOnsetScaleSearch``): the burst is resampled at
///    1/(1+ε) and turned back by ε·f_c (``FractionalInterpolator``), the leftover scale is read
///    from where the data tones' onsets sit on a fine frequency grid, and the burst is resampled
///    again with the corrected scale.
/// 5. **Decode**: 11 symbol windows from the direct sound (later in a reverberant room if
///    `windowDelayMilliseconds` asks for it) give each group's candidate
///    energies (``SoftDemodulator``). Unless the strongest candidates stand out as tones do (the
///    tonal-share gate: noise 0.52, bursts at 28 dB-Hz 0.61 or more), nothing more is done, so
///    noise rarely reaches the CRC. Then soft bits, Viterbi (K = 9), and the frame's CRC, kind
///    and tail checks (``FrameCodec``): only a frame that passes all of them is reported.
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
        /// cost CPU, never a token: the gate, CRC, kind and tail checks reject them.
        public var syncThresholdOverNoise: Float = 7
        /// Whether the chirps' time-scale estimate is refined on the data tones (step 4). Off
        /// only to measure what the step buys.
        public var refinesScaleOnTones = true
        /// How long after the direct sound the symbol windows start when the first chirp's
        /// profile looks reverberant, milliseconds. The lab measured +1 % in the 0.8 s room with
        /// 3 ms; in this decoder 3 ms gained nothing in the rooms (room-b 485 against 484 of 500)
        /// and cost in white noise (495 against 499 of 500 at 28 dB-Hz), where the reverberation
        /// measure now and then fires on noise. So the windows start at the direct sound; the
        /// option stays for measuring (`nearcast bench modem --window-delay`).
        public var windowDelayMilliseconds = 0.0
        /// The reverberation measure of the first chirp's profile (see ``ChirpPairTiming``)
        /// above which the windows are delayed: noise alone gives 0.3-0.6, the rooms 2-10.
        public var reverberantProfileRatio: Float = 1.5
        /// The tonal share (see ``SoftDemodulator/tonalShare``) below which a candidate is not
        /// decoded: white noise gives 0.525 ± 0.026 (0.572 the largest of 500), a burst at 28
        /// dB-Hz at least 0.61, in the 0.8 s room at least 0.71.
        public var minimumTonalShare: Float = 0.58
        /// The bursts' data symbols: format 2's 11, or fewer on the bench (`--symbols`), where the
        /// encoder sends the same length.
        public var length = BurstLength.standard

        public init() {}
    }

    /// The part of a reverberant room's echo after a burst that is still taken for the burst's
    /// (RT60 0.6 s: 15 dB down after 0.3 s).
    static let reverberationTailSeconds = 0.3
    /// A correction of the time scale smaller than this is not worth a second resampling.
    static let negligibleScaleChange = 50e-6
    /// Candidates that may wait for their audio at once.
    public static let maximumPendingCandidates = 8

    public let rate: ModemRate
    /// The band this decoder listens to (``MultiBandDecoder`` listens to several).
    public let band: ModemBand
    public let configuration: Configuration
    private var converter: BasebandConverter
    private let timing: ChirpPairTiming
    private let scaleSearch: ToneOnsetScaleSearch
    private let demodulator: SoftDemodulator
    private let viterbi: ViterbiDecoder

    // Baseband history, stored twice (at i and i + capacity) so any window is contiguous.
    private let capacity: Int
    private var ringRe: [Float]
    private var ringIm: [Float]
    private var firstScore: [Float]         // ρ₁ by window start, mod capacity
    private var secondScore: [Float]        // ρ₂ by window start, mod capacity
    private var produced = 0                // baseband samples so far

    // Conjugated chirp templates, in the order they are sent.
    private let firstRe: [Float], firstIm: [Float], secondRe: [Float], secondIm: [Float]
    private let templateEnergy: Float
    /// The chirp's length in groups of 4 samples, rounded up (the templates are zero-padded).
    private let paddedChirp: Int

    private let interpolator = FractionalInterpolator()
    private let syncThreshold: Float
    /// Sync scores every this many baseband samples. At 44.1 kHz the baseband (4.9 kHz) is four
    /// times the chirps' bandwidth, so every other window still lands on each correlation peak's
    /// main lobe; this halves the decoder's largest cost. (``ChirpPairTiming`` fills in the
    /// skipped windows where it needs them.)
    private let syncStride: Int
    /// The last candidate tried (decoded or not): one less than half as strong within
    /// `echoWindow` after it is taken for its echo in a reverberant room, not another burst, and
    /// is not decoded. One box sends bursts at least a second apart (the default 50 % duty
    /// cap); a much weaker burst from another box within 0.3 s of a burst's end is lost to this,
    /// as it would mostly be to that burst's echo anyway.
    private var lastAttemptFirst = Int.min / 2
    private var lastAttemptScore: Float = 0
    /// Where the echo of the last decoded burst ends (its start plus `echoWindow`) and its sync
    /// score: until then, a candidate no stronger than that burst is probably its room's echo
    /// and gets the quick check first (see `decode(arrival:scale:dataStart:syncScore:quickCheck:)`).
    /// Measured in the 0.8 s room: 8.5 demodulations per burst without it, 1.9 with it.
    private var decodedEchoEnd = Int.min / 2
    private var decodedScore: Float = 0
    /// How long after a candidate a much weaker one is taken for its echo (baseband samples).
    private let echoWindow: Int
    /// How far (baseband samples) the first-chirp peak may sit from d − L at the largest time scale.
    private let pairSlack: Int
    /// Baseband samples a candidate waits after its first chirp before it is decoded.
    private let candidateWait: Int
    /// Baseband samples of the resampled burst: chirps, window delay, symbols and a little more.
    private let span: Int
    /// Where the first symbol window starts in the resampled burst, without and with the
    /// window delay.
    private let dataStart: Int
    private let delayedDataStart: Int

    private var candidateFirst = -1
    private var candidateSecond = -1
    private var candidateScore: Float = 0
    private var pendingFirst: [Int]
    private var pendingScore: [Float]
    private var pendingCount = 0
    private var suppressUntil = 0

    private var scratchRe: [Float]
    private var scratchIm: [Float]
    private var llrs: [Float]

    /// Makes a decoder for bursts in `band` in audio at `sampleRate` (allocates all its buffers).
    public init(sampleRate: Int, band: ModemBand = .high, configuration: Configuration = Configuration()) throws(ModemRateError) {
        let rate = try ModemRate(sampleRate: sampleRate, length: configuration.length)
        self.rate = rate
        self.band = band
        self.configuration = configuration
        converter = BasebandConverter(rate: rate, band: band)
        demodulator = SoftDemodulator(rate: rate)
        scaleSearch = ToneOnsetScaleSearch(rate: rate, band: band)
        viterbi = ViterbiDecoder(steps: ModemProfile.encodedBits)

        var capacity = 1
        while capacity < 2 * rate.basebandBurstSamples + 4 * rate.basebandChirpSamples { capacity <<= 1 }
        self.capacity = capacity
        ringRe = [Float](repeating: 0, count: 2 * capacity)
        ringIm = [Float](repeating: 0, count: 2 * capacity)
        firstScore = [Float](repeating: 0, count: capacity)
        secondScore = [Float](repeating: 0, count: capacity)
        let fb = Double(rate.basebandRate)
        let largestScale = Double(ModemProfile.maximumTimeScalePPM) / 1e6
        pairSlack = Int((largestScale * abs(band.chirpPairSpreadSeconds) * fb).rounded(.up)) + 1
        syncStride = rate.basebandRate >= 4_000 ? 2 : 1
        timing = ChirpPairTiming(rate: rate, band: band, pairSlack: pairSlack)

        dataStart = 2 * rate.basebandChirpSamples
        delayedDataStart = dataStart + Int((configuration.windowDelayMilliseconds / 1000 * fb).rounded())
        span = delayedDataStart + rate.symbolCount * rate.basebandSymbolSamples + 2
        // The first arrival may sit up to the timing's reach after the candidate, the scale moves
        // the start by up to |shift|·ε, and the stretched burst needs the interpolator's reach.
        let shift = Int((largestScale * abs(band.firstChirpShiftSeconds) * fb).rounded(.up))
        candidateWait = timing.reachAfter + shift + Int((Double(span) * (1 + largestScale)).rounded(.up))
            + FractionalInterpolator.halfTaps + 2

        paddedChirp = (rate.basebandChirpSamples + 3) / 4
        let (fr, fi) = Self.chirpTemplate(rate: rate, band: band, rising: ModemProfile.firstChirpRises, padded: 4 * paddedChirp)
        let (sr, si) = Self.chirpTemplate(rate: rate, band: band, rising: !ModemProfile.firstChirpRises, padded: 4 * paddedChirp)
        firstRe = fr; firstIm = fi; secondRe = sr; secondIm = si
        templateEnergy = Float(rate.basebandChirpSamples)
        syncThreshold = configuration.syncThresholdOverNoise / Float(rate.basebandChirpSamples)
        echoWindow = rate.basebandBurstSamples + Int(Self.reverberationTailSeconds * fb)

        pendingFirst = [Int](repeating: 0, count: Self.maximumPendingCandidates)
        pendingScore = [Float](repeating: 0, count: Self.maximumPendingCandidates)
        scratchRe = [Float](repeating: 0, count: span)
        scratchIm = [Float](repeating: 0, count: span)
        llrs = [Float](repeating: 0, count: ModemProfile.motherCodedBits)
    }

    /// Audio samples pushed so far.
    public private(set) var samplesPushed = 0
    /// Bursts demodulated: one per sync candidate that got past the echo rule, one more for
    /// each second try at the strongest arrival.
    public private(set) var candidatesDecoded = 0
    /// Likely echoes of the last decoded burst that failed the quick check (not counted in
    /// `candidatesDecoded`).
    public private(set) var echoesRejected = 0
    /// Second tries at the strongest arrival after the first arrival's decode failed.
    public private(set) var secondArrivalTries = 0
    /// CRC checks made so far, the chances noise had to pass the CRC: one per demodulated burst
    /// that passed the tonal-share gate (at most two per candidate).
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
        let zeros = (candidateWait + 2 * rate.basebandChirpSamples + 2) * rate.decimation + converter.delaySamples
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
                // Not scored: the timing fills these windows in where it needs them.
                firstScore[scoreSlot] = 0
                secondScore[scoreSlot] = 0
            } else {
                let (first, second) = correlate(windowStart: window)
                firstScore[scoreSlot] = first
                secondScore[scoreSlot] = second
                // The best first-chirp peak that could belong with a second chirp at `window`.
                // Near the start of the stream u may be negative: those ring slots still hold
                // the zeros the stream is taken to begin with.
                var bestFirst = window - chirp
                var bestScore: Float = -1
                for u in (window - chirp - pairSlack)...(window - chirp + pairSlack) {
                    let score = firstScore[u & (capacity - 1)]
                    if score > bestScore { bestScore = score; bestFirst = u }
                }
                consider(first: bestFirst, second: window, score: 0.5 * (bestScore + second))
            }
        }
        decodeReadyCandidates(onBurst)
    }

    /// Normalised correlations of the window starting at `windowStart` with both chirps.
    ///
    /// The decoder's largest cost (every baseband sample, two chirp-long complex dot products),
    /// so it runs four lanes at a time: the ring and the templates are read as unaligned
    /// `SIMD4<Float>`s, and the lanes are summed at the end (the chirp's length is padded to a
    /// multiple of 4 with zeros in the templates).
    private func correlate(windowStart: Int) -> (first: Float, second: Float) {
        let lanes = paddedChirp
        let base = windowStart & (capacity - 1)
        var aR = SIMD4<Float>(), aI = SIMD4<Float>(), bR = SIMD4<Float>(), bI = SIMD4<Float>()
        var energy = SIMD4<Float>()
        ringRe.withUnsafeBufferPointer { xr in
            ringIm.withUnsafeBufferPointer { xi in
                firstRe.withUnsafeBufferPointer { ur in
                    firstIm.withUnsafeBufferPointer { ui in
                        secondRe.withUnsafeBufferPointer { dr in
                            secondIm.withUnsafeBufferPointer { di in
                                let x = UnsafeRawPointer(xr.baseAddress! + base), y = UnsafeRawPointer(xi.baseAddress! + base)
                                let u = UnsafeRawPointer(ur.baseAddress!), v = UnsafeRawPointer(ui.baseAddress!)
                                let d = UnsafeRawPointer(dr.baseAddress!), e = UnsafeRawPointer(di.baseAddress!)
                                var offset = 0
                                while offset < 16 * lanes {     // bytes
                                    let a = x.loadUnaligned(fromByteOffset: offset, as: SIMD4<Float>.self)
                                    let b = y.loadUnaligned(fromByteOffset: offset, as: SIMD4<Float>.self)
                                    let c1 = u.loadUnaligned(fromByteOffset: offset, as: SIMD4<Float>.self)
                                    let s1 = v.loadUnaligned(fromByteOffset: offset, as: SIMD4<Float>.self)
                                    let c2 = d.loadUnaligned(fromByteOffset: offset, as: SIMD4<Float>.self)
                                    let s2 = e.loadUnaligned(fromByteOffset: offset, as: SIMD4<Float>.self)
                                    aR += a * c1 - b * s1
                                    aI += a * s1 + b * c1
                                    bR += a * c2 - b * s2
                                    bI += a * s2 + b * c2
                                    energy += a * a + b * b
                                    offset += 16
                                }
                            }
                        }
                    }
                }
            }
        }
        // The padding's template taps are zero, but its samples count toward the energy: the
        // ring's samples past the chirp are taken out again.
        var total = energy.sum()
        let chirp = rate.basebandChirpSamples
        if lanes * 4 > chirp {
            ringRe.withUnsafeBufferPointer { xr in
                ringIm.withUnsafeBufferPointer { xi in
                    for m in chirp..<(lanes * 4) { total -= xr[base + m] * xr[base + m] + xi[base + m] * xi[base + m] }
                }
            }
        }
        guard total > 0 else { return (0, 0) }
        let first = aR.sum() * aR.sum() + aI.sum() * aI.sum()
        let second = bR.sum() * bR.sum() + bI.sum() * bI.sum()
        let norm = 1 / (templateEnergy * total)
        return (first * norm, second * norm)
    }

    /// Peak picking: the largest score above threshold within ±one chirp becomes a candidate.
    private func consider(first: Int, second: Int, score: Float) {
        let chirp = rate.basebandChirpSamples
        if candidateSecond >= 0 {
            if second - candidateSecond <= chirp {
                if score > candidateScore {
                    candidateFirst = first
                    candidateSecond = second
                    candidateScore = score
                }
                return
            }
            enqueue(first: candidateFirst, score: candidateScore)
            candidateSecond = -1
        }
        if score >= syncThreshold && first >= suppressUntil {
            candidateFirst = first
            candidateSecond = second
            candidateScore = score
        }
    }

    private func enqueue(first: Int, score: Float) {
        var slot = pendingCount
        if pendingCount == Self.maximumPendingCandidates {
            // Full: replace the weakest if this one is stronger.
            slot = 0
            for index in 1..<pendingCount where pendingScore[index] < pendingScore[slot] { slot = index }
            guard score > pendingScore[slot] else { return }
        } else {
            pendingCount += 1
        }
        pendingFirst[slot] = first
        pendingScore[slot] = score
    }

    private func decodeReadyCandidates(_ onBurst: (DecodedBurst) -> Void) {
        while true {
            // The earliest waiting candidate whose audio is all here.
            var next = -1
            for index in 0..<pendingCount where next < 0 || pendingFirst[index] < pendingFirst[next] { next = index }
            guard next >= 0 else { return }
            let first = pendingFirst[next]
            let score = pendingScore[next]
            if first < suppressUntil {
                removePending(at: next)
                continue
            }
            guard produced >= first + candidateWait else { return }
            removePending(at: next)
            if first - lastAttemptFirst < echoWindow && score < 0.5 * lastAttemptScore { continue }
            lastAttemptFirst = first
            lastAttemptScore = score
            let likelyEcho = first < decodedEchoEnd && score <= decodedScore
            if let burst = decode(first: first, syncScore: score, likelyEcho: likelyEcho) {
                onBurst(burst)
            }
        }
    }

    private func removePending(at index: Int) {
        pendingCount -= 1
        pendingFirst[index] = pendingFirst[pendingCount]
        pendingScore[index] = pendingScore[pendingCount]
    }

    // MARK: - Frame decoding

    private func decode(first: Int, syncScore: Float, likelyEcho: Bool) -> DecodedBurst? {
        let measured = timing.measure(around: first, stride: syncStride, capacity: capacity,
                                      firstScores: firstScore, secondScores: secondScore) { window in
            correlate(windowStart: window)
        }
        let reverberant = measured.reverberation > configuration.reverberantProfileRatio
        let dataStart = reverberant ? delayedDataStart : self.dataStart
        if let burst = decode(arrival: measured.firstArrival, scale: measured.scale, dataStart: dataStart,
                              syncScore: syncScore, quickCheck: likelyEcho) {
            return burst
        }
        guard !likelyEcho else { return nil }
        // In noise the first-arrival rule now and then takes a noise bump before the direct
        // sound for it; in a free field the strongest arrival is the direct sound. One more try
        // there, only when the two differ (one more CRC check, behind the gate).
        guard abs(measured.strongest - measured.firstArrival) >= 2 else { return nil }
        secondArrivalTries += 1
        return decode(arrival: measured.strongest, scale: measured.scale, dataStart: dataStart, syncScore: syncScore,
                      quickCheck: false)
    }

    /// Steps 4 and 5 for the burst whose first chirp arrived at `arrival` with time scale
    /// `scale` (from the chirps), its first symbol window at `dataStart` of the resampled burst.
    /// With `quickCheck` the tonal-share gate is first applied with the chirps' time scale, and
    /// the (costly) search on the data tones is made only if it passes: a room's echo of the
    /// last burst fails it, a fresh burst after it almost always passes.
    private func decode(arrival: Double, scale chirpScale: Double, dataStart: Int, syncScore: Float,
                        quickCheck: Bool) -> DecodedBurst? {
        let largest = Double(ModemProfile.maximumTimeScalePPM) / 1e6
        let shift = band.firstChirpShiftSeconds * Double(rate.basebandRate)
        var scale = chirpScale
        // A time scale moves the first chirp's peak by ε·shift, so the burst began that much
        // before its peak was found.
        var start = arrival - scale * shift
        guard resample(start: start, scale: scale) else { return nil }
        if quickCheck {
            let share = scratchRe.withUnsafeBufferPointer { re in
                scratchIm.withUnsafeBufferPointer { im in demodulator.measure(re: re, im: im, start: dataStart) }
            }
            guard share >= configuration.minimumTonalShare else {
                echoesRejected += 1
                return nil
            }
        }
        if configuration.refinesScaleOnTones {
            let leftover = scratchRe.withUnsafeBufferPointer { re in
                scratchIm.withUnsafeBufferPointer { im in
                    scaleSearch.search(re: re, im: im, start: dataStart, currentScale: scale)
                }
            }
            let refined = max(-largest, min(largest, scale + leftover))
            // Below 50 ppm the tones are within 1 Hz (6 % of their spacing) and the start within
            // a tenth of a sample: resampling again would change nothing that matters.
            if abs(refined - scale) >= Self.negligibleScaleChange {
                scale = refined
                start = arrival - scale * shift
                guard resample(start: start, scale: scale) else { return nil }
            }
        }
        candidatesDecoded += 1
        let share = scratchRe.withUnsafeBufferPointer { re in
            scratchIm.withUnsafeBufferPointer { im in demodulator.measure(re: re, im: im, start: dataStart) }
        }
        guard share >= configuration.minimumTonalShare else { return nil }
        framesTried += 1
        let snr = llrs.withUnsafeMutableBufferPointer { demodulator.llrs(into: $0) }
        let decoded = llrs.withUnsafeBufferPointer { viterbi.decode($0) }
        guard let token = FrameCodec.token(fromFrameBits: decoded.bits) else { return nil }

        suppressUntil = Int(start) + rate.basebandBurstSamples - rate.basebandChirpSamples
        decodedEchoEnd = Int(start) + echoWindow
        decodedScore = syncScore
        // Baseband sample t is the filter output after audio sample (t + 1)·D − 1, centred
        // `delaySamples` earlier.
        let audioStart = Int(((start + 1) * Double(rate.decimation)).rounded()) - 1 - converter.delaySamples
        return DecodedBurst(token: token, startSample: max(0, audioStart), sampleRate: rate.sampleRate,
                            syncScore: syncScore, symbolSNR: snr, timeScalePPM: Float(scale * 1e6),
                            tonalShare: share, band: band)
    }

    /// Resamples the burst that starts at `start` with time scale `scale` into the scratch
    /// buffers, onto the sender's clock; false when its audio is not (or no longer) in the ring.
    private func resample(start: Double, scale: Double) -> Bool {
        let stretch = 1 / (1 + scale)
        let origin = Int(start.rounded(.down)) - FractionalInterpolator.halfTaps - 1
        let last = start + Double(span) * stretch + Double(FractionalInterpolator.halfTaps) + 1
        // Before the stream began the ring holds zeros (origin may be negative at the start).
        guard Int(last) < produced, produced - origin <= capacity else { return false }
        let offset = origin & (capacity - 1)
        // After resampling, the tones sit ε·f_c/(1+ε) above where they belong.
        let step = -2 * CoreMath.pi * Double(band.basebandCenterHz) * scale * stretch / Double(rate.basebandRate)
        let stepRe = CoreMath.cos(step), stepIm = CoreMath.sin(step)
        var rotRe = 1.0, rotIm = 0.0
        let span = self.span
        // Every buffer is taken as a pointer once: element writes to a class's arrays inside the
        // loop would each pay an exclusivity check and a uniqueness test.
        ringRe.withUnsafeBufferPointer { xr in
            ringIm.withUnsafeBufferPointer { xi in
                scratchRe.withUnsafeMutableBufferPointer { outRe in
                    scratchIm.withUnsafeMutableBufferPointer { outIm in
                        for i in 0..<span {
                            let position = start + Double(i) * stretch - Double(origin) + Double(offset)
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

    // MARK: - Templates

    /// The conjugate of a chirp at baseband, sampled at the baseband rate, zero-padded to `padded`.
    private static func chirpTemplate(rate: ModemRate, band: ModemBand, rising: Bool, padded: Int) -> ([Float], [Float]) {
        let count = rate.basebandChirpSamples
        let fsb = Double(rate.basebandRate)
        let low = Double(band.chirpLowHz - band.basebandCenterHz)
        let high = Double(band.chirpHighHz - band.basebandCenterHz)
        let duration = Double(count) / fsb
        let slope = (rising ? high - low : low - high) / duration     // Hz per second
        let begin = rising ? low : high
        var re = [Float](repeating: 0, count: padded)
        var im = [Float](repeating: 0, count: padded)
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
