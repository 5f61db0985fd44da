/// Elementary functions in pure Swift, so that `NearcastCore` needs neither Foundation nor libm.
///
/// They are used to build tables at start-up (sine tables, chirp templates, filter taps) and for
/// soft-decision metrics, never per audio sample on a hot path unless noted. Accuracy is a few
/// units in the last place of `Double` over the ranges the modem uses; `CoreMathTests` checks
/// them against the C library.
///
/// ```swift
/// let s = CoreMath.sin(CoreMath.pi / 6)   // 0.5
/// ```
public enum CoreMath {
    /// π to `Double` precision.
    public static let pi = 3.141_592_653_589_793_238_46

    // π/2 split in two parts (Cody–Waite) so that x - k·π/2 stays exact for the |x| we use.
    private static let halfPiHigh = 1.570_796_326_734_125_614_17
    private static let halfPiLow = 6.077_100_506_506_192_249_3e-11

    /// Sine of `x` radians.
    public static func sin(_ x: Double) -> Double {
        let (r, quadrant) = reduceByHalfPi(x)
        switch quadrant & 3 {
        case 0: return sinKernel(r)
        case 1: return cosKernel(r)
        case 2: return -sinKernel(r)
        default: return -cosKernel(r)
        }
    }

    /// Cosine of `x` radians.
    public static func cos(_ x: Double) -> Double {
        let (r, quadrant) = reduceByHalfPi(x)
        switch quadrant & 3 {
        case 0: return cosKernel(r)
        case 1: return -sinKernel(r)
        case 2: return -cosKernel(r)
        default: return sinKernel(r)
        }
    }

    /// e raised to `x`. Returns 0 below -745 and +infinity above 709.
    public static func exp(_ x: Double) -> Double {
        if x.isNaN { return x }
        if x > 709.78 { return .infinity }
        if x < -745.13 { return 0 }
        let ln2High = 6.931_471_803_691_238_164_9e-01
        let ln2Low = 1.908_214_929_270_587_700_0e-10
        let k = (x * 1.442_695_040_888_963_4).rounded()
        let r = (x - k * ln2High) - k * ln2Low          // |r| <= ln2/2
        // Taylor series to r^13: error below 1e-17 for |r| <= 0.347.
        var term = 1.0
        var sum = 1.0
        for n in 1...13 {
            term *= r / Double(n)
            sum += term
        }
        return scaleByPowerOfTwo(sum, Int(k))
    }

    /// Natural logarithm of `x`. Returns -infinity for 0 and NaN for negative input.
    public static func log(_ x: Double) -> Double {
        if x.isNaN || x < 0 { return .nan }
        if x == 0 { return -.infinity }
        if x.isInfinite { return x }
        // x = m · 2^e with m in [√½, √2); log m = 2·atanh(s), s = (m-1)/(m+1), |s| <= 0.1716.
        var m = x.significand                         // [1, 2)
        var e = Int(x.exponent)
        if m > 1.414_213_562_373_095_1 { m *= 0.5; e += 1 }
        let s = (m - 1) / (m + 1)
        let s2 = s * s
        var term = s
        var sum = 0.0
        var n = 1.0
        while n < 40 {                                 // s^39 < 1e-29
            sum += term / n
            term *= s2
            n += 2
        }
        return 2 * sum + Double(e) * 0.693_147_180_559_945_309_42
    }

    /// log(I₀(x)) for x >= 0, where I₀ is the modified Bessel function of the first kind.
    ///
    /// The noncoherent FSK likelihood of a tone with normalised amplitude x is I₀(x); its log is
    /// what the soft-decision demodulator needs. Polynomials from Abramowitz & Stegun 9.8.1–9.8.2
    /// (relative error below 2e-7, plenty for decoding metrics).
    public static func logBesselI0(_ x: Double) -> Double {
        let ax = abs(x)
        if ax < 3.75 {
            let t = (ax / 3.75) * (ax / 3.75)
            let i0 = 1 + t * (3.5156229 + t * (3.0899424 + t * (1.2067492
                + t * (0.2659732 + t * (0.0360768 + t * 0.0045813)))))
            return log(i0)
        }
        let t = 3.75 / ax
        let p = 0.39894228 + t * (0.01328592 + t * (0.00225319 + t * (-0.00157565
            + t * (0.00916281 + t * (-0.02057706 + t * (0.02635537
            + t * (-0.01647633 + t * 0.00392377)))))))
        return ax + log(p) - 0.5 * log(ax)
    }

    // MARK: - Kernels

    private static func reduceByHalfPi(_ x: Double) -> (Double, Int) {
        let k = (x * 0.636_619_772_367_581_343_08).rounded()
        let r = (x - k * halfPiHigh) - k * halfPiLow
        return (r, Int(k) & 3)
    }

    /// sin on [-π/4, π/4]: Taylor series to x^19.
    private static func sinKernel(_ x: Double) -> Double {
        let x2 = x * x
        var term = x
        var sum = x
        var n = 1.0
        for _ in 0..<9 {
            term *= -x2 / ((n + 1) * (n + 2))
            sum += term
            n += 2
        }
        return sum
    }

    /// cos on [-π/4, π/4]: Taylor series to x^20.
    private static func cosKernel(_ x: Double) -> Double {
        let x2 = x * x
        var term = 1.0
        var sum = 1.0
        var n = 0.0
        for _ in 0..<10 {
            term *= -x2 / ((n + 1) * (n + 2))
            sum += term
            n += 2
        }
        return sum
    }

    private static func scaleByPowerOfTwo(_ value: Double, _ power: Int) -> Double {
        // Two steps keep intermediate powers representable near the ends of the range.
        let half = power / 2
        return value * Double(sign: .plus, exponent: half, significand: 1)
            * Double(sign: .plus, exponent: power - half, significand: 1)
    }
}
