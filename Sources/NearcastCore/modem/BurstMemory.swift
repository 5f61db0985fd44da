/// The soft decisions of the last bursts that failed alone, and the combinations of them that
/// can carry one token (Chase combining).
///
/// A box repeats its token every 1.44 s (its burst spacing; a multiple of it with several
/// publications or both bands). A burst too weak to decode alone still holds evidence: its label
/// metrics μ (``SoftDemodulator/labelMetrics(into:)``, log-likelihoods of each group's four
/// labels, scaled by the burst's own Es/N0). Copies of one codeword in independent noise add:
/// the sum of their label metrics, turned into bit LLRs and Viterbi-decoded, is the
/// maximum-likelihood decode of the copies together. Each burst was synchronised, time-scaled and
/// demodulated on its own; nothing of one burst's phase, timing or scale is used for another.
///
/// What may be combined with the burst that just failed (the *incoming* one), from the slots:
/// - stored within ``maximumRepeats`` spacings, at a lag of n spacings (n = 1…6) within the
///   largest time scale (±5,500 ppm of the lag) and 20 ms: a box's repeats, never another burst
///   of the same group;
/// - not *explained*: a slot that supports a token decoded since (z ≥ ``minimumSupport``, below)
///   is a copy of that token and never joins a combination again;
/// - *compatible*: the normalised correlation of the two bursts' bit LLRs is at least
///   ``minimumCorrelation`` (two copies of one token: median 0.35 at 24 dB-Hz; two tokens:
///   about N(0, 0.075), so about 2 % of unrelated pairs pass).
///
/// Tries, at most three a failed burst: the incoming burst with every compatible slot; if that
/// fails and there were three or more, with all but the least correlated (a copy timed badly or
/// not a copy at all drags the sum down); if there were several, with the most correlated one
/// alone. A combined frame is
/// reported only if it passes the frame's checks (CRC, kind, tail: ``FrameCodec``) **and**
/// - the margin: the smallest add-compare-select gap on the winning Viterbi path over Σ|LLR|
///   is at least ``minimumMargin`` (the gap is the winning metric minus the best other
///   codeword's: a frame the copies do not single out is not taken); and
/// - every copy supports it on its own: z = Σ cᵢLᵢ / √ΣLᵢ² ≥ ``minimumSupport`` for each copy's
///   LLRs L against the frame's codeword c (±1). A copy of another token gives z about N(0, 1).
///
/// So copies of two different tokens (an EID that rotates within a group) give both tokens or
/// neither: the second token's bursts do not support the first and are kept apart by the
/// correlation screen, and a hybrid frame must pass the CRC (2⁻¹⁶·½ by chance), the margin and
/// the support of every copy. A burst that fails alone but supports a token decoded in the last
/// spacings is a repeat of it: it is marked explained and nothing more is tried.
///
/// Memory: 8 slots of label metrics (352 floats) and bit LLRs (180) each, about 17 KB a band,
/// allocated in `init`; nothing after allocates.
struct BurstMemory {
    /// Bursts kept at once.
    static let slotCount = 8
    /// The tonal share a failed burst needs to be kept: below the single burst's gate (0.58),
    /// above white noise's 0.525 ± 0.026; bursts at 24 dB-Hz give a median of about 0.56.
    static let storageFloor: Float = 0.53
    /// How many spacings back a copy may be: five bursts and a missed one.
    static let maximumRepeats = 6
    /// The lag's slack beyond the largest time scale, seconds: each burst's start is estimated
    /// on its own, and at 24 dB-Hz the first-arrival rule now and then lands 10-20 ms off (on
    /// the bench, a burst 57 baseband samples, 19 ms, from its place). The correlation screen,
    /// the margin and the support keep the wider window from mixing tokens.
    static let lagSlackSeconds = 0.020
    /// The correlation screen between two bursts' bit LLRs.
    static let minimumCorrelation: Float = 0.15
    /// The acceptance margin: path gap over Σ|LLR|. In the model (research/burst-combining.md)
    /// it lets through about 1 % of wrong frames and keeps 99.9 % of right ones at 26 dB-Hz.
    static let minimumMargin: Float = 0.020
    /// The support each copy must give the combined frame on its own.
    static let minimumSupport: Float = 4
    /// Tokens decoded lately that a failed burst may be a repeat of.
    static let recentCount = 2

    /// Baseband samples between two bursts of the box (two burst lengths: its 50 % duty cap).
    let spacing: Double
    /// Baseband samples of slack on a lag of one spacing, and per further spacing.
    private let slack: Double
    private let tolerance: Double
    /// Label metrics per burst.
    private let labelCount: Int
    private let llrCount = ModemProfile.motherCodedBits
    /// The row of `labels` and `llrs` that holds the incoming burst (after the slots).
    private let incoming = BurstMemory.slotCount
    /// The row a trial demodulation is measured in (``repeatCorrelation(from:start:)``), so the
    /// incoming burst kept is not overwritten.
    private let trial = BurstMemory.slotCount + 1

    /// Per row (slots, then the incoming burst): label metrics and bit LLRs.
    private var labels: [Float]
    private var llrs: [Float]
    /// Per slot: where the burst began (baseband sample), its tonal share, its Es/N0 (dB).
    private var starts: [Double]
    private var shares: [Float]
    private var snrs: [Float]
    private var states: [SlotState]

    /// The incoming burst: its tonal share (below 0: none kept), start, scale, Es/N0.
    private(set) var incomingShare: Float = -1
    private(set) var incomingStart = 0.0
    private(set) var incomingScale = 0.0
    private var incomingSNR: Float = 0

    /// Scratch: the summed label metrics, their bit LLRs, a codeword's signs.
    private var sum: [Float]
    private var combined: [Float]
    private var signs: [Float]
    /// Tokens decoded lately: their frame bits, codeword signs and where their burst began.
    private var recentBits: [UInt128]
    private var recentSigns: [Float]
    private var recentStarts: [Double]
    private var recentValid: [Bool]

    /// Whether the last ``combine`` kept the incoming burst for later (it neither gave a token
    /// nor was a repeat of a recent one).
    private(set) var keptLast = false

    /// Combined decodes tried (Viterbi runs on sums) and reported.
    private(set) var tries = 0
    private(set) var decodes = 0

    enum SlotState: UInt8 { case free, unexplained, explained }

    /// A token found in combined bursts, reported at the incoming (newest) burst.
    struct Combination {
        var frameBits: UInt128
        /// Bursts combined, the incoming one included.
        var copies: Int
        /// The copies' Es/N0 added, dB.
        var symbolSNR: Float
    }

    init(rate: ModemRate) {
        spacing = Double(2 * rate.basebandBurstSamples)
        slack = Self.lagSlackSeconds * Double(rate.basebandRate)
        tolerance = Double(ModemProfile.maximumTimeScalePPM) / 1e6
        labelCount = rate.symbolCount * ModemProfile.groupCount * ModemProfile.tonesPerGroup
        labels = [Float](repeating: 0, count: (Self.slotCount + 2) * labelCount)
        llrs = [Float](repeating: 0, count: (Self.slotCount + 2) * ModemProfile.motherCodedBits)
        starts = [Double](repeating: 0, count: Self.slotCount)
        shares = [Float](repeating: 0, count: Self.slotCount)
        snrs = [Float](repeating: 0, count: Self.slotCount)
        states = [SlotState](repeating: .free, count: Self.slotCount)
        sum = [Float](repeating: 0, count: labelCount)
        combined = [Float](repeating: 0, count: ModemProfile.motherCodedBits)
        signs = [Float](repeating: 0, count: ModemProfile.motherCodedBits)
        recentBits = [UInt128](repeating: 0, count: Self.recentCount)
        recentSigns = [Float](repeating: 0, count: Self.recentCount * ModemProfile.motherCodedBits)
        recentStarts = [Double](repeating: 0, count: Self.recentCount)
        recentValid = [Bool](repeating: false, count: Self.recentCount)
    }

    /// How far back a copy may be, baseband samples.
    private var horizon: Double { Double(Self.maximumRepeats) * spacing * (1 + tolerance) + slack }

    // MARK: - The incoming burst

    /// A new sync candidate: forgets the last one's soft decisions.
    mutating func beginCandidate() { incomingShare = -1 }

    /// Keeps the soft decisions of the burst `demodulator` measured last (tonal share `share`,
    /// begun at baseband sample `start` with time scale `scale`), when it reaches the storage
    /// floor and beats what this candidate already kept (the second try at the strongest
    /// arrival demodulates the same burst again).
    mutating func keep(from demodulator: SoftDemodulator, share: Float, start: Double, scale: Double) {
        guard share >= Self.storageFloor, share > incomingShare else { return }
        incomingSNR = measure(demodulator, into: incoming)
        incomingShare = share
        incomingStart = start
        incomingScale = scale
    }

    /// Whether a kept burst that no token explains began a whole number of spacings before `start`:
    /// a burst there could be its repeat.
    func hasPartner(forStart start: Double) -> Bool {
        for slot in 0..<Self.slotCount where states[slot] == .unexplained && lagFits(start - starts[slot]) { return true }
        return false
    }

    /// How much the burst the demodulator measured last, begun at `start`, looks like a repeat
    /// of a kept one: the largest correlation of its bit LLRs with those of the unexplained slots
    /// a whole number of spacings earlier (-1: none). What places a burst whose own chirps are
    /// too weak to time it (``BurstDecoder``'s search at a repeat).
    /// The burst's LLRs are the demodulator's quick ones (``SoftDemodulator/quickLLRs(into:)``):
    /// they only place it; what is kept and combined is measured again in full.
    mutating func repeatCorrelation(from demodulator: SoftDemodulator, start: Double) -> Float {
        let llrCount = self.llrCount, row = trial
        llrs.withUnsafeMutableBufferPointer { llrs in
            demodulator.quickLLRs(into: UnsafeMutableBufferPointer(rebasing: llrs[(row * llrCount)..<((row + 1) * llrCount)]))
        }
        var best: Float = -1
        for slot in 0..<Self.slotCount where states[slot] == .unexplained && lagFits(start - starts[slot]) {
            best = max(best, correlation(trial, slot))
        }
        return best
    }

    /// The demodulator's label metrics and bit LLRs into `row`; returns the burst's Es/N0 (dB).
    private mutating func measure(_ demodulator: SoftDemodulator, into row: Int) -> Float {
        let labelCount = self.labelCount, llrCount = self.llrCount
        let snr = labels.withUnsafeMutableBufferPointer { labels in
            demodulator.labelMetrics(into: UnsafeMutableBufferPointer(rebasing: labels[(row * labelCount)..<((row + 1) * labelCount)]))
        }
        labels.withUnsafeBufferPointer { labels in
            llrs.withUnsafeMutableBufferPointer { llrs in
                demodulator.llrs(fromLabelMetrics: UnsafeBufferPointer(rebasing: labels[(row * labelCount)..<((row + 1) * labelCount)]),
                                 into: UnsafeMutableBufferPointer(rebasing: llrs[(row * llrCount)..<((row + 1) * llrCount)]))
            }
        }
        return snr
    }

    // MARK: - Decoded tokens

    /// A token was decoded (alone or combined) from the burst begun at `start`: remembers it,
    /// and marks every kept burst that supports it as explained.
    mutating func noteDecoded(frameBits: UInt128, start: Double) {
        var entry = 0
        for index in 0..<Self.recentCount {
            if recentValid[index] && recentBits[index] == frameBits { entry = index; break }
            if !recentValid[index] || recentStarts[index] < recentStarts[entry] { entry = index }
        }
        recentBits[entry] = frameBits
        recentStarts[entry] = start
        recentValid[entry] = true
        Self.codeword(frameBits, into: &recentSigns, row: entry)
        for slot in 0..<Self.slotCount where states[slot] == .unexplained {
            if support(row: slot, signs: recentSigns, signsRow: entry) >= Self.minimumSupport { states[slot] = .explained }
        }
    }

    // MARK: - Combining

    /// After the incoming burst failed alone: a repeat of a recent token is marked and dropped;
    /// otherwise the burst is tried with the kept ones that can carry the same token, then kept.
    /// Returns the token's frame bits when a combination passed every check.
    mutating func combine(through viterbi: ViterbiDecoder, demodulator: SoftDemodulator) -> Combination? {
        keptLast = false
        guard incomingShare >= 0 else { return nil }
        let now = incomingStart
        for slot in 0..<Self.slotCount where states[slot] != .free && now - starts[slot] > horizon {
            states[slot] = .free
        }
        for index in 0..<Self.recentCount where recentValid[index] && abs(now - recentStarts[index]) <= horizon {
            if support(row: incoming, signs: recentSigns, signsRow: index) >= Self.minimumSupport { return nil }
        }
        var compatible: UInt16 = 0
        var best = -1, worst = -1
        var bestCorrelation: Float = 0, worstCorrelation = Float.infinity
        for slot in 0..<Self.slotCount where states[slot] == .unexplained && lagFits(now - starts[slot]) {
            let rho = correlation(incoming, slot)
            guard rho >= Self.minimumCorrelation else { continue }
            compatible |= 1 << UInt16(slot)
            if rho > bestCorrelation { bestCorrelation = rho; best = slot }
            if rho < worstCorrelation { worstCorrelation = rho; worst = slot }
        }
        var found: Combination?
        if compatible != 0 {
            found = attempt(compatible, viterbi: viterbi, demodulator: demodulator)
            if found == nil && compatible.nonzeroBitCount > 2 {
                found = attempt(compatible & ~(1 << UInt16(worst)), viterbi: viterbi, demodulator: demodulator)
            }
            if found == nil && compatible.nonzeroBitCount > 1 {
                found = attempt(1 << UInt16(best), viterbi: viterbi, demodulator: demodulator)
            }
        }
        if let found {
            decodes += 1
            noteDecoded(frameBits: found.frameBits, start: now)
        } else {
            store()
            keptLast = true
        }
        return found
    }

    /// Whether a lag (baseband samples, newer minus older) is a whole number of spacings, 1 to
    /// ``maximumRepeats``, within the largest time scale.
    func lagFits(_ lag: Double) -> Bool {
        guard lag > 0 else { return false }
        let n = (lag / spacing).rounded()
        guard n >= 1 && n <= Double(Self.maximumRepeats) else { return false }
        return abs(lag - n * spacing) <= n * spacing * tolerance + slack
    }

    /// Sums the incoming burst's label metrics with those of the slots in `mask`, decodes, and
    /// applies the acceptance rule.
    private mutating func attempt(_ mask: UInt16, viterbi: ViterbiDecoder, demodulator: SoftDemodulator) -> Combination? {
        tries += 1
        let labelCount = self.labelCount
        var snr = CoreMath.exp(Double(incomingSNR) / 10 * CoreMath.log(10))
        labels.withUnsafeBufferPointer { labels in
            sum.withUnsafeMutableBufferPointer { sum in
                for index in 0..<labelCount { sum[index] = labels[incoming * labelCount + index] }
                for slot in 0..<Self.slotCount where mask & (1 << UInt16(slot)) != 0 {
                    for index in 0..<labelCount { sum[index] += labels[slot * labelCount + index] }
                }
            }
        }
        for slot in 0..<Self.slotCount where mask & (1 << UInt16(slot)) != 0 {
            snr += CoreMath.exp(Double(snrs[slot]) / 10 * CoreMath.log(10))
        }
        sum.withUnsafeBufferPointer { sum in
            combined.withUnsafeMutableBufferPointer { demodulator.llrs(fromLabelMetrics: sum, into: $0) }
        }
        let decoded = combined.withUnsafeBufferPointer { viterbi.decode($0) }
        guard FrameCodec.token(fromFrameBits: decoded.bits) != nil else { return nil }
        // The margin: one more forward pass, only for frames that passed the CRC.
        let gap = combined.withUnsafeBufferPointer { viterbi.pathGap($0, bits: decoded.bits) }
        var mass: Float = 0
        for index in 0..<llrCount { mass += abs(combined[index]) }
        guard mass > 0, gap / mass >= Self.minimumMargin else { return nil }
        Self.codeword(decoded.bits, into: &signs, row: 0)
        guard support(row: incoming, signs: signs, signsRow: 0) >= Self.minimumSupport else { return nil }
        for slot in 0..<Self.slotCount where mask & (1 << UInt16(slot)) != 0 {
            guard support(row: slot, signs: signs, signsRow: 0) >= Self.minimumSupport else { return nil }
        }
        return Combination(frameBits: decoded.bits, copies: 1 + mask.nonzeroBitCount,
                           symbolSNR: Float(10 * CoreMath.log(snr) / CoreMath.log(10)))
    }

    /// Keeps the incoming burst in a free slot, an explained one, or in place of the kept burst
    /// with the lowest tonal share if that is lower than its own.
    private mutating func store() {
        var target = -1
        for slot in 0..<Self.slotCount {
            if states[slot] != .unexplained { target = slot; break }
            if target < 0 || shares[slot] < shares[target] { target = slot }
        }
        guard states[target] != .unexplained || shares[target] < incomingShare else { return }
        let labelCount = self.labelCount, llrCount = self.llrCount
        for index in 0..<labelCount { labels[target * labelCount + index] = labels[incoming * labelCount + index] }
        for index in 0..<llrCount { llrs[target * llrCount + index] = llrs[incoming * llrCount + index] }
        starts[target] = incomingStart
        shares[target] = incomingShare
        snrs[target] = incomingSNR
        states[target] = .unexplained
    }

    // MARK: - Screens

    /// z of a row's LLRs for the codeword in `signs` (row `signsRow`): Σ cᵢLᵢ / √ΣLᵢ².
    private func support(row: Int, signs: [Float], signsRow: Int) -> Float {
        var dot: Float = 0, energy: Float = 0
        for index in 0..<llrCount {
            let l = llrs[row * llrCount + index]
            dot += signs[signsRow * llrCount + index] * l
            energy += l * l
        }
        return energy > 0 ? dot / energy.squareRoot() : 0
    }

    /// The normalised correlation of two rows' bit LLRs.
    private func correlation(_ a: Int, _ b: Int) -> Float {
        var dot: Float = 0, ea: Float = 0, eb: Float = 0
        for index in 0..<llrCount {
            let x = llrs[a * llrCount + index], y = llrs[b * llrCount + index]
            dot += x * y
            ea += x * x
            eb += y * y
        }
        return ea > 0 && eb > 0 ? dot / (ea * eb).squareRoot() : 0
    }

    /// The mother codeword of `frameBits` as ±1 (+1: bit 1, the LLRs' sign), into `row` of `output`.
    private static func codeword(_ frameBits: UInt128, into output: inout [Float], row: Int) {
        let count = ModemProfile.encodedBits
        let base = row * ModemProfile.motherCodedBits
        var state = 0
        for step in 0..<count {
            let bit = Int(truncatingIfNeeded: frameBits >> UInt128(count - 1 - step)) & 1
            let out = ConvolutionalCode.step(state: state, bit: bit)
            state = out.next
            output[base + 2 * step] = out.c0 == 1 ? 1 : -1
            output[base + 2 * step + 1] = out.c1 == 1 ? 1 : -1
        }
    }
}
