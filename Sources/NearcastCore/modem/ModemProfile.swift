/// The one table of the audio modem's parameters. Encoder, decoder and tests read only this
/// (and ``ModemRate``, which derives sample counts from it for one sample rate).
///
/// A burst is laid out as:
///
/// ```
/// | up-chirp 18.6→19.8 kHz | down-chirp 19.8→18.6 kHz | 44 × 16-FSK symbols, 18.5–20.0 kHz |
/// |         30 ms          |          30 ms           |        44 × 10 ms = 440 ms         |
/// ```
///
/// with raised-cosine fades over the first and last 3 ms so a speaker does not click.
///
/// Why these numbers:
/// - Tones are spaced by exactly 1/T (100 Hz for T = 10 ms), the closest spacing at which
///   noncoherent tones stay orthogonal; 16 of them fill 18.5–20.0 kHz.
/// - Every tone and both chirps complete a whole number of cycles, so the phase is continuous
///   from segment to segment without tracking it (no spectral splatter between symbols).
/// - The frame is kind (2 bits) + payload (64) + CRC-16 (16) + tail (6) = 88 bits; the K=7,
///   rate-1/2 code makes 176 coded bits = 44 symbols of 4 bits. Airtime is exactly 0.5 s.
/// - The up/down chirp pair gives timing; a time-scale error moves the two correlation peaks in
///   opposite directions, which the full modem uses to estimate and undo Doppler.
public enum ModemProfile {
    /// Lowest frequency of the sync chirps, Hz.
    public static let chirpLowHz = 18_600
    /// Highest frequency of the sync chirps, Hz.
    public static let chirpHighHz = 19_800
    /// Duration of each sync chirp, in units of 1/`timeUnitHz` seconds (30 ms).
    public static let chirpDurationUnits = 3

    /// Number of FSK tones (16-FSK carries 4 bits a symbol).
    public static let toneCount = 16
    /// Bits carried by one symbol: log2(`toneCount`).
    public static let bitsPerSymbol = 4
    /// Frequency of tone 0, Hz.
    public static let firstToneHz = 18_500
    /// Tone spacing, Hz; the symbol lasts exactly 1/`toneSpacingHz` s.
    public static let toneSpacingHz = 100
    /// The unit all durations are counted in: 1/100 s, one symbol.
    public static let timeUnitHz = 100

    /// Raised-cosine fade at each end of a burst, in milliseconds.
    public static let fadeMilliseconds = 3

    /// Bits of the kind field.
    public static let kindBits = 2
    /// Bits of payload.
    public static let payloadBits = 64
    /// Bits of CRC.
    public static let crcBits = 16
    /// Constraint length of the convolutional code.
    public static let constraintLength = 7
    /// The code's generator polynomials (octal 171 and 133, the NASA/CCSDS K=7 pair).
    public static let generators: (UInt8, UInt8) = (0o171, 0o133)
    /// Multiplier of the interleaver: coded bit i goes to position (i × m) mod `codedBits`.
    /// It is coprime with 176 and puts any two coded bits closer than 12 in different symbols.
    public static let interleaverMultiplier = 73

    /// The largest time scale the decoder looks for, parts per million either way: 4100 ppm is a
    /// listener walking at 1.4 m/s, or two sound cards' clocks far apart; the rest is margin.
    public static let maximumTimeScalePPM = 5_000

    /// The frequency the decoder mixes down to 0 Hz: the middle of the tone set, on a tone.
    public static let basebandCenterHz = firstToneHz + (toneCount / 2) * toneSpacingHz

    // MARK: Derived

    /// Bits before the tail: kind + payload + CRC.
    public static var frameBits: Int { kindBits + payloadBits + crcBits }
    /// Zero bits that return the encoder to state 0.
    public static var tailBits: Int { constraintLength - 1 }
    /// Bits into the encoder.
    public static var encodedBits: Int { frameBits + tailBits }
    /// Bits out of the rate-1/2 encoder.
    public static var codedBits: Int { encodedBits * 2 }
    /// FSK symbols in a burst.
    public static var symbolCount: Int { codedBits / bitsPerSymbol }
    /// How far a time scale ε moves the down-chirp's correlation peak away from the up-chirp's,
    /// in seconds per unit ε: a received x((1+ε)t) shifts both chirps by ε·f_mid, which moves a
    /// chirp of slope k by ε·f_mid/k in time, in opposite directions for up and down, while
    /// the pair itself shrinks by ε·T: Δ = ε·(2·f_mid/k − T). For 18.6–19.8 kHz in 30 ms that
    /// is 0.93 s, so 4100 ppm parts the peaks by 3.8 ms.
    public static var chirpPairSpreadSeconds: Double {
        let duration = Double(chirpDurationUnits) / Double(timeUnitHz)
        let middle = Double(chirpLowHz + chirpHighHz) / 2
        let slope = Double(chirpHighHz - chirpLowHz) / duration
        return 2 * middle / slope - duration
    }
    /// Frequency of the highest tone, Hz.
    public static var lastToneHz: Int { firstToneHz + (toneCount - 1) * toneSpacingHz }
}
