import NearcastCore

extension SplitMix64 {
    /// A standard normal sample (Box–Muller): the bench's noise, and the tests'.
    public mutating func gaussian() -> Double {
        let u1 = Double.random(in: Double.ulpOfOne..<1, using: &self)
        let u2 = Double.random(in: 0..<1, using: &self)
        return (-2 * CoreMath.log(u1)).squareRoot() * CoreMath.cos(2 * CoreMath.pi * u2)
    }
}

/// The kinds of background noise the channel simulator adds.
public enum NoiseColor: String, Sendable, CaseIterable {
    /// Flat spectrum: a microphone's own hiss.
    case white
    /// −3 dB per octave: room and crowd noise, most of its power far below the modem's band.
    case pink
}

/// Gaussian noise of a given colour, scaled so its density inside the modem's band is N0.
///
/// Pink noise comes from ``PinkFilter``. Its in-band density is measured once, by periodogram, at init: the
/// C/N0 of a pink-noise condition is about the noise the decoder actually sees in 18.5–20 kHz.
struct NoiseSource {
    let color: NoiseColor
    let sampleRate: Int
    /// Multiply a unit-variance-input sample of this colour by this to get density 1 (per Hz,
    /// one-sided) in the modem's band.
    private let unitDensityScale: Double

    init(color: NoiseColor, sampleRate: Int, band: ModemBand = .high) {
        self.color = color
        self.sampleRate = sampleRate
        switch color {
        case .white:
            // White noise of variance σ² has one-sided density σ² / (fs/2).
            unitDensityScale = (Double(sampleRate) / 2).squareRoot()
        case .pink:
            var probe = SplitMix64(seed: 0x9E37)
            let count = 1 << 17
            let samples = Self.pink(count: count, sampleRate: sampleRate, generator: &probe)
            let density = Self.bandDensity(samples, sampleRate: sampleRate, band: band)
            unitDensityScale = 1 / density.squareRoot()
        }
    }

    /// `count` samples whose one-sided density in the modem's band is `n0` (power per Hz).
    func samples(count: Int, n0: Double, generator: inout SplitMix64) -> [Double] {
        let gain = n0.squareRoot() * unitDensityScale
        switch color {
        case .white:
            return (0..<count).map { _ in gain * generator.gaussian() }
        case .pink:
            return Self.pink(count: count, sampleRate: sampleRate, generator: &generator).map { gain * $0 }
        }
    }

    /// Unscaled pink noise (see ``PinkFilter``).
    private static func pink(count: Int, sampleRate: Int, generator: inout SplitMix64) -> [Double] {
        var filter = PinkFilter(sampleRate: sampleRate)
        return (0..<count).map { _ in filter.process(generator.gaussian()) }
    }

    /// One-sided power density of `x`, averaged over `band` (Welch, Hann, 4096).
    static func bandDensity(_ x: [Double], sampleRate: Int, band: ModemBand = .high) -> Double {
        let size = 4096
        let fft = FFT(size: size)
        let window = (0..<size).map { 0.5 - 0.5 * CoreMath.cos(2 * CoreMath.pi * Double($0) / Double(size)) }
        let windowPower = window.reduce(0) { $0 + $1 * $1 }
        let low = Int(Double(band.firstToneHz) / Double(sampleRate) * Double(size))
        let high = Int(Double(band.lastToneHz) / Double(sampleRate) * Double(size))
        var total = 0.0
        var segments = 0
        var start = 0
        while start + size <= x.count {
            var re = (0..<size).map { x[start + $0] * window[$0] }
            var im = [Double](repeating: 0, count: size)
            fft.transform(re: &re, im: &im)
            for k in low...high { total += re[k] * re[k] + im[k] * im[k] }
            segments += 1
            start += size / 2
        }
        // |X|² / (fs·Σw²) is the two-sided density; double it for one-sided.
        let twoSided = total / Double(segments * (high - low + 1)) / (Double(sampleRate) * windowPower)
        return 2 * twoSided
    }
}
