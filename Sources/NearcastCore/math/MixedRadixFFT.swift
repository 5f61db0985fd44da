/// A complex FFT of any length whose prime factors are small (the modem's 180, 294, 720 and
/// 1176 points are products of 2, 3, 5 and 7), planned once and run without allocating.
///
/// Self-sorting Stockham form: each stage combines `span`-point transforms into
/// `span·radix`-point ones, reading one buffer and writing the other, so the output comes out in
/// natural order without a bit-reversal pass. A stage's butterfly is a direct radix-point DFT
/// (at most 7 points), so the cost is about n·Σ(radices) complex multiply-adds: 2,700 for 180
/// points, where a direct DFT takes 32,400.
///
/// ```swift
/// let fft = MixedRadixFFT(count: 180)
/// fft.transform(re: inputRe, im: inputIm)     // result in fft.outputRe / fft.outputIm
/// ```
public final class MixedRadixFFT {
    /// Points of the transform.
    public let count: Int
    /// The radix of each stage, first stage first.
    private let radices: [Int]
    /// Per stage, e^(−2πi·k·r / (span·radix)) for k < span and r < radix, interleaved re, im.
    private let twiddles: [Float]
    /// Where each stage's twiddles begin in `twiddles`.
    private let twiddleOffsets: [Int]
    /// e^(−2πi·q/radix) for every radix 2...7, at 16·radix (re, im interleaved).
    private let roots: [Float]
    private var bufferRe: [Float]
    private var bufferIm: [Float]
    private var otherRe: [Float]
    private var otherIm: [Float]
    /// Whether the last transform's result sits in `buffer` (true) or `other`.
    private var resultInBuffer = true

    /// Plans a transform of `count` points; `count`'s prime factors must all be at most 7.
    public init(count: Int) {
        precondition(count >= 1, "an FFT needs at least one point")
        self.count = count
        var radices: [Int] = []
        var rest = count
        // Radix 4 first where it divides: fewer stages than two radix-2 ones.
        while rest % 4 == 0 { radices.append(4); rest /= 4 }
        for prime in [2, 3, 5, 7] {
            while rest % prime == 0 { radices.append(prime); rest /= prime }
        }
        precondition(rest == 1, "MixedRadixFFT: the length has a prime factor above 7")
        self.radices = radices
        var twiddles: [Float] = []
        var offsets: [Int] = []
        var span = 1
        for radix in radices {
            offsets.append(twiddles.count)
            for k in 0..<span {
                for r in 0..<radix {
                    let angle = -2 * CoreMath.pi * Double(k * r) / Double(span * radix)
                    twiddles.append(Float(CoreMath.cos(angle)))
                    twiddles.append(Float(CoreMath.sin(angle)))
                }
            }
            span *= radix
        }
        self.twiddles = twiddles
        twiddleOffsets = offsets
        var roots = [Float](repeating: 0, count: 8 * 16)
        for radix in 2...7 {
            for q in 0..<radix {
                let angle = -2 * CoreMath.pi * Double(q) / Double(radix)
                roots[16 * radix + 2 * q] = Float(CoreMath.cos(angle))
                roots[16 * radix + 2 * q + 1] = Float(CoreMath.sin(angle))
            }
        }
        self.roots = roots
        // Each its own buffer: copies share one until the first write, so the first
        // `transform` allocated (a decoder's first candidate, on the audio thread).
        bufferRe = [Float](repeating: 0, count: count)
        bufferIm = [Float](repeating: 0, count: count)
        otherRe = [Float](repeating: 0, count: count)
        otherIm = [Float](repeating: 0, count: count)
    }

    /// Transforms `re`/`im` (the first `count` values; fewer are zero-padded) forward:
    /// X[k] = Σ x[n]·e^(−2πi·k·n/count). Read the result with ``withOutput(_:)``.
    public func transform(re: UnsafeBufferPointer<Float>, im: UnsafeBufferPointer<Float>) {
        let given = min(re.count, im.count, count)
        bufferRe.withUnsafeMutableBufferPointer { xr in
            bufferIm.withUnsafeMutableBufferPointer { xi in
                for n in 0..<given { xr[n] = re[n]; xi[n] = im[n] }
                for n in given..<count { xr[n] = 0; xi[n] = 0 }
            }
        }
        run()
    }

    /// Calls `body` with the last transform's real and imaginary parts.
    public func withOutput<Result>(_ body: (UnsafeBufferPointer<Float>, UnsafeBufferPointer<Float>) -> Result) -> Result {
        if resultInBuffer {
            return bufferRe.withUnsafeBufferPointer { re in bufferIm.withUnsafeBufferPointer { im in body(re, im) } }
        }
        return otherRe.withUnsafeBufferPointer { re in otherIm.withUnsafeBufferPointer { im in body(re, im) } }
    }

    private func run() {
        let n = count
        bufferRe.withUnsafeMutableBufferPointer { aRe in
            bufferIm.withUnsafeMutableBufferPointer { aIm in
                otherRe.withUnsafeMutableBufferPointer { bRe in
                    otherIm.withUnsafeMutableBufferPointer { bIm in
                        twiddles.withUnsafeBufferPointer { tw in
                            roots.withUnsafeBufferPointer { roots in
                                radices.withUnsafeBufferPointer { radices in
                                    twiddleOffsets.withUnsafeBufferPointer { offsets in
                                        var (inRe, inIm, outRe, outIm) = (aRe, aIm, bRe, bIm)
                                        var inBuffer = true
                                        var span = 1
                                        for stage in 0..<radices.count {
                                            let radix = radices[stage]
                                            let stage = Stage(radix: radix, span: span, stride: n / radix,
                                                              twiddles: UnsafeBufferPointer(rebasing: tw[offsets[stage]...]),
                                                              roots: UnsafeBufferPointer(rebasing: roots[(16 * radix)...]))
                                            stage.run(inRe: UnsafeBufferPointer(inRe), inIm: UnsafeBufferPointer(inIm),
                                                      outRe: outRe, outIm: outIm)
                                            swap(&inRe, &outRe)
                                            swap(&inIm, &outIm)
                                            inBuffer.toggle()
                                            span *= radix
                                        }
                                        resultInBuffer = inBuffer
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}

/// One Stockham stage: `count / radix` butterflies, each reading `radix` inputs `stride` apart,
/// turning them by the stage's twiddles, taking their radix-point DFT and writing the outputs
/// `span` apart. Radix 2 and 4 butterflies are written out (no multiplies by the roots ±1, ±i).
private struct Stage {
    let radix: Int
    let span: Int
    let stride: Int
    let twiddles: UnsafeBufferPointer<Float>
    /// e^(−2πi·q/radix), q = 0..<radix, interleaved re, im.
    let roots: UnsafeBufferPointer<Float>

    func run(inRe: UnsafeBufferPointer<Float>, inIm: UnsafeBufferPointer<Float>,
             outRe: UnsafeMutableBufferPointer<Float>, outIm: UnsafeMutableBufferPointer<Float>) {
        var vRe = (Float(0), Float(0), Float(0), Float(0), Float(0), Float(0), Float(0))
        var vIm = vRe
        withUnsafeMutableBytes(of: &vRe) { rawRe in
            withUnsafeMutableBytes(of: &vIm) { rawIm in
                let vr = rawRe.bindMemory(to: Float.self)
                let vi = rawIm.bindMemory(to: Float.self)
                var j = 0
                var block = 0
                while j < stride {
                    let destinationBase = block * span * radix
                    for k in 0..<span {
                        // Inputs turned by e^(−2πi·k·r/(span·radix)).
                        let t = 2 * k * radix
                        for r in 0..<radix {
                            let xr = inRe[j + r * stride], xi = inIm[j + r * stride]
                            let c = twiddles[t + 2 * r], s = twiddles[t + 2 * r + 1]
                            vr[r] = xr * c - xi * s
                            vi[r] = xr * s + xi * c
                        }
                        let destination = destinationBase + k
                        switch radix {
                        case 2:
                            outRe[destination] = vr[0] + vr[1]; outIm[destination] = vi[0] + vi[1]
                            outRe[destination + span] = vr[0] - vr[1]; outIm[destination + span] = vi[0] - vi[1]
                        case 4:
                            let aRe = vr[0] + vr[2], aIm = vi[0] + vi[2]
                            let bRe = vr[0] - vr[2], bIm = vi[0] - vi[2]
                            let cRe = vr[1] + vr[3], cIm = vi[1] + vi[3]
                            // (v1 − v3)·(−i)
                            let dRe = vi[1] - vi[3], dIm = vr[3] - vr[1]
                            outRe[destination] = aRe + cRe; outIm[destination] = aIm + cIm
                            outRe[destination + span] = bRe + dRe; outIm[destination + span] = bIm + dIm
                            outRe[destination + 2 * span] = aRe - cRe; outIm[destination + 2 * span] = aIm - cIm
                            outRe[destination + 3 * span] = bRe - dRe; outIm[destination + 3 * span] = bIm - dIm
                        default:
                            for q in 0..<radix {
                                var sr = vr[0], si = vi[0]
                                var w = q
                                for r in 1..<radix {
                                    let c = roots[2 * w], s = roots[2 * w + 1]
                                    sr += vr[r] * c - vi[r] * s
                                    si += vr[r] * s + vi[r] * c
                                    w += q
                                    if w >= radix { w -= radix }
                                }
                                outRe[destination + q * span] = sr
                                outIm[destination + q * span] = si
                            }
                        }
                        j += 1
                    }
                    block += 1
                }
            }
        }
    }
}
