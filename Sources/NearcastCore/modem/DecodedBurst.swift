/// A token found in audio, with where and how well it was received.
public struct DecodedBurst: Sendable, Equatable {
    /// The token the burst carried (its CRC checked after error correction).
    public var token: Token
    /// Audio sample index (from the start of the stream) at which the burst begins.
    public var startSample: Int
    /// The sample rate of the stream, to turn `startSample` into seconds.
    public var sampleRate: Int
    /// Normalised sync correlation, 0...1: how clearly the chirp pair stood out.
    public var syncScore: Float
    /// Estimated signal-to-noise ratio per symbol (Es/N0), dB.
    public var symbolSNR: Float
    /// The time scale the burst arrived with, parts per million (positive: played faster than
    /// sent, as when the listener approaches or the capture clock runs slow).
    public var timeScalePPM: Float = 0
    /// How clearly each group's strongest tone stood out, 0.25...1 (see
    /// ``SoftDemodulator/tonalShare``).
    public var tonalShare: Float = 0
    /// The band the burst was heard in.
    public var band: ModemBand = .high
    /// How many bursts gave the token: 1 when this burst decoded alone, more when its soft
    /// decisions were combined with those of earlier repeats (``BurstDecoder``'s step 6).
    public var copies: Int = 1
    /// The burst format (``ModemProfile/formatVersion``).
    public var format: Int { ModemProfile.formatVersion }

    /// Start of the burst in seconds from the start of the stream.
    public var offsetSeconds: Double { Double(startSample) / Double(sampleRate) }
}
