/// The Kaiser-windowed sinc, the kernel of both resamplers (the decoder's and the test bench's).
public enum KaiserSinc {
    /// The kernel at distance `x` samples: a low-pass with `cutoff` (cycles per sample, 0.5 is
    /// Nyquist) under a Kaiser window that reaches zero `halfWidth` samples out; `beta` trades the
    /// transition width against stopband depth (6: ~60 dB, 7: ~70 dB).
    public static func value(at x: Double, cutoff: Double, halfWidth: Double, beta: Double) -> Double {
        let r = x / halfWidth
        guard r * r < 1 else { return 0 }
        let sinc = x == 0 ? 2 * cutoff : CoreMath.sin(2 * CoreMath.pi * cutoff * x) / (CoreMath.pi * x)
        let window = CoreMath.exp(CoreMath.logBesselI0(beta * (1 - r * r).squareRoot()) - CoreMath.logBesselI0(beta))
        return sinc * window
    }

    /// The kernel tabulated for a polyphase resampler: `phases + 1` rows of `2·halfTaps` taps.
    /// Row p holds the taps for a point p/phases of a sample past sample k0, tap t weighting
    /// sample k0 − halfTaps + 1 + t (the last row repeats the first one sample on, so callers
    /// can interpolate between rows).
    public static func polyphaseTable(halfTaps: Int, phases: Int, cutoff: Double, beta: Double) -> [Double] {
        let taps = 2 * halfTaps
        var table = [Double](repeating: 0, count: (phases + 1) * taps)
        for phase in 0...phases {
            let fraction = Double(phase) / Double(phases)
            for tap in 0..<taps {
                let x = Double(tap - halfTaps + 1) - fraction
                table[phase * taps + tap] = value(at: x, cutoff: cutoff, halfWidth: Double(halfTaps), beta: beta)
            }
        }
        return table
    }
}
