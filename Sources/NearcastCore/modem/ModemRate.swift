/// The modem's sample counts at one sample rate, derived from ``ModemProfile``.
///
/// The decoder works at a low complex "baseband" rate: it mixes the band down around
/// ``ModemProfile/basebandCenterHz`` and decimates by `decimation`, chosen so that a symbol is a
/// whole number of baseband samples (180 at 48 kHz, 294 at 44.1 kHz).
///
/// ```swift
/// let rate = try ModemRate(sampleRate: 48_000)
/// rate.burstSamples      // 34_560 (0.72 s)
/// ```
public struct ModemRate: Sendable, Equatable {
    /// Audio samples per second.
    public let sampleRate: Int
    /// Audio samples per baseband sample.
    public let decimation: Int
    /// The data symbols of a burst (``BurstLength/standard`` but on the bench).
    public let length: BurstLength

    /// Sample rates the modem accepts: a whole number of samples per symbol and room above 20 kHz.
    public static let supportedRates = [44_100, 48_000, 88_200, 96_000]

    /// Derives the sample counts for `sampleRate` (and bursts of `length`); throws for rates the
    /// modem cannot use.
    public init(sampleRate: Int, length: BurstLength = .standard) throws(ModemRateError) {
        guard Self.supportedRates.contains(sampleRate) else { throw .unsupported(sampleRate) }
        let samplesPerUnit = sampleRate / ModemProfile.timeUnitHz
        // The largest divisor of a symbol's length that keeps the baseband rate >= 2.8 kHz:
        // the band is ±800 Hz around the centre, plus room for the decimation filter's skirt.
        var best = 1
        for d in 1...samplesPerUnit where samplesPerUnit % d == 0 && sampleRate / d >= 2_800 {
            best = d
        }
        self.sampleRate = sampleRate
        self.decimation = best
        self.length = length
    }

    /// Data symbols in one burst.
    public var symbolCount: Int { length.symbolCount }

    /// Audio samples in one time unit (10 ms).
    public var unitSamples: Int { sampleRate / ModemProfile.timeUnitHz }
    /// Audio samples in one symbol.
    public var symbolSamples: Int { unitSamples * ModemProfile.symbolDurationUnits }
    /// Audio samples in one chirp.
    public var chirpSamples: Int { unitSamples * ModemProfile.chirpDurationUnits }
    /// Audio samples in one burst: two chirps and the symbols.
    public var burstSamples: Int { 2 * chirpSamples + symbolCount * symbolSamples }
    /// Audio samples in each fade.
    public var fadeSamples: Int { sampleRate * ModemProfile.fadeMilliseconds / 1000 }
    /// Airtime of one burst in seconds.
    public var burstSeconds: Double { Double(burstSamples) / Double(sampleRate) }

    /// Complex baseband samples per second.
    public var basebandRate: Int { sampleRate / decimation }
    /// Baseband samples in one symbol.
    public var basebandSymbolSamples: Int { symbolSamples / decimation }
    /// Baseband samples in one chirp.
    public var basebandChirpSamples: Int { chirpSamples / decimation }
    /// Baseband samples in one burst.
    public var basebandBurstSamples: Int { burstSamples / decimation }
}

/// A sample rate the modem cannot work at.
public enum ModemRateError: Error, Equatable, CustomStringConvertible {
    case unsupported(Int)

    public var description: String {
        switch self {
        case .unsupported(let rate):
            let list = ModemRate.supportedRates.map(String.init).joined(separator: ", ")
            return "unsupported sample rate \(rate) Hz (the modem works at \(list))"
        }
    }
}
