import NearcastCore

/// Endless background sound with no burst in it, generated in chunks, for measuring how often
/// the decoder reports a token that was never sent.
///
/// - `white`, `pink`: Gaussian noise at 0.1 RMS (−20 dBFS).
/// - `speech`: pink noise shaped to 300–4000 Hz, cut into syllables of 80–300 ms with pauses,
///   a fifth of them fricatives (white noise up to ~10 kHz).
/// - `music`: three voices of random notes (82 Hz–1.2 kHz), each with 8 harmonics and 4 bright
///   partials in 12–21 kHz, plus a hi-hat (noise above 7 kHz) every 125 ms: music puts energy
///   right in the modem's band.
public struct BackgroundSound {
    /// The kinds of sound.
    public enum Kind: String, Sendable, CaseIterable {
        case white, pink, speech, music
    }

    public let kind: Kind
    public let sampleRate: Int
    private var generator: SplitMix64
    private var pink: PinkFilter
    private var speechHighPass: Biquad
    private var speechLowPass: Biquad
    private var fricativeLowPass: Biquad
    private var hatHighPass: Biquad
    private var syllableLeft = 0
    private var syllableLength = 1
    private var fricative = false
    private var voices: [Voice]
    private var hatPhase = 0
    private var hatEnvelope: Float = 0

    /// A source of `kind` whose sequence is fixed by `seed`.
    public init(kind: Kind, sampleRate: Int, seed: UInt64) {
        self.kind = kind
        self.sampleRate = sampleRate
        generator = SplitMix64(seed: seed)
        pink = PinkFilter(sampleRate: sampleRate)
        speechHighPass = Biquad.highPass(300, q: 0.707, sampleRate: sampleRate)
        speechLowPass = Biquad.lowPass(4_000, q: 0.707, sampleRate: sampleRate)
        fricativeLowPass = Biquad.lowPass(10_000, q: 0.707, sampleRate: sampleRate)
        hatHighPass = Biquad.highPass(7_000, q: 0.707, sampleRate: sampleRate)
        voices = (0..<3).map { _ in Voice() }
    }

    /// Fills `buffer` with the next samples.
    public mutating func fill(_ buffer: UnsafeMutableBufferPointer<Float>) {
        for i in buffer.indices { buffer[i] = Float(next()) }
    }

    private mutating func next() -> Double {
        switch kind {
        case .white:
            return 0.1 * generator.gaussian()
        case .pink:
            return 0.1 * pink.process(generator.gaussian())
        case .speech:
            if syllableLeft == 0 { startSyllable() }
            syllableLeft -= 1
            let progress = 1 - Double(syllableLeft) / Double(syllableLength)
            let envelope = progress > 0.7 ? 0 : 0.5 - 0.5 * CoreMath.cos(2 * CoreMath.pi * progress / 0.7)
            let white = generator.gaussian()
            let voiced = speechLowPass.process(speechHighPass.process(pink.process(white)))
            let sound = fricative ? 0.5 * fricativeLowPass.process(white) : 2 * voiced
            return 0.2 * envelope * sound
        case .music:
            var sum: Float = 0
            for v in voices.indices {
                if voices[v].samplesLeft == 0 { voices[v].start(sampleRate: sampleRate, using: &generator) }
                sum += voices[v].next()
            }
            if hatPhase == 0 { hatEnvelope = 1 }
            hatPhase = (hatPhase + 1) % (sampleRate / 8)
            hatEnvelope *= Float(CoreMath.exp(-1 / (0.03 * Double(sampleRate))))
            let hat = hatHighPass.process(generator.gaussian()) * Double(hatEnvelope)
            return 0.1 * Double(sum) + 0.05 * hat
        }
    }

    private mutating func startSyllable() {
        syllableLength = Int(Double.random(in: 0.08...0.3, using: &generator) * Double(sampleRate))
        syllableLeft = syllableLength
        fricative = Int.random(in: 0..<5, using: &generator) == 0
    }

    /// One voice: a decaying harmonic note, oscillators as rotating phasors (no sin per sample).
    private struct Voice {
        var re = [Float](repeating: 0, count: 12)
        var im = [Float](repeating: 0, count: 12)
        var stepRe = [Float](repeating: 1, count: 12)
        var stepIm = [Float](repeating: 0, count: 12)
        var gain = [Float](repeating: 0, count: 12)
        var envelope: Float = 0
        var decay: Float = 1
        var samplesLeft = 0

        mutating func start(sampleRate: Int, using generator: inout SplitMix64) {
            let note = Double(Int.random(in: 40...87, using: &generator))
            let fundamental = 440 * CoreMath.exp((note - 69) / 12 * CoreMath.log(2))
            let nyquist = Double(sampleRate) / 2
            for k in 0..<12 {
                let hz: Double
                let level: Double
                if k < 8 {
                    hz = fundamental * Double(k + 1)
                    level = 1 / Double(k + 1)
                } else {
                    // A bright partial near the top of the spectrum (cymbal-like overtones).
                    let harmonic = (Double.random(in: 12_000...21_000, using: &generator) / fundamental).rounded()
                    hz = fundamental * harmonic
                    level = 0.05
                }
                let angle = 2 * CoreMath.pi * hz / Double(sampleRate)
                stepRe[k] = Float(CoreMath.cos(angle))
                stepIm[k] = Float(CoreMath.sin(angle))
                gain[k] = hz < nyquist - 500 ? Float(level) : 0
                let phase = Double.random(in: 0..<(2 * CoreMath.pi), using: &generator)
                re[k] = Float(CoreMath.cos(phase))
                im[k] = Float(CoreMath.sin(phase))
            }
            let seconds = Double.random(in: 0.125...0.5, using: &generator)
            samplesLeft = Int(seconds * Double(sampleRate))
            envelope = 1
            decay = Float(CoreMath.exp(-1 / (seconds * 0.5 * Double(sampleRate))))
        }

        mutating func next() -> Float {
            samplesLeft -= 1
            var sum: Float = 0
            for k in 0..<12 {
                let r = re[k] * stepRe[k] - im[k] * stepIm[k]
                let i = re[k] * stepIm[k] + im[k] * stepRe[k]
                re[k] = r; im[k] = i
                sum += gain[k] * r
            }
            envelope *= decay
            return envelope * sum
        }
    }
}
