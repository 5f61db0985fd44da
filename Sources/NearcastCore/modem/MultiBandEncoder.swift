/// A ``BurstEncoder`` per band behind one encoder's surface: `start` arms the band the
/// ``BandSelection`` calls for (alternating them burst by burst for `.both`), `render` renders it.
///
/// Both bands' encoders are made in `init`, so changing `selection` on a running box (the
/// console, a config reload) allocates nothing and takes effect at the next burst; a burst
/// being rendered finishes in its band.
///
/// ```swift
/// let encoder = try MultiBandEncoder(sampleRate: 48_000, selection: .both)
/// encoder.start(token)            // high
/// ...; encoder.start(token)       // low
/// ```
public final class MultiBandEncoder {
    /// The sample counts in use (the same in every band).
    public let rate: ModemRate
    /// The bands sent in from the next burst on.
    public var selection: BandSelection
    private let high: BurstEncoder
    private let low: BurstEncoder
    /// The encoder of the armed burst.
    private var current: BurstEncoder
    /// The band of the last burst armed, nil before the first.
    public private(set) var lastBand: ModemBand?

    /// Makes both bands' encoders for `sampleRate` with a peak `amplitude` (default 0.5).
    public init(sampleRate: Int, selection: BandSelection = .high, amplitude: Float = 0.5) throws(ModemRateError) {
        high = try BurstEncoder(sampleRate: sampleRate, band: .high, amplitude: amplitude)
        low = try BurstEncoder(sampleRate: sampleRate, band: .low, amplitude: amplitude)
        rate = high.rate
        self.selection = selection
        current = high
    }

    /// Peak amplitude of the bursts, 0...1 of full scale, in every band.
    public var amplitude: Float {
        get { high.amplitude }
        set {
            high.amplitude = newValue
            low.amplitude = newValue
        }
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

    /// Arms the next band's encoder with `token`.
    public func start(_ token: Token) {
        let band = nextBand
        current = band == .high ? high : low
        lastBand = band
        current.start(token)
    }

    /// True when no burst is armed or the armed one has been rendered completely.
    public var isFinished: Bool { current.isFinished }

    /// Writes up to `buffer.count` samples of the armed burst; returns how many (0 when complete).
    @discardableResult
    public func render(into buffer: UnsafeMutableBufferPointer<Float>) -> Int {
        current.render(into: buffer)
    }
}
