/// A ``BurstEncoder`` behind a band choice: `start` arms the band the ``BandSelection`` calls
/// for (alternating them burst by burst for `.both`), `render` renders it.
///
/// One encoder serves both bands (its tables do not depend on the band), so a box that can send
/// in both costs no more memory than one that sends in one, and changing `selection` on a running
/// box (the console, a config reload) allocates nothing and takes effect at the next burst; a
/// burst being rendered finishes in its band.
///
/// ```swift
/// let encoder = try MultiBandEncoder(sampleRate: 48_000, selection: .both)
/// encoder.start(token)            // high
/// ...; encoder.start(token)       // low
/// ```
public final class MultiBandEncoder {
    /// The sample counts in use (the same in every band).
    public var rate: ModemRate { encoder.rate }
    /// The bands sent in from the next burst on.
    public var selection: BandSelection
    private let encoder: BurstEncoder
    /// The band of the last burst armed, nil before the first.
    public private(set) var lastBand: ModemBand?

    /// Makes the encoder for `sampleRate` with a peak `amplitude` (default 0.5).
    public init(sampleRate: Int, selection: BandSelection = .high, amplitude: Float = 0.5) throws(ModemRateError) {
        encoder = try BurstEncoder(sampleRate: sampleRate, band: .high, amplitude: amplitude)
        self.selection = selection
    }

    /// Peak amplitude of the bursts, 0...1 of full scale, in every band.
    public var amplitude: Float {
        get { encoder.amplitude }
        set { encoder.amplitude = newValue }
    }

    /// The band the next `start` arms: the selected one, or for `.both` the one the last burst
    /// did not use (high first).
    public var nextBand: ModemBand {
        switch selection {
        case .high: .high
        case .low: .low
        case .both: lastBand == .high ? .low : .high
        }
    }

    /// Arms the encoder with `token` in the next band.
    public func start(_ token: Token) {
        let band = nextBand
        encoder.band = band
        lastBand = band
        encoder.start(token)
    }

    /// Arms the encoder with `token` in `band`, whatever the selection (the field check's
    /// calibration bursts); the alternation of `.both` goes on from where it was.
    public func start(_ token: Token, in band: ModemBand) {
        encoder.band = band
        encoder.start(token)
    }

    /// True when no burst is armed or the armed one has been rendered completely.
    public var isFinished: Bool { encoder.isFinished }

    /// Writes up to `buffer.count` samples of the armed burst; returns how many (0 when complete).
    @discardableResult
    public func render(into buffer: UnsafeMutableBufferPointer<Float>) -> Int {
        encoder.render(into: buffer)
    }
}
