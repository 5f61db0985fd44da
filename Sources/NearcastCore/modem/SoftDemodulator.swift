/// Turns baseband samples of the burst's symbols into per-bit log-likelihood ratios.
///
/// For each symbol it measures the energy in each of the 16 tones (a DFT bin per tone: the tones
/// are orthogonal over a symbol), estimates the noise energy per bin (N0) and the symbol energy
/// (Es) over the whole burst, and scores each tone with the noncoherent likelihood
/// log I₀(2·√(Es·E)/N0). A bit's LLR is the log-sum-exp over tones whose value has the bit set
/// minus that over tones where it is clear. Soft values go to the Viterbi decoder unchanged.
/// In a reverberant room the noise of each bin also counts the echo the earlier symbols left in
/// it (see `llrs(into:)`). A frame that fails its CRC can be scored again coherently, with the
/// carrier phase fitted to its re-encoded tones (see `coherentLLRs`).
public final class SoftDemodulator {
    public let rate: ModemRate
    private let toneRe: [Float]      // [tone][m] = cos(2π·f_k·m/fsb)
    private let toneIm: [Float]      // [tone][m] = −sin(2π·f_k·m/fsb)
    private var energies: [Float]    // [symbol][tone]
    /// Coded-bit index for each (symbol, bit) slot: the de-interleaver.
    private let codedIndex: [Int]
    /// Strongest tone of each symbol, from the last `measure`.
    private var peakTone: [Int]
    /// Echo energy each tone's bin is still ringing with, while the LLRs are computed.
    private var ringing: [Float]
    /// Working space for medians and quantiles.
    private var scratch: [Float]
    /// Echo shares below this are read as none: a median of noise-only bins scatters about 0,
    /// and a free field should get the plain metric.
    static let echoFloor: Float = 0.02
    /// Whether the last `measure` covered every symbol (only then are there LLRs to compute).
    private var measuredEverySymbol = false
    /// The complex DFT value of every (symbol, tone) bin of the last `measure`, interleaved
    /// re, im: the phases the coherent pass needs. Allocated once, freed in `deinit`.
    private let bins: UnsafeMutableBufferPointer<Float>
    /// The phase fit's working space, ``FitSlot/count`` values per symbol.
    private let fitWork: UnsafeMutableBufferPointer<Float>
    /// e^(−jβ(k − 8)) for every trial β of the fine grid and every tone, interleaved re, im.
    private let fineBetaRotations: UnsafeMutableBufferPointer<Float>
    /// e^(−jβ(k − 8)) for every trial β of the coarse grid and every tone, interleaved re, im.
    private let betaRotations: UnsafeMutableBufferPointer<Float>
    /// The last phase fit: the carrier's phasor at symbol 0 (re, im), ω and β.
    private var fit = PhaseFit()

    public init(rate: ModemRate) {
        self.rate = rate
        let ns = rate.basebandSymbolSamples
        let tones = ModemProfile.toneCount
        var re = [Float](repeating: 0, count: tones * ns)
        var im = [Float](repeating: 0, count: tones * ns)
        for tone in 0..<tones {
            let hz = ModemProfile.firstToneHz + tone * ModemProfile.toneSpacingHz - ModemProfile.basebandCenterHz
            for m in 0..<ns {
                let angle = 2 * CoreMath.pi * Double(hz) * Double(m) / Double(rate.basebandRate)
                re[tone * ns + m] = Float(CoreMath.cos(angle))
                im[tone * ns + m] = Float(-CoreMath.sin(angle))
            }
        }
        toneRe = re
        toneIm = im
        energies = [Float](repeating: 0, count: ModemProfile.symbolCount * tones)
        var index = [Int](repeating: 0, count: ModemProfile.codedBits)
        for coded in 0..<ModemProfile.codedBits {
            let (symbol, bit) = FrameCodec.position(ofCodedBit: coded)
            index[symbol * ModemProfile.bitsPerSymbol + bit] = coded
        }
        codedIndex = index
        peakTone = [Int](repeating: 0, count: ModemProfile.symbolCount)
        ringing = [Float](repeating: 0, count: tones)
        scratch = [Float](repeating: 0, count: ModemProfile.symbolCount * tones)
        bins = .allocate(capacity: 2 * ModemProfile.symbolCount * tones)
        bins.initialize(repeating: 0)
        fitWork = .allocate(capacity: FitSlot.count * ModemProfile.symbolCount)
        fitWork.initialize(repeating: 0)
        fineBetaRotations = .allocate(capacity: 2 * PhaseFit.fineSteps * tones)
        fineBetaRotations.initialize(repeating: 0)
        betaRotations = .allocate(capacity: 2 * PhaseFit.betaSteps * tones)
        for step in 0..<PhaseFit.betaSteps {
            let beta = PhaseFit.beta(ofStep: step)
            for tone in 0..<tones {
                let angle = -beta * Double(tone - tones / 2)
                betaRotations[2 * (step * tones + tone)] = Float(CoreMath.cos(angle))
                betaRotations[2 * (step * tones + tone) + 1] = Float(CoreMath.sin(angle))
            }
        }
    }

    deinit {
        bins.deallocate()
        fitWork.deallocate()
        fineBetaRotations.deallocate()
        betaRotations.deallocate()
    }

    /// Measures the tone energies of every `symbolStride`-th symbol of the data section that
    /// begins at baseband sample `start` of `re`/`im`. Returns the sum over those symbols of the
    /// strongest tone's share of the symbol's energy, a timing-quality score (higher is better).
    /// Only a measurement of every symbol (stride 1) can be turned into LLRs. The complex value
    /// of every bin is kept too, for the coherent pass.
    public func measure(re xr: UnsafeBufferPointer<Float>, im xi: UnsafeBufferPointer<Float>,
                        start: Int, symbolStride: Int = 1) -> Float {
        precondition(start >= 0 && start + ModemProfile.symbolCount * rate.basebandSymbolSamples <= xr.count,
                     "data section outside the buffer")
        measuredEverySymbol = symbolStride == 1
        let ns = rate.basebandSymbolSamples
        let tones = ModemProfile.toneCount
        var score: Float = 0
        toneRe.withUnsafeBufferPointer { tr in
            toneIm.withUnsafeBufferPointer { ti in
                energies.withUnsafeMutableBufferPointer { energies in
                    for symbol in stride(from: 0, to: ModemProfile.symbolCount, by: symbolStride) {
                        var total: Float = 0
                        var peak: Float = 0
                        for tone in 0..<tones {
                            var accRe: Float = 0
                            var accIm: Float = 0
                            let base = tone * ns
                            for m in 0..<ns {
                                let at = start + symbol * ns + m
                                let cr = tr[base + m]
                                let ci = ti[base + m]
                                accRe += xr[at] * cr - xi[at] * ci
                                accIm += xr[at] * ci + xi[at] * cr
                            }
                            let energy = accRe * accRe + accIm * accIm
                            energies[symbol * tones + tone] = energy
                            bins[2 * (symbol * tones + tone)] = accRe
                            bins[2 * (symbol * tones + tone) + 1] = accIm
                            total += energy
                            peak = max(peak, energy)
                        }
                        if total > 0 { score += peak / total }
                    }
                }
            }
        }
        return score
    }

    /// Writes one LLR per coded bit (coded order) from the last `measure`; returns the estimated
    /// Es/N0 in dB.
    ///
    /// Echoes are modelled, not ignored: in a reverberant room a tone keeps ringing in its bin
    /// for several symbols after it was sent, so a bin that just carried a symbol holds extra
    /// energy that is not this symbol's. From the burst itself the demodulator measures how much
    /// of a symbol's energy is left in its bin one symbol later (ρ) and how fast that decays
    /// from one symbol to the next (a), predicts each bin's echo energy I from the tones already
    /// received, and scores each tone with the noncoherent likelihood against noise of variance
    /// N0 + I: log I₀(2·√(Es·E)/(N0 + I)) − Es/(N0 + I). In a free field ρ ≈ 0 and this is the
    /// plain noncoherent metric.
    public func llrs(into output: UnsafeMutableBufferPointer<Float>) -> Float {
        writeLLRs(into: output, phaseConcentration: 0)
    }

    /// The coherent second pass: fits the carrier's phase to the bins of `sentTones` (the tones
    /// of a first decode that failed its CRC, re-encoded) and, when they line up, writes LLRs
    /// that also score each tone's phase against the fitted one. Returns the estimated Es/N0 in
    /// dB, or nil when the phases do not line up (noise, or echoes that scramble the phase).
    ///
    /// Every tone and symbol starts at a known phase (whole cycles from the burst's start), so
    /// the phase of tone k in symbol n is θ + ω·n·f_k/f_c + β·(k − 8): θ the carrier's phase, ω
    /// the turn per symbol a leftover time-scale error ε makes (2π·ε·f_c·T), β the slope across
    /// the tones a leftover timing error δ makes (2π·Δf·δ). The fit searches ω and β for the
    /// largest |Σ y_n·e^(−jφ_n)| over the sent tones' bins y_n; its share of Σ|y_n|², over the
    /// number of symbols, is the coherence (1 for a perfect fit, about 0.1 for noise).
    ///
    /// Each tone is then scored with the phase as a von Mises prior of concentration κ:
    /// log I₀(|2·√Es·X/σ² + κ·u|) − Es/σ², u the predicted unit phasor. κ = 0 is the
    /// noncoherent metric; a large κ is coherent detection, up to ~1 dB better at this SNR.
    public func coherentLLRs(into output: UnsafeMutableBufferPointer<Float>,
                             sentTones: UnsafeBufferPointer<UInt8>,
                             minimumCoherence: Float, phaseConcentration: Float) -> Float? {
        precondition(measuredEverySymbol, "coherentLLRs needs a measure of every symbol first")
        precondition(sentTones.count >= ModemProfile.symbolCount, "tone buffer too small")
        fit = fitPhase(sentTones: sentTones)
        guard fit.coherence >= minimumCoherence else { return nil }
        return writeLLRs(into: output, phaseConcentration: phaseConcentration)
    }

    /// The last phase fit (for tests and diagnostics).
    var lastPhaseFit: PhaseFit { fit }

    /// The coherence of the last fit (see ``coherentLLRs(into:sentTones:minimumCoherence:phaseConcentration:)``).
    public var lastCoherence: Float { fit.coherence }

    private func writeLLRs(into output: UnsafeMutableBufferPointer<Float>, phaseConcentration kappa: Float) -> Float {
        precondition(output.count >= ModemProfile.codedBits, "LLR buffer too small")
        precondition(measuredEverySymbol, "llrs(into:) needs a measure of every symbol first")
        let tones = ModemProfile.toneCount
        let symbols = ModemProfile.symbolCount
        let (n0, es, echo, decay) = estimateChannel()
        let snr = Float(10 * CoreMath.log(Double(es / n0)) / CoreMath.log(10))
        let amplitude = es.squareRoot()
        let fit = self.fit
        let bins = self.bins
        var metric = (Float(0), Float(0), Float(0), Float(0), Float(0), Float(0), Float(0), Float(0),
                      Float(0), Float(0), Float(0), Float(0), Float(0), Float(0), Float(0), Float(0))
        energies.withUnsafeBufferPointer { e in
            ringing.withUnsafeMutableBufferPointer { ringing in
                codedIndex.withUnsafeBufferPointer { codedIndex in
                    withUnsafeMutableBytes(of: &metric) { raw in
                        let mu = raw.bindMemory(to: Float.self)
                        for tone in 0..<tones { ringing[tone] = 0 }
                        for symbol in 0..<symbols {
                            if symbol > 0 {
                                // Ringing left by the earlier symbols, each in its own tone's bin.
                                for tone in 0..<tones { ringing[tone] *= decay }
                                let previous = peakTone[symbol - 1]
                                ringing[previous] += e[(symbol - 1) * tones + previous]
                            }
                            // μ indexed by the value a tone carries, not the tone number.
                            for tone in 0..<tones {
                                let variance = n0 + echo * ringing[tone]
                                let x: Double
                                if kappa > 0 {
                                    let (ur, ui) = fit.phasor(symbol: symbol, tone: tone)
                                    let scale = 2 * amplitude / variance
                                    let zr = scale * bins[2 * (symbol * tones + tone)] + kappa * ur
                                    let zi = scale * bins[2 * (symbol * tones + tone) + 1] + kappa * ui
                                    x = Double((zr * zr + zi * zi).squareRoot())
                                } else {
                                    x = Double(2 * (es * e[symbol * tones + tone]).squareRoot() / variance)
                                }
                                mu[Int(FrameCodec.value(ofTone: UInt8(tone)))] =
                                    Float(CoreMath.logBesselI0(x)) - es / variance
                            }
                            for bit in 0..<ModemProfile.bitsPerSymbol {
                                let mask = 1 << (ModemProfile.bitsPerSymbol - 1 - bit)
                                let llr = Self.logSumExp(mu, where: mask, set: true)
                                    - Self.logSumExp(mu, where: mask, set: false)
                                output[codedIndex[symbol * ModemProfile.bitsPerSymbol + bit]] = llr
                            }
                        }
                    }
                }
            }
        }
        return snr
    }

    /// The ω and β that line up the phases of the sent tones' bins best: a coarse grid
    /// (``PhaseFit/omegaSteps`` × ``PhaseFit/betaSteps``), then a finer one around its best.
    /// Each grid turns every bin by successive ω with one complex multiply (a per-symbol step
    /// phasor) and by β with a table per tone, so a fit takes a few hundred sines, not thousands.
    private func fitPhase(sentTones: UnsafeBufferPointer<UInt8>) -> PhaseFit {
        let tones = ModemProfile.toneCount
        let symbols = ModemProfile.symbolCount
        let work = fitWork
        var power: Float = 0
        for symbol in 0..<symbols {
            let tone = Int(sentTones[symbol] & 0x0F)
            let yr = bins[2 * (symbol * tones + tone)], yi = bins[2 * (symbol * tones + tone) + 1]
            work[FitSlot.count * symbol + FitSlot.binRe] = yr
            work[FitSlot.count * symbol + FitSlot.binIm] = yi
            work[FitSlot.count * symbol + FitSlot.elapsed] = Float(symbol) * PhaseFit.frequencyRatio(tone: tone)
            power += yr * yr + yi * yi
        }
        guard power > 0 else { return PhaseFit() }

        var best = (sum: Float(-1), re: Float(0), im: Float(0), omega: 0.0, beta: 0.0)
        // Sets every symbol's turned bin to y·e^(−j·first·a) and its step to e^(−j·step·a).
        func startTurning(first: Double, step: Double) {
            for symbol in 0..<symbols {
                let base = FitSlot.count * symbol
                let elapsed = Double(work[base + FitSlot.elapsed])
                let c = Float(CoreMath.cos(-first * elapsed)), s = Float(CoreMath.sin(-first * elapsed))
                let yr = work[base + FitSlot.binRe], yi = work[base + FitSlot.binIm]
                work[base + FitSlot.turnedRe] = yr * c - yi * s
                work[base + FitSlot.turnedIm] = yr * s + yi * c
                work[base + FitSlot.stepRe] = Float(CoreMath.cos(-step * elapsed))
                work[base + FitSlot.stepIm] = Float(CoreMath.sin(-step * elapsed))
            }
        }
        func turnOneStep() {
            for symbol in 0..<symbols {
                let base = FitSlot.count * symbol
                let zr = work[base + FitSlot.turnedRe], zi = work[base + FitSlot.turnedIm]
                let c = work[base + FitSlot.stepRe], s = work[base + FitSlot.stepIm]
                work[base + FitSlot.turnedRe] = zr * c - zi * s
                work[base + FitSlot.turnedIm] = zr * s + zi * c
            }
        }
        // |Σ turned·e^(−jβ(k−8))|² with the β rotations in `table` row `row`.
        func sum(row: Int, table: UnsafeMutableBufferPointer<Float>) -> (Float, Float, Float) {
            var sr: Float = 0, si: Float = 0
            for symbol in 0..<symbols {
                let tone = Int(sentTones[symbol] & 0x0F)
                let c = table[2 * (row * tones + tone)], s = table[2 * (row * tones + tone) + 1]
                let zr = work[FitSlot.count * symbol + FitSlot.turnedRe]
                let zi = work[FitSlot.count * symbol + FitSlot.turnedIm]
                sr += zr * c - zi * s
                si += zr * s + zi * c
            }
            return (sr * sr + si * si, sr, si)
        }

        // Coarse.
        startTurning(first: PhaseFit.omega(ofStep: 0), step: PhaseFit.omegaStep)
        for omegaStep in 0..<PhaseFit.omegaSteps {
            if omegaStep > 0 { turnOneStep() }
            for betaStep in 0..<PhaseFit.betaSteps {
                let (total, sr, si) = sum(row: betaStep, table: betaRotations)
                if total > best.sum {
                    best = (total, sr, si, PhaseFit.omega(ofStep: omegaStep), PhaseFit.beta(ofStep: betaStep))
                }
            }
        }
        // Fine: a quarter of a coarse step, one coarse step either side.
        let (omega0, beta0) = (best.omega, best.beta)
        let fineOmega = PhaseFit.omegaStep / 4, fineBeta = PhaseFit.betaStep / 4
        for row in 0..<PhaseFit.fineSteps {
            let beta = beta0 + Double(row - PhaseFit.fineSteps / 2) * fineBeta
            for tone in 0..<tones {
                let angle = -beta * Double(tone - tones / 2)
                fineBetaRotations[2 * (row * tones + tone)] = Float(CoreMath.cos(angle))
                fineBetaRotations[2 * (row * tones + tone) + 1] = Float(CoreMath.sin(angle))
            }
        }
        let firstOmega = omega0 - Double(PhaseFit.fineSteps / 2) * fineOmega
        startTurning(first: firstOmega, step: fineOmega)
        for i in 0..<PhaseFit.fineSteps {
            if i > 0 { turnOneStep() }
            for row in 0..<PhaseFit.fineSteps {
                let (total, sr, si) = sum(row: row, table: fineBetaRotations)
                if total > best.sum {
                    best = (total, sr, si, firstOmega + Double(i) * fineOmega,
                            beta0 + Double(row - PhaseFit.fineSteps / 2) * fineBeta)
                }
            }
        }
        let length = best.sum.squareRoot()
        return PhaseFit(carrierRe: best.re / length, carrierIm: best.im / length,
                        omega: best.omega, beta: best.beta,
                        coherence: best.sum / (power * Float(symbols)))
    }

    /// Noise density N0, symbol energy Es, echo share ρ and per-symbol decay a of the last
    /// `measure`, from the strongest tone of each symbol.
    private func estimateChannel() -> (n0: Float, es: Float, echo: Float, decay: Float) {
        let symbols = ModemProfile.symbolCount
        // Every buffer is taken as a pointer once, up front: writing to the arrays from inside
        // another array's closure makes Swift copy them, an allocation per write.
        return energies.withUnsafeBufferPointer { e in
            peakTone.withUnsafeMutableBufferPointer { peakTone in
                scratch.withUnsafeMutableBufferPointer { scratch in
                    let tones = ModemProfile.toneCount
                    var noise: Float = 0
                    var peaks: Float = 0
                    for symbol in 0..<symbols {
                        var total: Float = 0
                        var best = 0
                        for tone in 0..<tones {
                            total += e[symbol * tones + tone]
                            if e[symbol * tones + tone] > e[symbol * tones + best] { best = tone }
                        }
                        peakTone[symbol] = best
                        let peak = e[symbol * tones + best]
                        noise += (total - peak) / Float(tones - 1)
                        peaks += peak
                    }
                    // The mean of the other bins counts echoes as noise; the lower quartile of
                    // every bin but the peaks does not (for noise alone it is N0·ln(4/3)).
                    var count = 0
                    for symbol in 0..<symbols {
                        for tone in 0..<tones where tone != peakTone[symbol] {
                            scratch[count] = e[symbol * tones + tone]
                            count += 1
                        }
                    }
                    let quartile = Self.select(scratch, count: count, rank: count / 4)
                    // Floored at 60 dB under the tones: where the ring still holds the zeros a
                    // stream begins with (or `finish` appends), most bins are empty, and an N0 of
                    // nearly 0 would make the LLRs infinite (NaN in the Viterbi decoder).
                    let floor = max(1e-6 * peaks / Float(symbols), Float.leastNormalMagnitude)
                    let n0 = max(min(noise / Float(symbols), quartile / 0.287_682), floor)
                    let es = max(peaks / Float(symbols) - n0, 0.1 * n0)

                    // ρ: what is left in the previous symbol's bin, as a share of what it put there.
                    let echo = Self.echoShare(lag: 1, n0: n0, energies: e, peakTone: peakTone, scratch: scratch)
                    let second = Self.echoShare(lag: 2, n0: n0, energies: e, peakTone: peakTone, scratch: scratch)
                    guard echo > Self.echoFloor else { return (n0, es, 0, 0) }
                    return (n0, es, echo, max(0, min(0.9, second / echo)))
                }
            }
        }
    }

    /// The median over symbols of (E(i, p(i−lag)) − N0) / E(i−lag, p(i−lag)), over symbols whose
    /// tone and the tones between differ from p(i−lag).
    private static func echoShare(lag: Int, n0: Float, energies e: UnsafeBufferPointer<Float>,
                                  peakTone: UnsafeMutableBufferPointer<Int>,
                                  scratch: UnsafeMutableBufferPointer<Float>) -> Float {
        let tones = ModemProfile.toneCount
        var count = 0
        for symbol in lag..<ModemProfile.symbolCount {
            let source = peakTone[symbol - lag]
            var reused = false
            for between in (symbol - lag + 1)...symbol where peakTone[between] == source { reused = true }
            if reused { continue }
            let sent = e[(symbol - lag) * tones + source]
            guard sent > 0 else { continue }
            scratch[count] = max(0, e[symbol * tones + source] - n0) / sent
            count += 1
        }
        guard count >= 8 else { return 0 }
        return select(scratch, count: count, rank: count / 2)
    }

    /// The `rank`-th smallest of the first `count` values (quickselect, in place).
    private static func select(_ values: UnsafeMutableBufferPointer<Float>, count: Int, rank: Int) -> Float {
        var low = 0, high = count - 1
        while low < high {
            let pivot = values[(low + high) / 2]
            var i = low, j = high
            while i <= j {
                while values[i] < pivot { i += 1 }
                while values[j] > pivot { j -= 1 }
                if i <= j { values.swapAt(i, j); i += 1; j -= 1 }
            }
            if rank <= j { high = j } else if rank >= i { low = i } else { break }
        }
        return values[rank]
    }

    private static func logSumExp(_ mu: UnsafeMutableBufferPointer<Float>, where mask: Int, set: Bool) -> Float {
        var top = -Float.infinity
        for value in 0..<mu.count where (value & mask != 0) == set { top = max(top, mu[value]) }
        var sum = 0.0
        for value in 0..<mu.count where (value & mask != 0) == set {
            sum += CoreMath.exp(Double(mu[value] - top))
        }
        return top + Float(CoreMath.log(sum))
    }
}

/// The carrier phase of a burst as the coherent pass models it: tone k of symbol n arrives with
/// phase θ + ω·n·f_k/f_c + β·(k − 8) (see ``SoftDemodulator/coherentLLRs(into:sentTones:minimumCoherence:phaseConcentration:)``).
struct PhaseFit {
    /// e^(jθ).
    var carrierRe: Float = 1
    var carrierIm: Float = 0
    /// Radians per symbol at the centre frequency.
    var omega: Double = 0
    /// Radians per tone step.
    var beta: Double = 0
    /// |Σ y·e^(−jφ)|² / (N·Σ|y|²): 1 when every phase fits, about 0.1 for noise.
    var coherence: Float = 0

    /// The coarse grid of ω: ±0.8 rad per symbol is a leftover time scale of ±660 ppm, five
    /// times the spread of the chirp pair's estimate at 28 dB-Hz.
    static let omegaStep = 0.04
    static let omegaSteps = 41
    /// The coarse grid of β: ±0.5 rad per tone step is a timing error of ±800 µs, more than
    /// the baseband sample or so (333 µs at 48 kHz) the timing search leaves.
    static let betaStep = 0.05
    static let betaSteps = 21

    /// Points of the fine grid on each axis: a quarter of a coarse step apart, one coarse step
    /// either side of the coarse best.
    static let fineSteps = 9

    static func omega(ofStep step: Int) -> Double { Double(step - omegaSteps / 2) * omegaStep }
    static func beta(ofStep step: Int) -> Double { Double(step - betaSteps / 2) * betaStep }

    /// f_k / f_c: a time-scale error turns each tone in proportion to its frequency.
    static func frequencyRatio(tone: Int) -> Float {
        Float(ModemProfile.firstToneHz + tone * ModemProfile.toneSpacingHz) / Float(ModemProfile.basebandCenterHz)
    }

    /// The predicted unit phasor of `tone` in `symbol`.
    func phasor(symbol: Int, tone: Int) -> (Float, Float) {
        let angle = omega * Double(Float(symbol) * Self.frequencyRatio(tone: tone))
            + beta * Double(tone - ModemProfile.toneCount / 2)
        let c = Float(CoreMath.cos(angle)), s = Float(CoreMath.sin(angle))
        return (carrierRe * c - carrierIm * s, carrierRe * s + carrierIm * c)
    }
}

/// Where each value sits in the phase fit's per-symbol working space.
enum FitSlot {
    /// The sent tone's complex bin.
    static let binRe = 0, binIm = 1
    /// n·f_k/f_c: the symbol's elapsed time in units the turn ω applies to.
    static let elapsed = 2
    /// The bin turned by the current trial ω.
    static let turnedRe = 3, turnedIm = 4
    /// The turn from one trial ω to the next.
    static let stepRe = 5, stepIm = 6
    static let count = 7
}
