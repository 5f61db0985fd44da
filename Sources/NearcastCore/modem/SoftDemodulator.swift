/// Turns baseband samples of the burst's symbols into per-bit log-likelihood ratios.
///
/// For each symbol it measures the energy in each of the 16 tones (a DFT bin per tone: the tones
/// are orthogonal over a symbol), estimates the noise energy per bin (N0) and the symbol energy
/// (Es) over the whole burst, and scores each tone with the noncoherent likelihood
/// log I₀(2·√(Es·E)/N0). A bit's LLR is the log-sum-exp over tones whose value has the bit set
/// minus that over tones where it is clear. Soft values go to the Viterbi decoder unchanged.
/// In a reverberant room the noise of each bin also counts the echo the earlier symbols left in
/// it (see `llrs(into:)`).
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
    }

    /// Measures the tone energies of every `symbolStride`-th symbol of the data section that
    /// begins at baseband sample `start` of `re`/`im`. Returns the sum over those symbols of the
    /// strongest tone's share of the symbol's energy, a timing-quality score (higher is better).
    /// Only a measurement of every symbol (stride 1) can be turned into LLRs.
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
        precondition(output.count >= ModemProfile.codedBits, "LLR buffer too small")
        precondition(measuredEverySymbol, "llrs(into:) needs a measure of every symbol first")
        let tones = ModemProfile.toneCount
        let symbols = ModemProfile.symbolCount
        let (n0, es, echo, decay) = estimateChannel()
        let snr = Float(10 * CoreMath.log(Double(es / n0)) / CoreMath.log(10))
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
                                let x = Double(2 * (es * e[symbol * tones + tone]).squareRoot() / variance)
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
                    let n0 = max(min(noise / Float(symbols), quartile / 0.287_682), Float.leastNormalMagnitude)
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
