/// The streaming burst decoder: push audio in chunks of any size, get tokens back.
///
/// The decoder is the composition of its parts, each a small type of its own; this class holds
/// them and passes each burst from one to the next. Pipeline, all at the complex baseband rate
/// after ``BasebandConverter``, which feeds ``BasebandHistory`` (the last two bursts' samples and
/// their sync scores):
/// 1. **Sync** (``ChirpCorrelator``): at every baseband sample, the normalised correlation of the
///    last chirp-length window with the first (falling) and the second (rising) chirp templates
///    (0...1, level-independent). A second-chirp peak at d pairs with the best first-chirp peak
///    u within ±`pairSlack` of d − L (a time scale parts the two peaks, see
///    ``ModemBand/chirpPairSpreadSeconds``) and scores `(ρ₁(u) + ρ₂(d)) / 2`.
/// 2. **Candidates** (``SyncPeakPicker``, ``PendingCandidates``, ``EchoSuppression``): a score
///    above the threshold that stays the largest for one chirp length either side becomes a
///    candidate; up to ``maximumPendingCandidates`` wait for their audio: step 3 as soon as the
///    chirps' profiles are in, the rest as soon as the burst's own audio is (about 20 ms after
///    its end). They are decoded in the order they were heard, so when a room makes the multi-tone data correlate with a chirp
///    more strongly than the burst's own chirps, the true, earlier peak is still tried first.
///    A room's echo of the last burst is not decoded, or gets a quick check first.
/// 3. **Coarse time scale and first arrival** (``ChirpPairTiming``): the two chirps' correlation
///    profiles around the candidate, cleared of their noise floor, are cross-correlated to find
///    how far apart they sit (the time scale ε), and the burst's start is the *first* arrival
///    that reaches 35 % of the strongest, not the strongest reflection.
/// 4. **Time scale from the data tones** (``ResampledBurst``, ``ToneOnsetScaleSearch``): the
///    burst is resampled at 1/(1+ε) and turned back by ε·f_c (``FractionalInterpolator``), the
///    leftover scale is read from where the data tones' onsets sit on a fine frequency grid, and
///    the burst is resampled again with the corrected scale.
/// 5. **Decode** (``SoftDemodulator``, ``SoftDecisions``, ``ViterbiDecoder``): 11 symbol windows
///    from the direct sound (later in a reverberant room if `windowDelayMilliseconds` asks for
///    it) give each group's candidate energies. Unless the strongest candidates stand out as
///    tones do (the tonal-share gate: noise 0.52, bursts at 28 dB-Hz 0.61 or more), nothing more
///    is done, so noise rarely reaches the CRC. Then soft bits, Viterbi (K = 9), and the
///    frame's CRC, kind and tail checks (``FrameCodec``): only a frame that passes all of them
///    is reported.
/// 6. **Combining** (``BurstMemory``): a burst that fails alone (its tonal share at least 0.53)
///    is tried with the earlier bursts of the last few spacings that can carry the same token,
///    their soft decisions summed; a combined frame is reported only with the frame's checks, a
///    margin and the support of every copy, at the newest burst, with ``DecodedBurst/copies``.
///    When the sync finds nothing where a kept burst's repeat is due, the repeat is looked for
///    there anyway, placed where its soft decisions correlate best with the kept burst's, and
///    combined like any other.
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
        /// Whether a burst that fails alone is tried together with the earlier bursts that can
        /// carry the same token (``BurstMemory``). Off only to measure what combining buys
        /// (`nearcast bench modem --no-combining`).
        public var combinesBursts = true
        /// Whether, when a burst was kept for combining, its next repeat is looked for where it
        /// is due even if the sync found nothing there: at 24 dB-Hz the sync misses about a third
        /// of the bursts. The chirps are too weak there to time it, so the symbol windows are slid
        /// over ±``BurstDecoder/repeatSearchSeconds`` around the due place and the burst is
        /// placed where its soft decisions correlate best with the kept burst's; then it is kept
        /// and combined as any. Off only to measure what it buys (`nearcast bench modem
        /// --no-repeat-search`).
        public var searchesRepeats = true

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

    // The stages, in the order a burst meets them.
    /// Mixes the band to 0 Hz and decimates it to the baseband rate.
    private var converter: BasebandConverter
    /// The last two bursts' worth of baseband samples and their sync scores.
    private var history: BasebandHistory
    /// Step 1: each window's scores against both chirps, and the pairing of the two chirps.
    private let correlator: ChirpCorrelator
    /// Step 2: peaks of the paired score, the candidates waiting for their audio, and what the
    /// bursts decoded so far rule out.
    private var peaks: SyncPeakPicker
    private var pending: PendingCandidates
    private var echoes: EchoSuppression
    /// Step 3: the coarse time scale and the first arrival.
    private let timing: ChirpPairTiming
    /// Step 4: the burst on the sender's clock, and the time scale left over on it.
    private var burst: ResampledBurst
    private let interpolator = FractionalInterpolator()
    private let scaleSearch: ToneOnsetScaleSearch
    /// Step 5: candidate energies and the tonal-share gate, soft bits, Viterbi.
    private let demodulator: SoftDemodulator
    private var softDecisions = SoftDecisions()
    private let viterbi: ViterbiDecoder
    /// Step 6: the soft decisions of the last bursts that failed alone.
    private var memory: BurstMemory
    /// Where the next repeats of the last bursts kept by the memory should have their first
    /// chirps (baseband window starts), while no sync candidate has been found there; -1: none.
    /// In noise the sync keeps noise candidates too, so one expectation would be overwritten
    /// by them before the burst's repeat is due.
    private var expectedFirsts = [Int](repeating: -1, count: BurstDecoder.maximumExpectedRepeats)
    /// Repeats awaited at once, and the time scale of the kept burst each repeats.
    static let maximumExpectedRepeats = 4
    private var expectedScales = [Double](repeating: 0, count: BurstDecoder.maximumExpectedRepeats)
    /// How far around where it is due a missed repeat is looked for, seconds.
    static let repeatSearchSeconds = 0.020
    /// The coarse step of that search, seconds (then halved down to one baseband sample): 2 ms
    /// found the same bursts in five at 24 dB-Hz and cost a fifth more CPU in noise.
    static let repeatSearchStepSeconds = 0.004
    private let repeatSearchHalfWidth: Int
    private let repeatSearchStep: Int
    /// Repeats looked for where they were due and placed by the kept burst they repeat
    /// (``Configuration/searchesRepeats``).
    public private(set) var repeatsSearched = 0
    /// How far a repeat's first chirp may sit from where it is expected: the largest time scale
    /// over one spacing, and 2 ms.
    private let predictionSlack: Int
    /// What the decoder did, for the bench and the listener page's figures.
    private var counts = Counts()
    /// The first arrival of the candidate being decoded (baseband window start).
    private var arrival = 0.0
    /// Baseband samples from a burst's first arrival to the end of the audio its decoding
    /// reads, whatever the time scale.
    private let audioReach: Int

    /// Makes a decoder for bursts in `band` in audio at `sampleRate` (allocates all its buffers).
    public init(sampleRate: Int, band: ModemBand = .high, configuration: Configuration = Configuration()) throws(ModemRateError) {
        let rate = try ModemRate(sampleRate: sampleRate, length: configuration.length)
        self.rate = rate
        self.band = band
        self.configuration = configuration
        converter = BasebandConverter(rate: rate, band: band)
        history = BasebandHistory(rate: rate)
        correlator = ChirpCorrelator(rate: rate, band: band)
        peaks = SyncPeakPicker(rate: rate, thresholdOverNoise: configuration.syncThresholdOverNoise)
        echoes = EchoSuppression(rate: rate, tailSeconds: Self.reverberationTailSeconds)
        timing = ChirpPairTiming(rate: rate, band: band, pairSlack: correlator.pairSlack)
        let searchHalfWidth = Int((Self.repeatSearchSeconds * Double(rate.basebandRate)).rounded())
        burst = ResampledBurst(rate: rate, band: band, windowDelayMilliseconds: configuration.windowDelayMilliseconds,
                               extraCapacity: 2 * searchHalfWidth)
        scaleSearch = ToneOnsetScaleSearch(rate: rate, band: band)
        demodulator = SoftDemodulator(rate: rate)
        viterbi = ViterbiDecoder(steps: ModemProfile.encodedBits)
        memory = BurstMemory(rate: rate)
        repeatSearchStep = max(1, Int((Self.repeatSearchStepSeconds * Double(rate.basebandRate)).rounded()))
        repeatSearchHalfWidth = searchHalfWidth
        predictionSlack = Int((memory.spacing * Double(ModemProfile.maximumTimeScalePPM) / 1e6).rounded(.up))
            + Int((BurstMemory.lagSlackSeconds * Double(rate.basebandRate)).rounded(.up))
        // From the first arrival: the scale moves the start by up to |shift|·ε, and the burst
        // stretched by up to 1/(1 − ε) needs the interpolator's reach after it (as
        // `ResampledBurst.resample` reads it). The burst is first resampled with the chirps'
        // scale, which can exceed the largest one the tones then correct it to.
        let largestScale = max(Double(ModemProfile.maximumTimeScalePPM) / 1e6, timing.largestScale)
        let shift = Int((largestScale * abs(band.firstChirpShiftSeconds) * Double(rate.basebandRate)).rounded(.up))
        audioReach = shift + Int((Double(burst.span) / (1 - largestScale)).rounded(.up)) + FractionalInterpolator.halfTaps + 2
        // The first arrival sits within the timing's reach of the candidate.
        pending = PendingCandidates(capacity: Self.maximumPendingCandidates, timingWait: timing.reachAfter,
                                    worstCaseWait: timing.reachAfter + audioReach)
    }

    /// Audio samples pushed so far.
    public var samplesPushed: Int { counts.samplesPushed }
    /// Bursts demodulated: one per sync candidate that got past the echo rule, one more for
    /// each second try at the strongest arrival.
    public var candidatesDecoded: Int { counts.candidatesDecoded }
    /// Likely echoes of the last decoded burst that failed the quick check (not counted in
    /// `candidatesDecoded`).
    public var echoesRejected: Int { counts.echoesRejected }
    /// Second tries at the strongest arrival after the first arrival's decode failed.
    public var secondArrivalTries: Int { counts.secondArrivalTries }
    /// Candidates demodulated where a kept burst's repeat was due and the sync found none.
    public var predictedCandidates: Int { counts.predictedCandidates }
    /// CRC checks made so far, the chances noise had to pass the CRC: one per demodulated burst
    /// that passed the tonal-share gate (at most two per candidate).
    public var framesTried: Int { counts.framesTried }
    /// Combinations of bursts decoded (one Viterbi run on summed soft decisions each): the CRC
    /// checks that combining adds to ``framesTried``.
    public var combinedTries: Int { memory.tries }
    /// Tokens reported from combined bursts (not found in any one alone).
    public var combinedDecodes: Int { memory.decodes }

    /// Feeds audio samples; calls `onBurst` for each token found, in order.
    public func push(_ samples: UnsafeBufferPointer<Float>, _ onBurst: (DecodedBurst) -> Void) {
        for sample in samples {
            counts.samplesPushed += 1
            if let baseband = converter.push(sample) {
                process(baseband, onBurst)
            }
        }
    }

    /// Feeds silence long enough to flush every burst still in the pipeline (end of a file).
    public func finish(_ onBurst: (DecodedBurst) -> Void) {
        let zeros = (pending.worstCaseWait + 2 * rate.basebandChirpSamples + 2) * rate.decimation + converter.delaySamples
        for _ in 0..<zeros {
            counts.samplesPushed += 1
            if let baseband = converter.push(0) { process(baseband, onBurst) }
        }
    }

    // MARK: - Per baseband sample

    private func process(_ x: (re: Float, im: Float), _ onBurst: (DecodedBurst) -> Void) {
        let t = history.produced
        history.append(x)
        let chirp = rate.basebandChirpSamples
        if t >= chirp - 1 {
            let window = t - chirp + 1
            if !correlator.scores(window: window) {
                // Not scored: the timing fills these windows in where it needs them.
                history.setScores(window: window, first: 0, second: 0)
            } else {
                let (first, second) = correlator.correlate(history, windowStart: window)
                history.setScores(window: window, first: first, second: second)
                let paired = correlator.bestFirstChirp(pairedWith: window, in: history)
                if let candidate = peaks.consider(first: paired.first, second: window, score: 0.5 * (paired.score + second),
                                                  notBefore: echoes.decodedBurstEnd) {
                    pending.enqueue(first: candidate.first, score: candidate.score)
                    for index in 0..<expectedFirsts.count
                    where expectedFirsts[index] >= 0 && abs(candidate.first - expectedFirsts[index]) <= predictionSlack {
                        expectedFirsts[index] = -1
                    }
                }
            }
        }
        // The sync found no repeat where one was expected (a peak is declared about two chirps
        // after its window): demodulate there anyway.
        for index in 0..<expectedFirsts.count where expectedFirsts[index] >= 0 && t >= expectedFirsts[index] + predictionSlack + 4 * chirp {
            counts.predictedCandidates += 1
            pending.enqueue(first: expectedFirsts[index], score: 0, predictedScale: expectedScales[index])
            expectedFirsts[index] = -1
        }
        decodeReadyCandidates(onBurst)
    }

    private func decodeReadyCandidates(_ onBurst: (DecodedBurst) -> Void) {
        // The earliest waiting candidate: its timing once its chirps' profiles are here, then
        // the rest once its burst's audio is.
        while let (slot, next) = pending.earliest() {
            if echoes.isInsideDecodedBurst(next.first) {
                pending.remove(slot: slot)
                continue
            }
            guard history.produced >= next.readyAt else { return }
            if next.timing == nil, let scale = next.predictedScale {
                // Where a repeat is due, the chirps are too weak to time it: it is placed by the
                // burst it repeats (``decode``), from the whole search's audio.
                let due = Double(next.first)
                pending.noteTiming((due, due, scale, 0, false), readyAt: next.first + repeatSearchHalfWidth + audioReach, slot: slot)
                continue
            }
            guard let measured = next.timing else {
                // Judged here rather than when decoded: nothing is decoded in between (this is
                // the earliest candidate), so the echo rule sees the same bursts either way.
                let verdict = echoes.judge(first: next.first, score: next.score)
                if verdict == .echo {
                    pending.remove(slot: slot)
                    continue
                }
                let measure = timing.measure(around: next.first, stride: correlator.stride, history: history) { window in
                    correlator.correlate(history, windowStart: window)
                }
                let latest = max(measure.firstArrival, measure.strongest)
                pending.noteTiming((measure.firstArrival, measure.strongest, measure.scale, measure.reverberation, verdict == .likelyEcho),
                                   readyAt: Int(latest.rounded(.up)) + audioReach, slot: slot)
                continue
            }
            pending.remove(slot: slot)
            if let found = decode(measured, syncScore: next.score, predicted: next.predictedScale != nil) {
                onBurst(found)
            }
        }
    }

    // MARK: - Frame decoding

    /// Steps 4-6 for a candidate whose timing `measured` is.
    private func decode(_ measured: PendingCandidates.Timing, syncScore: Float, predicted: Bool) -> DecodedBurst? {
        let likelyEcho = measured.likelyEcho
        let reverberant = measured.reverberation > configuration.reverberantProfileRatio
        let dataStart = reverberant ? burst.delayedDataStart : burst.dataStart
        memory.beginCandidate()
        arrival = measured.firstArrival
        if !predicted, let found = decode(arrival: measured.firstArrival, scale: measured.scale, dataStart: dataStart,
                                          syncScore: syncScore, quickCheck: likelyEcho) {
            return found
        }
        guard !likelyEcho else { return combined(syncScore: syncScore) }
        // In noise the first-arrival rule now and then takes a noise bump before the direct
        // sound for it; in a free field the strongest arrival is the direct sound. One more try
        // there, only when the two differ (one more CRC check, behind the gate).
        if !predicted && abs(measured.strongest - measured.firstArrival) >= 2 {
            counts.secondArrivalTries += 1
            if let found = decode(arrival: measured.strongest, scale: measured.scale, dataStart: dataStart,
                                  syncScore: syncScore, quickCheck: false) {
                return found
            }
        }
        if predicted, memory.hasPartner(forStart: measured.firstArrival),
           let placed = placeByRepeats(around: measured.firstArrival, scale: measured.scale, dataStart: dataStart),
           placed.correlation >= BurstMemory.minimumCorrelation {
            // Its chirps were too weak to be found, let alone to time it: the kept burst places it.
            repeatsSearched += 1
            memory.beginCandidate()
            arrival = placed.arrival
            if let found = decode(arrival: placed.arrival, scale: measured.scale, dataStart: dataStart,
                                  syncScore: syncScore, quickCheck: false) {
                return found
            }
        }
        return combined(syncScore: syncScore)
    }

    /// Step 6, for a candidate that failed alone: the token its burst and earlier ones give
    /// together, reported at this burst.
    private func combined(syncScore: Float) -> DecodedBurst? {
        guard configuration.combinesBursts else { return nil }
        let combination = memory.combine(through: viterbi, demodulator: demodulator)
        if memory.keptLast && configuration.searchesRepeats {
            // Its repeat is due one spacing later (the sender's spacing, 1/(1 + ε) of it on this
            // clock): if the sync misses it, it is looked for there anyway. In a free place, or
            // in place of the earliest.
            var slot = 0
            for index in 0..<expectedFirsts.count where expectedFirsts[index] < expectedFirsts[slot] { slot = index }
            expectedFirsts[slot] = Int((arrival + memory.spacing / (1 + memory.incomingScale)).rounded())
            expectedScales[slot] = memory.incomingScale
        }
        guard let found = combination, let token = FrameCodec.token(fromFrameBits: found.frameBits) else { return nil }
        let start = memory.incomingStart
        echoes.noteDecoded(start: Int(start), score: syncScore, rate: rate)
        return DecodedBurst(token: token, startSample: audioStart(ofBaseband: start), sampleRate: rate.sampleRate,
                            syncScore: syncScore, symbolSNR: found.symbolSNR,
                            timeScalePPM: Float(memory.incomingScale * 1e6), tonalShare: memory.incomingShare,
                            band: band, copies: found.copies)
    }

    /// Where within ±``repeatSearchSeconds`` of `center` (a first chirp's window start) the
    /// burst's soft decisions correlate best with a kept burst it could repeat. The stretch is
    /// resampled once and the symbol windows slid along it: every ``repeatSearchStepSeconds``,
    /// then down to one baseband sample around the best. Nil when the audio is not in the ring.
    private func placeByRepeats(around center: Double, scale: Double, dataStart: Int) -> (arrival: Double, correlation: Float)? {
        let width = repeatSearchHalfWidth
        let origin = center - Double(width) - scale * band.firstChirpShiftSeconds * Double(rate.basebandRate)
        guard burst.resample(from: history, through: interpolator, start: origin, scale: scale, extra: 2 * width) else { return nil }
        var bestOffset = 0
        var best = -Float.infinity
        var offset = 0
        while offset <= 2 * width {
            let rho = windowCorrelation(origin: origin, offset: offset, scale: scale, dataStart: dataStart)
            if rho > best { best = rho; bestOffset = offset }
            offset += repeatSearchStep
        }
        var step = repeatSearchStep / 2
        while step >= 1 {
            let around = bestOffset
            for side in stride(from: -1, through: 1, by: 2) {
                let offset = around + side * step
                guard offset >= 0 && offset <= 2 * width else { continue }
                let rho = windowCorrelation(origin: origin, offset: offset, scale: scale, dataStart: dataStart)
                if rho > best { best = rho; bestOffset = offset }
            }
            step /= 2
        }
        return (center - Double(width) + Double(bestOffset) / (1 + scale), best)
    }

    /// The burst resampled from `origin`, its windows `offset` samples on: its correlation with
    /// the kept bursts it could repeat (``BurstMemory/repeatCorrelation(from:start:)``).
    private func windowCorrelation(origin: Double, offset: Int, scale: Double, dataStart: Int) -> Float {
        _ = burst.measure(with: demodulator, dataStart: dataStart + offset)
        return memory.repeatCorrelation(from: demodulator, start: origin + Double(offset) / (1 + scale))
    }

    /// The audio sample at which the burst that begins at baseband sample `start` begins.
    private func audioStart(ofBaseband start: Double) -> Int {
        // Baseband sample t is the filter output after audio sample (t + 1)·D − 1, centred
        // `delaySamples` earlier.
        max(0, Int(((start + 1) * Double(rate.decimation)).rounded()) - 1 - converter.delaySamples)
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
        guard burst.resample(from: history, through: interpolator, start: start, scale: scale) else { return nil }
        if quickCheck {
            guard burst.measure(with: demodulator, dataStart: dataStart) >= configuration.minimumTonalShare else {
                counts.echoesRejected += 1
                return nil
            }
        }
        if configuration.refinesScaleOnTones {
            let leftover = burst.leftoverScale(with: scaleSearch, dataStart: dataStart, currentScale: scale)
            let refined = max(-largest, min(largest, scale + leftover))
            // Below 50 ppm the tones are within 1 Hz (6 % of their spacing) and the start within
            // a tenth of a sample: resampling again would change nothing that matters.
            if abs(refined - scale) >= Self.negligibleScaleChange {
                scale = refined
                start = arrival - scale * shift
                guard burst.resample(from: history, through: interpolator, start: start, scale: scale) else { return nil }
            }
        }
        counts.candidatesDecoded += 1
        let share = burst.measure(with: demodulator, dataStart: dataStart)
        var token: Token?
        var frame: (bits: UInt128, symbolSNR: Float) = (0, 0)
        if share >= configuration.minimumTonalShare {
            counts.framesTried += 1
            frame = softDecisions.decode(from: demodulator, through: viterbi)
            token = FrameCodec.token(fromFrameBits: frame.bits)
        }
        guard let token else {
            if configuration.combinesBursts { memory.keep(from: demodulator, share: share, start: start, scale: scale) }
            return nil
        }
        if configuration.combinesBursts { memory.noteDecoded(frameBits: frame.bits, start: start) }

        echoes.noteDecoded(start: Int(start), score: syncScore, rate: rate)
        return DecodedBurst(token: token, startSample: audioStart(ofBaseband: start), sampleRate: rate.sampleRate,
                            syncScore: syncScore, symbolSNR: frame.symbolSNR, timeScalePPM: Float(scale * 1e6),
                            tonalShare: share, band: band)
    }
}
