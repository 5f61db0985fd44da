/// The two frequency bands a burst can be sent in. Everything else about a burst (frame, code,
/// CRC, hopping plan, symbol length, chirp order) is ``ModemProfile``'s and the same in both:
/// a band only moves the 1.5 kHz wide grid, and the chirps and the decoder's mixing frequency
/// with it.
///
/// - `high`, 18.5-20.0 kHz: inaudible to nearly every adult (the median threshold of
///   18-25-year-olds is 70 dB SPL at 18 kHz, ISO 389-7), the default.
/// - `low`, 15.0-16.5 kHz: for phones whose capture path loses the high band. 15 kHz is where
///   others put the floor of "inaudible" (ggwave's ultrasound protocols start at 15,000 Hz),
///   and 16.5 kHz stays under the low-pass filters that sit at 17 kHz and above (MP3 and AAC at
///   128 kbps, ceiling speakers rated to 18 kHz at -10 dB). Its cost: teenagers and young adults
///   hear it at ordinary levels. The sources are in `research/second-band.md`.
///
/// A band's first tone makes a whole number of cycles in a 60 ms symbol (18,500 Hz: 1,110;
/// 15,000 Hz: 900), which keeps the encoder's phase exact; the chirps sit 100 Hz inside the
/// grid at both ends, as they always did in the high band.
public enum ModemBand: Sendable, Equatable, CaseIterable {
    /// 18.5-20.0 kHz.
    case high
    /// 15.0-16.5 kHz.
    case low

    /// The band's name on the command line, in the board file, the config and JSON.
    public var name: String {
        switch self {
        case .high: "high"
        case .low: "low"
        }
    }

    /// The band called `name` ("high" or "low"), or nil.
    public init?(name: String) {
        switch name {
        case "high": self = .high
        case "low": self = .low
        default: return nil
        }
    }

    /// Frequency of grid bin 0, Hz.
    public var firstToneHz: Int {
        switch self {
        case .high: 18_500
        case .low: 15_000
        }
    }

    /// Whole cycles grid bin 0 makes in one symbol; bin k makes this + k.
    public var firstToneCyclesPerSymbol: Int {
        firstToneHz * ModemProfile.symbolDurationUnits / ModemProfile.timeUnitHz
    }

    /// Frequency of grid bin `bin`, Hz.
    public func toneHz(bin: Int) -> Double { Double(firstToneHz) + Double(bin) * ModemProfile.toneSpacingHz }

    /// Frequency of the highest grid bin, Hz.
    public var lastToneHz: Int { Int(toneHz(bin: ModemProfile.gridBinCount - 1).rounded()) }

    /// Lowest frequency of the sync chirps, Hz: 100 Hz above the grid's first tone.
    public var chirpLowHz: Int { firstToneHz + 100 }
    /// Highest frequency of the sync chirps, Hz: 200 Hz below the grid's last tone.
    public var chirpHighHz: Int { firstToneHz + 1_300 }

    /// The frequency the decoder mixes down to 0 Hz: grid bin ``ModemProfile/centerBin``, the
    /// middle of the band (19.25 kHz high, 15.75 kHz low).
    public var basebandCenterHz: Int { firstToneHz + 750 }

    /// How far a time scale ε moves the second chirp's correlation peak away from the first's,
    /// in seconds per unit ε: a received x((1+ε)t) shifts both chirps by ε·f_mid, which moves a
    /// chirp of slope k by ε·f_mid/k in time, later for the falling one and earlier for the
    /// rising one, while the pair itself shrinks by ε·T: Δ = −ε·(2·f_mid/k + T) for down-then-up.
    /// For 18.6–19.8 kHz in 30 ms that is −0.99 s, so 4100 ppm parts the peaks by 4.1 ms; for
    /// 15.1–16.3 kHz, −0.815 s.
    public var chirpPairSpreadSeconds: Double {
        let sign = ModemProfile.firstChirpRises ? 1.0 : -1.0
        return sign * 2 * chirpDelayPerScaleSeconds - ModemProfile.chirpSeconds
    }

    /// How far a time scale ε moves the first chirp's correlation peak, seconds per unit ε
    /// (+f_mid/k for a falling chirp: it is found late).
    public var firstChirpShiftSeconds: Double {
        ModemProfile.firstChirpRises ? -chirpDelayPerScaleSeconds : chirpDelayPerScaleSeconds
    }

    /// f_mid / k of the chirps, seconds (0.48 s high, 0.3925 s low).
    var chirpDelayPerScaleSeconds: Double {
        let middle = Double(chirpLowHz + chirpHighHz) / 2
        let slope = Double(chirpHighHz - chirpLowHz) / ModemProfile.chirpSeconds
        return middle / slope
    }
}
