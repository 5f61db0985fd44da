/// Renders one token burst as audio samples, in chunks of any size, without allocating.
///
/// Build one encoder per output stream at start-up; `start(_:)` arms it with a token and each
/// `render(into:)` call writes the next samples of the burst until it is complete. The waveform
/// is described by ``ModemProfile`` and ``BurstPlan``: down-chirp, up-chirp, then 11 symbols of 8
/// simultaneous tones, with raised-cosine fades.
///
/// The burst is scaled so its highest peak is exactly `amplitude`: 8 tones at once reach 2-2.5
/// times the level of one (crest factor 9-11 dB against a single tone's 3 dB), so the mean power
/// is that much below a single tone's at the same peak. `start` measures the armed burst's peak
/// (a pass over the data, about 250,000 table lookups) so no sample ever clips.
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
    /// The tone (0...3) of every group, symbol-major.
    private var tones: [UInt8]
    /// The armed burst's largest |sample| before scaling (chirps have peak 1).
    private var peak: Float = 1
    private var position = 0
    private var armed = false
    /// Each tone's amplitude before scaling: 1/√8, so the data's mean power equals a chirp's.
    private static let toneAmplitude = Float(1 / Double(ModemProfile.groupCount).squareRoot())

    /// Makes an encoder for `sampleRate` with a peak `amplitude` (default 0.5, −6 dBFS).
    public init(sampleRate: Int, amplitude: Float = 0.5) throws(ModemRateError) {
        rate = try ModemRate(sampleRate: sampleRate)
        self.amplitude = amplitude
        tones = [UInt8](repeating: 0, count: ModemProfile.symbolCount * ModemProfile.groupCount)
    }

    /// Arms the encoder with `token`; the next `render` calls produce its burst from the start.
    public func start(_ token: Token) {
        tones.withUnsafeMutableBufferPointer { FrameCodec.encode(token, into: $0) }
        position = 0
        armed = true
        var largest: Float = 1
        tones.withUnsafeBufferPointer { tones in
            for n in (2 * rate.chirpSamples)..<rate.burstSamples {
                largest = max(largest, abs(unscaledSample(at: n, tones: tones)))
            }
        }
        peak = largest
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
        let gain = amplitude / peak
        tones.withUnsafeBufferPointer { tones in
            for index in 0..<count {
                let n = position + index
                buffer[index] = gain * fade(at: n) * unscaledSample(at: n, tones: tones)
            }
        }
        position += count
        return count
    }

    /// The burst's sample `n` before gain and fades, computed from `n` alone so chunking cannot
    /// change the waveform.
    private func unscaledSample(at n: Int, tones: UnsafeBufferPointer<UInt8>) -> Float {
        let fs = rate.sampleRate
        let chirp = rate.chirpSamples
        if n < 2 * chirp {
            // Linear chirp: phase = f0·m/fs ± (f1 − f0)·m² / (2·N·fs) cycles.
            let rising = (n >= chirp) != ModemProfile.firstChirpRises
            let m = Double(n < chirp ? n : n - chirp)
            let low = Double(ModemProfile.chirpLowHz)
            let span = Double(ModemProfile.chirpHighHz - ModemProfile.chirpLowHz)
            let sweep = span * m * m / (2 * Double(chirp) * Double(fs))
            let cycles = rising ? low * m / Double(fs) + sweep : (low + span) * m / Double(fs) - sweep
            return table.sine(cycles: cycles)
        }
        let offset = n - 2 * chirp
        let ns = rate.symbolSamples
        let symbol = offset / ns
        let m = offset - symbol * ns
        var sum: Float = 0
        for group in 0..<ModemProfile.groupCount {
            let tone = Int(tones[symbol * ModemProfile.groupCount + group])
            let bin = BurstPlan.bin(subband: BurstPlan.subband(symbol: symbol, group: group), tone: tone)
            // Bin k makes 1110 + k whole cycles a symbol: integer arithmetic keeps the phase exact.
            let cycles = (ModemProfile.firstToneCyclesPerSymbol + bin) * m % ns
            sum += table.sine(cycles: Double(cycles) / Double(ns) + 0.25 + BurstPlan.groupPhaseCycles(group: group))
        }
        return Self.toneAmplitude * sum
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
