/// Measures what is left of a burst's time scale from its data tones, after the chirps' estimate.
///
/// In a reverberant room the two chirps' correlation profiles are different speckle patterns, so
/// the time scale read from their distance is off by 1000-4000 ppm in about one burst in twenty.
/// The data tones are better witnesses: a room changes their level and phase, never their
/// frequency, and a time-scale error ε moves every tone by ε·f ≈ 19 Hz per 1000 ppm.
///
/// For each symbol window (and the window before the data) the search takes the spectrum on a
/// grid four times finer than the tone spacing (a zero-padded FFT, 4.17 Hz), turns it into
/// onsets (the energy a bin gained over the window before: a room's ring from the previous
/// symbol is then not mistaken for this symbol's tone), and scores each frequency offset d by the
/// sum over symbols and groups of the strongest of the group's 4 candidates shifted by d. The
/// best d, refined by a parabola, is the leftover time scale d·q/f_c. Measured in the lab:
/// 20-30 ppm rms in rooms, walking and noise. The hopping plan was chosen so that no shift maps
/// many groups onto other groups of the same symbol, which keeps the score's peak unique.
///
/// All buffers are allocated in `init`; `search` does not allocate.
public final class ToneOnsetScaleSearch {
    public let rate: ModemRate
    /// The band searched (its centre sets how far a time scale moves the tones).
    public let band: ModemBand
    private let fft: MixedRadixFFT
    /// Fine steps of the widest offset searched (±2·5500 ppm around the chirps' estimate).
    let maximumOffset: Int
    /// Fine positions kept either side of the mixing frequency.
    private let reach: Int
    /// Fine-grid energies (onsets after `search` converts them): [window][position + reach],
    /// window 0 the one before the data.
    private var fine: [Float]
    /// The score of each offset −maximumOffset...maximumOffset.
    private var scores: [Float]
    /// Fine-grid offset (from the mixing frequency) of every candidate tone, symbol-major:
    /// [symbol][group][tone].
    private let candidateOffsets: [Int]
    /// Zero-padded input of one window.
    private var paddedRe: [Float]
    private var paddedIm: [Float]

    /// Fine grid steps per tone spacing.
    public static let oversampling = 4

    public init(rate: ModemRate, band: ModemBand = .high) {
        self.band = band
        self.rate = rate
        let ns = rate.basebandSymbolSamples
        fft = MixedRadixFFT(count: Self.oversampling * ns)
        let step = ModemProfile.toneSpacingHz / Double(Self.oversampling)
        let largest = Double(ModemProfile.maximumTimeScalePPM) / 1e6
        maximumOffset = Int((2 * largest * Double(band.basebandCenterHz) / step).rounded(.up)) + 1
        reach = Self.oversampling * ModemProfile.centerBin + maximumOffset
        precondition(2 * reach < Self.oversampling * ns, "fine grid wraps around")
        fine = [Float](repeating: 0, count: (rate.symbolCount + 1) * (2 * reach + 1))
        scores = [Float](repeating: 0, count: 2 * maximumOffset + 1)
        var offsets = [Int](repeating: 0, count: rate.symbolCount * ModemProfile.groupCount * ModemProfile.tonesPerGroup)
        for symbol in 0..<rate.symbolCount {
            for group in 0..<ModemProfile.groupCount {
                let subband = BurstPlan.subband(symbol: symbol, group: group)
                for tone in 0..<ModemProfile.tonesPerGroup {
                    let index = (symbol * ModemProfile.groupCount + group) * ModemProfile.tonesPerGroup + tone
                    offsets[index] = Self.oversampling * (BurstPlan.bin(subband: subband, tone: tone) - ModemProfile.centerBin)
                }
            }
        }
        candidateOffsets = offsets
        // Each its own buffer: a copy shares it until the first write in `search`, which would
        // then allocate (a decoder's first candidate, on the audio thread).
        paddedRe = [Float](repeating: 0, count: Self.oversampling * ns)
        paddedIm = [Float](repeating: 0, count: Self.oversampling * ns)
    }

    /// The time scale left in the resampled burst whose data symbols begin at `start` of
    /// `re`/`im` (the window before, `start − ns`, must be inside too), searched so that
    /// `currentScale` plus the result stays within ±``ModemProfile/maximumTimeScalePPM``.
    public func search(re: UnsafeBufferPointer<Float>, im: UnsafeBufferPointer<Float>, start: Int,
                       currentScale: Double) -> Double {
        let ns = rate.basebandSymbolSamples
        let windows = rate.symbolCount + 1
        precondition(start >= ns && start + rate.symbolCount * ns <= re.count, "data section outside the buffer")
        let width = 2 * reach + 1
        let size = Self.oversampling * ns
        let step = ModemProfile.toneSpacingHz / Double(Self.oversampling)
        let fc = Double(band.basebandCenterHz)
        let largest = Double(ModemProfile.maximumTimeScalePPM) / 1e6
        let lowest = max(-maximumOffset, Int(((-largest - currentScale) * fc / step).rounded(.down)))
        let highest = min(maximumOffset, Int(((largest - currentScale) * fc / step).rounded(.up)))
        guard lowest < highest else { return 0 }

        fine.withUnsafeMutableBufferPointer { fine in
            for window in 0..<windows {
                let from = start + (window - 1) * ns
                paddedRe.withUnsafeMutableBufferPointer { pr in
                    paddedIm.withUnsafeMutableBufferPointer { pi in
                        for m in 0..<ns { pr[m] = re[from + m]; pi[m] = im[from + m] }
                    }
                }
                // The padding beyond ns stays zero from `init`.
                paddedRe.withUnsafeBufferPointer { pr in
                    paddedIm.withUnsafeBufferPointer { pi in fft.transform(re: pr, im: pi) }
                }
                fft.withOutput { xr, xi in
                    for position in -reach...reach {
                        let index = (position + size) % size
                        fine[window * width + position + reach] = xr[index] * xr[index] + xi[index] * xi[index]
                    }
                }
            }
            // Onsets, latest window first so each still reads its predecessor's energy.
            for window in stride(from: windows - 1, through: 1, by: -1) {
                for slot in 0..<width {
                    fine[window * width + slot] = max(fine[window * width + slot] - fine[(window - 1) * width + slot], 0)
                }
            }
        }

        var best = lowest
        var bestScore = -Float.infinity
        fine.withUnsafeBufferPointer { onset in
            scores.withUnsafeMutableBufferPointer { scores in
                candidateOffsets.withUnsafeBufferPointer { candidates in
                    let tones = ModemProfile.tonesPerGroup
                    let groups = ModemProfile.groupCount
                    for offset in lowest...highest {
                        var sum: Float = 0
                        for symbol in 0..<rate.symbolCount {
                            let row = (symbol + 1) * width + reach + offset
                            for group in 0..<groups {
                                let base = (symbol * groups + group) * tones
                                var top = onset[row + candidates[base]]
                                for tone in 1..<tones { top = max(top, onset[row + candidates[base + tone]]) }
                                sum += top
                            }
                        }
                        scores[offset + maximumOffset] = sum
                        if sum > bestScore { bestScore = sum; best = offset }
                    }
                }
            }
        }
        var offset = Double(best)
        if best > lowest && best < highest {
            let left = scores[best - 1 + maximumOffset], middle = scores[best + maximumOffset]
            let right = scores[best + 1 + maximumOffset]
            let curvature = left - 2 * middle + right
            if curvature < 0 { offset += Double(0.5 * (left - right) / curvature) }
        }
        return offset * step / fc
    }
}
