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
/// (one pass over the data) so no sample ever clips.
///
/// Each group's tone is read from a table of one cycle of cos(2π·j/N + φ_g) with N the symbol's
/// length in samples: tone k makes 1110 + k (low band: 900 + k) whole cycles in a symbol, so its sample m is entry
/// (1110 + k)·m mod N, exact and without interpolation. A data sample costs 8 table reads, which
/// keeps the render (and `start`'s pass) cheap enough for a debug build in an emulated board.
///
/// ```swift
/// let encoder = try BurstEncoder(sampleRate: 48_000)
/// encoder.start(token)
/// while !encoder.isFinished { let n = encoder.render(into: period) ... }
/// ```
public final class BurstEncoder {
    /// The sample counts in use.
    public let rate: ModemRate
    /// The band the next `start` arms its burst in. The tables do not depend on it (only the
    /// chirps' frequencies and the tones' cycle counts do), so one encoder serves both bands.
    public var band: ModemBand
    /// The band of the armed burst (a change of `band` waits for the next `start`).
    public private(set) var armedBand: ModemBand
    /// Peak amplitude of the burst, 0...1 of full scale.
    public var amplitude: Float
    private let table = SineTable()
    /// cos(2π·j/N + φ_g) for every group g and j < N (N samples a symbol), group-major.
    private let groupTables: [Float]
    /// The grid bin every group sends, symbol-major (set by `start`).
    private var tones: [UInt8]
    /// The armed burst's largest |sample| before scaling (chirps have peak 1).
    private var peak: Float = 1
    private var position = 0
    private var armed = false
    /// Each tone's amplitude before scaling: 1/√8, so the data's mean power equals a chirp's.
    private static let toneAmplitude = Float(1 / Double(ModemProfile.groupCount).squareRoot())

    /// Makes an encoder for `sampleRate` in `band` with a peak `amplitude` (default 0.5, −6 dBFS),
    /// of bursts of `length` (format 2's unless on the bench).
    public init(sampleRate: Int, band: ModemBand = .high, amplitude: Float = 0.5,
                length: BurstLength = .standard) throws(ModemRateError) {
        rate = try ModemRate(sampleRate: sampleRate, length: length)
        self.band = band
        armedBand = band
        self.amplitude = amplitude
        tones = [UInt8](repeating: 0, count: rate.symbolCount * ModemProfile.groupCount)
        let ns = rate.symbolSamples
        var tables = [Float](repeating: 0, count: ModemProfile.groupCount * ns)
        for group in 0..<ModemProfile.groupCount {
            for j in 0..<ns {
                let cycles = Double(j) / Double(ns) + BurstPlan.groupPhaseCycles(group: group)
                tables[group * ns + j] = Self.toneAmplitude * Float(CoreMath.cos(2 * CoreMath.pi * cycles))
            }
        }
        groupTables = tables
    }

    /// Arms the encoder with `token`; the next `render` calls produce its burst from the start.
    public func start(_ token: Token) {
        armedBand = band
        tones.withUnsafeMutableBufferPointer { tones in
            FrameCodec.encode(token, into: tones, length: rate.length)
            // From here on each entry is the grid bin the group sends, not its tone index.
            for symbol in 0..<rate.symbolCount {
                for group in 0..<ModemProfile.groupCount {
                    let index = symbol * ModemProfile.groupCount + group
                    let subband = BurstPlan.subband(symbol: symbol, group: group)
                    tones[index] = UInt8(BurstPlan.bin(subband: subband, tone: Int(tones[index])))
                }
            }
        }
        position = 0
        armed = true
        var largest: Float = 1
        tones.withUnsafeBufferPointer { tones in
            groupTables.withUnsafeBufferPointer { tables in
                for n in (2 * rate.chirpSamples)..<rate.burstSamples {
                    largest = max(largest, abs(dataSample(at: n, tones: tones, tables: tables)))
                }
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
        let chirpEnd = 2 * rate.chirpSamples
        tones.withUnsafeBufferPointer { tones in
            groupTables.withUnsafeBufferPointer { tables in
                for index in 0..<count {
                    let n = position + index
                    let value = n < chirpEnd ? chirpSample(at: n) : dataSample(at: n, tones: tones, tables: tables)
                    buffer[index] = gain * fade(at: n) * value
                }
            }
        }
        position += count
        return count
    }

    /// Chirp sample `n` (n < 2 chirps) before gain and fades, computed from `n` alone so
    /// chunking cannot change the waveform.
    private func chirpSample(at n: Int) -> Float {
        let fs = rate.sampleRate
        let chirp = rate.chirpSamples
        // Linear chirp: phase = f0·m/fs ± (f1 − f0)·m² / (2·N·fs) cycles.
        let rising = (n >= chirp) != ModemProfile.firstChirpRises
        let m = Double(n < chirp ? n : n - chirp)
        let low = Double(armedBand.chirpLowHz)
        let span = Double(armedBand.chirpHighHz - armedBand.chirpLowHz)
        let sweep = span * m * m / (2 * Double(chirp) * Double(fs))
        let cycles = rising ? low * m / Double(fs) + sweep : (low + span) * m / Double(fs) - sweep
        return table.sine(cycles: cycles)
    }

    /// Data sample `n` (n ≥ 2 chirps) before gain and fades: the 8 groups' tones.
    @inline(__always)
    private func dataSample(at n: Int, tones: UnsafeBufferPointer<UInt8>, tables: UnsafeBufferPointer<Float>) -> Float {
        let ns = rate.symbolSamples
        let offset = n - 2 * rate.chirpSamples
        let symbol = offset / ns
        let m = offset - symbol * ns
        var sum: Float = 0
        for group in 0..<ModemProfile.groupCount {
            let bin = Int(tones[symbol * ModemProfile.groupCount + group])
            // Integer arithmetic keeps the phase exact: whole cycles per symbol.
            sum += tables[group * ns + (armedBand.firstToneCyclesPerSymbol + bin) * m % ns]
        }
        return sum
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
