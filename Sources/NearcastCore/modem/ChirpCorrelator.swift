/// Synchronisation: how much each baseband window looks like each of the burst's two chirps,
/// and which first chirp a second chirp pairs with.
///
/// A window's score against a chirp is its normalised correlation with the chirp's template
/// (0...1, level-independent): |Σ x·t*|² / (L·Σ|x|²) for a template of L samples. A second
/// chirp whose window starts at d pairs with the best first-chirp score u within ±`pairSlack` of
/// d − L: a time scale moves the two peaks apart (``ModemBand/chirpPairSpreadSeconds``).
///
/// The templates are made once in `init`; scoring does not allocate.
struct ChirpCorrelator {
    /// Conjugated chirp templates, in the order they are sent, zero-padded to a multiple of 4.
    private let firstRe: [Float], firstIm: [Float], secondRe: [Float], secondIm: [Float]
    /// The templates' energy (one per tap of the chirp).
    private let templateEnergy: Float
    /// The chirp's length in groups of 4 samples, rounded up (the templates are zero-padded).
    private let paddedChirp: Int
    /// The chirp's length in baseband samples.
    private let chirp: Int
    /// Sync scores every this many baseband samples. At 44.1 kHz the baseband (4.9 kHz) is four
    /// times the chirps' bandwidth, so every other window still lands on each correlation peak's
    /// main lobe; this halves the decoder's largest cost. (``ChirpPairTiming`` fills in the
    /// skipped windows where it needs them.)
    let stride: Int
    /// How far (baseband samples) the first-chirp peak may sit from d − L at the largest time scale.
    let pairSlack: Int

    init(rate: ModemRate, band: ModemBand) {
        chirp = rate.basebandChirpSamples
        let largestScale = Double(ModemProfile.maximumTimeScalePPM) / 1e6
        pairSlack = Int((largestScale * abs(band.chirpPairSpreadSeconds) * Double(rate.basebandRate)).rounded(.up)) + 1
        stride = rate.basebandRate >= 4_000 ? 2 : 1
        paddedChirp = (chirp + 3) / 4
        let (fr, fi) = Self.template(rate: rate, band: band, rising: ModemProfile.firstChirpRises, padded: 4 * paddedChirp)
        let (sr, si) = Self.template(rate: rate, band: band, rising: !ModemProfile.firstChirpRises, padded: 4 * paddedChirp)
        firstRe = fr; firstIm = fi; secondRe = sr; secondIm = si
        templateEnergy = Float(chirp)
    }

    /// Whether the window starting at `window` is scored as the stream goes.
    @inline(__always)
    func scores(window: Int) -> Bool { window % stride == 0 }

    /// Normalised correlations of the window starting at `windowStart` with both chirps.
    ///
    /// The decoder's largest cost (every baseband sample, two chirp-long complex dot products),
    /// so it runs four lanes at a time: the ring and the templates are read as unaligned
    /// `SIMD4<Float>`s, and the lanes are summed at the end (the chirp's length is padded to a
    /// multiple of 4 with zeros in the templates).
    func correlate(_ history: BasebandHistory, windowStart: Int) -> (first: Float, second: Float) {
        let lanes = paddedChirp
        let base = history.slot(windowStart)
        var aR = SIMD4<Float>(), aI = SIMD4<Float>(), bR = SIMD4<Float>(), bI = SIMD4<Float>()
        var energy = SIMD4<Float>()
        history.re.withUnsafeBufferPointer { xr in
            history.im.withUnsafeBufferPointer { xi in
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
        if lanes * 4 > chirp {
            history.re.withUnsafeBufferPointer { xr in
                history.im.withUnsafeBufferPointer { xi in
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

    /// The best first-chirp peak that could belong with a second chirp whose window starts at
    /// `window`: its window start and score. Near the start of the stream it may be negative:
    /// those ring slots still hold the zeros the stream is taken to begin with.
    @inline(__always)
    func bestFirstChirp(pairedWith window: Int, in history: BasebandHistory) -> (first: Int, score: Float) {
        var bestFirst = window - chirp
        var bestScore: Float = -1
        for u in (window - chirp - pairSlack)...(window - chirp + pairSlack) {
            let score = history.firstScores[history.slot(u)]
            if score > bestScore { bestScore = score; bestFirst = u }
        }
        return (bestFirst, bestScore)
    }

    /// The conjugate of a chirp at baseband, sampled at the baseband rate, zero-padded to `padded`.
    private static func template(rate: ModemRate, band: ModemBand, rising: Bool, padded: Int) -> ([Float], [Float]) {
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
