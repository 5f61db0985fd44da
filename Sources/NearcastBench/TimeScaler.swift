import NearcastCore

/// Resamples audio so it plays `1 + ε` times faster: out[n] = x((1 + ε)·n), the signal a
/// listener hears when approaching at ε·c, or a capture clock running slow by ε.
///
/// A Kaiser-windowed sinc, 128 taps, evaluated from a table of 512 fractional phases with
/// linear interpolation between them: flat to 0.46·fs (20.3 kHz at 44.1 kHz), so every tone
/// of the modem passes unharmed, with the stopband 70 dB down (per
/// docs/design.md, how the modem is measured: never by dropping or repeating samples).
struct TimeScaler {
    static let halfTaps = 64
    static let phases = 512
    /// Cutoff, cycles per sample.
    static let cutoff = 0.48
    static let kaiserBeta = 7.0

    private let table: [Double]     // [phase][tap], phases + 1 rows

    init() {
        table = KaiserSinc.polyphaseTable(halfTaps: Self.halfTaps, phases: Self.phases, cutoff: Self.cutoff,
                                          beta: Self.kaiserBeta)
    }

    /// `x` played at `1 + ppm/10⁶` times its speed.
    func scale(_ x: [Double], ppm: Double) -> [Double] {
        let speed = 1 + ppm / 1e6
        let count = Int(Double(x.count) / speed)
        let taps = 2 * Self.halfTaps
        var out = [Double](repeating: 0, count: count)
        table.withUnsafeBufferPointer { table in
            x.withUnsafeBufferPointer { x in
                for n in 0..<count {
                    let position = Double(n) * speed
                    let k0 = Int(position)
                    let fraction = (position - Double(k0)) * Double(Self.phases)
                    let phase = Int(fraction)
                    let blend = fraction - Double(phase)
                    let rowA = phase * taps, rowB = rowA + taps
                    var sum = 0.0
                    let first = k0 - Self.halfTaps + 1
                    for tap in 0..<taps {
                        let k = first + tap
                        guard k >= 0 && k < x.count else { continue }
                        let h = table[rowA + tap] + blend * (table[rowB + tap] - table[rowA + tap])
                        sum += h * x[k]
                    }
                    out[n] = sum
                }
            }
        }
        return out
    }
}
