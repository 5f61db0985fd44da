/// The one table of the audio modem's parameters ("format 2"). Encoder, decoder and tests read
/// only this, ``ModemBand`` (where in frequency: 18.5-20 kHz or 15-16.5 kHz), ``BurstPlan`` (the
/// hopping, puncturing and interleaving tables) and ``ModemRate`` (sample counts at one sample
/// rate).
///
/// A burst is laid out as (in the high band; the low band is the same 3.5 kHz lower):
///
/// ```
/// | down-chirp 19.8→18.6 kHz | up-chirp 18.6→19.8 kHz | 11 symbols × 8 simultaneous 4-FSK tones |
/// |          30 ms           |         30 ms          |            11 × 60 ms = 660 ms          |
/// ```
///
/// with raised-cosine fades over the first and last 3 ms so a speaker does not click.
///
/// Why these numbers (measured in `research/modem-lab/REPORT.md`, image-method rooms):
/// - A room at 19 kHz keeps a tone ringing in its own frequency bin for 100 ms and more. A
///   60 ms symbol collects most of a tone's reverberant energy in its own window, and the
///   hopping plan leaves every bin idle for at least one symbol after it was used, so the ring
///   lands in bins nobody competes in. The first format (10 ms symbols, one tone) decoded 0 %
///   of bursts at RT60 0.6 s / 3 m off axis; this one 99.8 %.
/// - Long symbols carry few bits, so 8 tones sound at once: each of 8 "groups" picks one of 4
///   tones (2 bits) from its own comb subband. The grid is 91 tones spaced by exactly 1/T
///   (16.67 Hz) over 1.5 kHz (18.5 to 20.0 kHz in the high band); subband s holds tones s, s+22, s+44, s+66.
/// - 4-FSK costs about 2 dB of noise efficiency against 16-FSK; a K=9 code pays it back. The
///   frame is kind (2) + payload (64) + CRC-16 (16) + tail (8) = 90 bits; the rate-1/2 code makes
///   180, four are punctured to fit 176 = 11 × 8 × 2. Airtime 0.72 s: every shorter variant
///   measured lost the 28 dB-Hz white-noise bar first (0.66 s: 99.0 % in 300 trials, 0.60 s: 96 %).
/// - Every tone completes a whole number of cycles in a symbol and each group starts every
///   symbol at its own fixed phase, so each group's waveform is phase-continuous.
/// - The chirp pair is the first format's in the opposite order, and the CRC starts from a
///   different value: the format marker (a first-format burst never pairs or passes here).
public enum ModemProfile {
    /// The burst format this modem sends and decodes. The first format (0.5 s, 16-FSK, up-chirp
    /// first, CRC init 0xFFFF) is 1.
    public static let formatVersion = 2

    /// Duration of each sync chirp, in units of 1/`timeUnitHz` seconds (30 ms).
    public static let chirpDurationUnits = 3
    /// Whether the first chirp falls (format 2) or rises (format 1).
    public static let firstChirpRises = false

    /// Tones on the grid: bin k is at the band's first tone + k·`toneSpacingHz`, k = 0..90
    /// (``ModemBand``).
    public static let gridBinCount = 91
    /// Tone spacing 1/T, Hz: the symbol is exactly `1 / toneSpacingHz` seconds long.
    public static let toneSpacingHz = 50.0 / 3.0
    /// The unit all durations are counted in: 1/100 s.
    public static let timeUnitHz = 100
    /// Duration of a data symbol in time units (60 ms).
    public static let symbolDurationUnits = 6
    /// Tones sounding at once in a symbol, one per group.
    public static let groupCount = 8
    /// Candidate tones of a group (4-FSK).
    public static let tonesPerGroup = 4
    /// Bits a group carries: log2(`tonesPerGroup`).
    public static let bitsPerGroup = 2
    /// Comb subbands: subband s is the grid bins s + `subbandCount`·i, i = 0..3.
    public static let subbandCount = 22
    /// Data symbols in a burst.
    public static let symbolCount = 11

    /// Raised-cosine fade at each end of a burst, in milliseconds.
    public static let fadeMilliseconds = 3

    /// Bits of the kind field.
    public static let kindBits = 2
    /// Bits of payload.
    public static let payloadBits = 64
    /// Bits of CRC.
    public static let crcBits = 16
    /// The CRC's initial value: CRC-16/CCITT with this start (0xFFFF in format 1), so a frame of
    /// one format never passes the other's check.
    public static let crcInitialValue: UInt16 = 0x1D0F
    /// Constraint length of the convolutional code.
    public static let constraintLength = 9
    /// The code's generator polynomials (octal 561 and 753, the best free distance at K = 9).
    public static let generators: (UInt16, UInt16) = (0o561, 0o753)

    /// The largest time scale the decoder looks for, parts per million either way: 4100 ppm is a
    /// listener walking at 1.4 m/s, or two sound cards' clocks far apart; the rest is margin.
    public static let maximumTimeScalePPM = 5_500

    /// Grid bin the decoder mixes down to 0 Hz: the middle of the band
    /// (``ModemBand/basebandCenterHz``).
    public static let centerBin = 45

    // MARK: Derived

    /// Bits before the tail: kind + payload + CRC.
    public static var frameBits: Int { kindBits + payloadBits + crcBits }
    /// Zero bits that return the encoder to state 0.
    public static var tailBits: Int { constraintLength - 1 }
    /// Bits into the encoder.
    public static var encodedBits: Int { frameBits + tailBits }
    /// Bits out of the rate-1/2 mother code, before puncturing.
    public static var motherCodedBits: Int { encodedBits * 2 }
    /// Coded bits sent: one per (symbol, group, bit) slot.
    public static var codedBits: Int { symbolCount * groupCount * bitsPerGroup }
    /// Grid bins the hopping plan uses (bins 88-90 stay silent).
    public static var usedBinCount: Int { subbandCount * tonesPerGroup }
    /// Duration of one chirp, seconds.
    public static var chirpSeconds: Double { Double(chirpDurationUnits) / Double(timeUnitHz) }
}
