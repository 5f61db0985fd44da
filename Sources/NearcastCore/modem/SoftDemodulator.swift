/// Turns baseband samples of the burst's symbols into per-bit log-likelihood ratios.
///
/// For each symbol it measures the energy in each of the 16 tones (a DFT bin per tone: the tones
/// are orthogonal over a symbol), estimates the noise energy per bin (N0) and the symbol energy
/// (Es) over the whole burst, and scores each tone with the noncoherent likelihood
/// log I₀(2·√(Es·E)/N0). A bit's LLR is the log-sum-exp over tones whose value has the bit set
/// minus that over tones where it is clear. Soft values go to the Viterbi decoder unchanged.
public struct SoftDemodulator {
    public let rate: ModemRate
    private let toneRe: [Float]      // [tone][m] = cos(2π·f_k·m/fsb)
    private let toneIm: [Float]      // [tone][m] = −sin(2π·f_k·m/fsb)
    private var energies: [Float]    // [symbol][tone]
    /// Coded-bit index for each (symbol, bit) slot: the de-interleaver.
    private let codedIndex: [Int]

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
    }

    /// Measures the tone energies of every symbol of the data section that begins at baseband
    /// sample `start` of `re`/`im`. Returns the sum over symbols of the strongest tone's share of
    /// the symbol's energy, a timing-quality score (higher is better).
    public mutating func measure(re xr: UnsafeBufferPointer<Float>, im xi: UnsafeBufferPointer<Float>,
                                 start: Int) -> Float {
        precondition(start >= 0 && start + ModemProfile.symbolCount * rate.basebandSymbolSamples <= xr.count,
                     "data section outside the buffer")
        let ns = rate.basebandSymbolSamples
        let tones = ModemProfile.toneCount
        var score: Float = 0
        toneRe.withUnsafeBufferPointer { tr in
            toneIm.withUnsafeBufferPointer { ti in
                energies.withUnsafeMutableBufferPointer { energies in
                    for symbol in 0..<ModemProfile.symbolCount {
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
    public mutating func llrs(into output: UnsafeMutableBufferPointer<Float>) -> Float {
        precondition(output.count >= ModemProfile.codedBits, "LLR buffer too small")
        let tones = ModemProfile.toneCount
        let symbols = ModemProfile.symbolCount
        var noise: Float = 0
        var peaks: Float = 0
        energies.withUnsafeBufferPointer { e in
            for symbol in 0..<symbols {
                var total: Float = 0
                var peak: Float = 0
                for tone in 0..<tones {
                    total += e[symbol * tones + tone]
                    peak = max(peak, e[symbol * tones + tone])
                }
                noise += (total - peak) / Float(tones - 1)
                peaks += peak
            }
        }
        let n0 = max(noise / Float(symbols), Float.leastNormalMagnitude)
        let es = max(peaks / Float(symbols) - n0, 0.1 * n0)
        let snr = Float(10 * CoreMath.log(Double(es / n0)) / CoreMath.log(10))
        // Likelihood scale: log I0(2·sqrt(Es·E)/N0).
        let scale = 2 * (es.squareRoot()) / n0
        var metric = (Float(0), Float(0), Float(0), Float(0), Float(0), Float(0), Float(0), Float(0),
                      Float(0), Float(0), Float(0), Float(0), Float(0), Float(0), Float(0), Float(0))
        energies.withUnsafeBufferPointer { e in
            codedIndex.withUnsafeBufferPointer { codedIndex in
                withUnsafeMutableBytes(of: &metric) { raw in
                    let mu = raw.bindMemory(to: Float.self)
                    for symbol in 0..<symbols {
                        // μ indexed by the value a tone carries, not the tone number.
                        for tone in 0..<tones {
                            let x = Double(scale * e[symbol * tones + tone].squareRoot())
                            mu[Int(FrameCodec.value(ofTone: UInt8(tone)))] = Float(CoreMath.logBesselI0(x))
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
        return snr
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
