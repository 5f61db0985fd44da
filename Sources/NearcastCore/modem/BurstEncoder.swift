/// Renders one token burst as audio samples, in chunks of any size, without allocating.
///
/// Build one encoder per output stream at start-up; `start(_:)` arms it with a token and each
/// `render(into:)` call writes the next samples of the burst until it is complete. The waveform
/// is described by ``ModemProfile``: up-chirp, down-chirp, 16-FSK symbols, raised-cosine fades.
///
/// ```swift
/// let encoder = try BurstEncoder(sampleRate: 48_000)
/// encoder.start(token)
/// while !encoder.isFinished { let n = encoder.render(into: period) ... }
/// ```
public final class BurstEncoder {
    /// The sample counts in use.
    public let rate: ModemRate
    /// Peak amplitude of the burst, 0...1 of full scale.
    public var amplitude: Float
    private let table = SineTable()
    private var symbols: [UInt8]
    private var position = 0
    private var armed = false

    /// Makes an encoder for `sampleRate` with a peak `amplitude` (default 0.5, −6 dBFS).
    public init(sampleRate: Int, amplitude: Float = 0.5) throws(ModemRateError) {
        rate = try ModemRate(sampleRate: sampleRate)
        self.amplitude = amplitude
        symbols = [UInt8](repeating: 0, count: ModemProfile.symbolCount)
    }

    /// Arms the encoder with `token`; the next `render` calls produce its burst from the start.
    public func start(_ token: Token) {
        symbols.withUnsafeMutableBufferPointer { FrameCodec.encode(token, into: $0) }
        position = 0
        armed = true
    }

    /// True when no burst is armed or the armed one has been rendered completely.
    public var isFinished: Bool { !armed || position >= rate.burstSamples }

    /// Samples of the current burst not yet rendered.
    public var remainingSamples: Int { armed ? rate.burstSamples - position : 0 }

    /// Writes up to `buffer.count` samples of the burst into `buffer`; returns how many.
    /// Returns 0 once the burst is complete.
    @discardableResult
    public func render(into buffer: UnsafeMutableBufferPointer<Float>) -> Int {
        let count = min(buffer.count, remainingSamples)
        guard count > 0 else { return 0 }
        symbols.withUnsafeBufferPointer { symbols in
            for index in 0..<count {
                buffer[index] = sample(at: position + index, symbols: symbols)
            }
        }
        position += count
        return count
    }

    /// The burst's sample `n`, computed from `n` alone so chunking cannot change the waveform.
    private func sample(at n: Int, symbols: UnsafeBufferPointer<UInt8>) -> Float {
        let fs = rate.sampleRate
        let chirp = rate.chirpSamples
        let cycles: Double
        if n < 2 * chirp {
            // Linear chirp: phase = f0·m/fs ± (f1 − f0)·m² / (2·N·fs) cycles.
            let m = Double(n < chirp ? n : n - chirp)
            let low = Double(ModemProfile.chirpLowHz)
            let span = Double(ModemProfile.chirpHighHz - ModemProfile.chirpLowHz)
            let sweep = span * m * m / (2 * Double(chirp) * Double(fs))
            if n < chirp {
                cycles = low * m / Double(fs) + sweep
            } else {
                cycles = (low + span) * m / Double(fs) - sweep
            }
        } else {
            let offset = n - 2 * chirp
            let symbol = offset / rate.symbolSamples
            let m = offset - symbol * rate.symbolSamples
            let frequency = ModemProfile.firstToneHz + Int(symbols[symbol]) * ModemProfile.toneSpacingHz
            // Integer arithmetic keeps the phase exact: whole cycles per symbol.
            cycles = Double((frequency * m) % fs) / Double(fs)
        }
        return amplitude * fade(at: n) * table.sine(cycles: cycles)
    }

    private func fade(at n: Int) -> Float {
        let fadeLength = rate.fadeSamples
        let fromEnd = rate.burstSamples - 1 - n
        let edge = min(n, fromEnd)
        guard edge < fadeLength else { return 1 }
        // Raised cosine: 0.5·(1 − cos(π·edge/F)) = sin²(π·edge/(2F)).
        let s = table.sine(cycles: Double(edge) / Double(4 * fadeLength))
        return s * s
    }
}
