/// One burst taken out of the ring onto the sender's clock: what steps 4 and 5 of the decoder
/// read (the search on the data tones and the demodulator).
///
/// Resampling reads the ring at `start + i/(1+ε)` for each of `span` samples (the two chirps,
/// the window delay, the symbols and a little more) through the ``FractionalInterpolator``, and
/// turns the result back by ε·f_c/(1+ε), where the time scale left the tones.
///
/// Allocated once in `init`; `resample` does not allocate.
struct ResampledBurst {
    /// Baseband samples of the resampled burst: chirps, window delay, symbols and a little more.
    let span: Int
    /// Where the first symbol window starts in the resampled burst, without and with the
    /// window delay (``BurstDecoder/Configuration/windowDelayMilliseconds``).
    let dataStart: Int
    let delayedDataStart: Int
    private let centerHz: Double
    private let basebandRate: Double
    private var re: [Float]
    private var im: [Float]

    /// Samples beyond `span` that one resampling can also fill (``resample(from:through:start:scale:extra:)``):
    /// room to slide the symbol windows over a search.
    let extraCapacity: Int

    init(rate: ModemRate, band: ModemBand, windowDelayMilliseconds: Double, extraCapacity: Int = 0) {
        let fb = Double(rate.basebandRate)
        dataStart = 2 * rate.basebandChirpSamples
        delayedDataStart = dataStart + Int((windowDelayMilliseconds / 1000 * fb).rounded())
        span = delayedDataStart + rate.symbolCount * rate.basebandSymbolSamples + 2
        centerHz = Double(band.basebandCenterHz)
        basebandRate = fb
        self.extraCapacity = extraCapacity
        re = [Float](repeating: 0, count: span + extraCapacity)
        im = [Float](repeating: 0, count: span + extraCapacity)
    }

    /// Resamples the burst that starts at baseband sample `start` of `history` with time scale
    /// `scale`, and `extra` samples more (at most ``extraCapacity``); false when its audio is not
    /// (or no longer) in the ring.
    mutating func resample(from history: BasebandHistory, through interpolator: FractionalInterpolator,
                           start: Double, scale: Double, extra: Int = 0) -> Bool {
        let stretch = 1 / (1 + scale)
        let origin = Int(start.rounded(.down)) - FractionalInterpolator.halfTaps - 1
        let span = self.span + min(extra, extraCapacity)
        let last = start + Double(span) * stretch + Double(FractionalInterpolator.halfTaps) + 1
        guard history.holds(from: origin, through: Int(last)) else { return false }
        let offset = history.slot(origin)
        // After resampling, the tones sit ε·f_c/(1+ε) above where they belong.
        let step = -2 * CoreMath.pi * centerHz * scale * stretch / basebandRate
        let stepRe = CoreMath.cos(step), stepIm = CoreMath.sin(step)
        var rotRe = 1.0, rotIm = 0.0
        // Every buffer is taken as a pointer once: element writes to arrays inside the loop
        // would each pay an exclusivity check and a uniqueness test.
        history.re.withUnsafeBufferPointer { xr in
            history.im.withUnsafeBufferPointer { xi in
                re.withUnsafeMutableBufferPointer { outRe in
                    im.withUnsafeMutableBufferPointer { outIm in
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

    /// The demodulator's tonal share of the symbols whose first window starts at `dataStart`
    /// (its energies are kept for ``SoftDecisions``).
    func measure(with demodulator: SoftDemodulator, dataStart: Int) -> Float {
        re.withUnsafeBufferPointer { re in
            im.withUnsafeBufferPointer { im in demodulator.measure(re: re, im: im, start: dataStart) }
        }
    }

    /// The time scale left over after resampling at `currentScale`, from the data tones.
    func leftoverScale(with search: ToneOnsetScaleSearch, dataStart: Int, currentScale: Double) -> Double {
        re.withUnsafeBufferPointer { re in
            im.withUnsafeBufferPointer { im in search.search(re: re, im: im, start: dataStart, currentScale: currentScale) }
        }
    }
}
