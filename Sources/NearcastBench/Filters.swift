import NearcastCore

/// A second-order IIR section (direct form I) with RBJ-cookbook coefficients: microphone
/// roll-off and the shaping of background sounds.
struct Biquad {
    private let b0, b1, b2, a1, a2: Double
    private var x1 = 0.0, x2 = 0.0, y1 = 0.0, y2 = 0.0

    private init(b0: Double, b1: Double, b2: Double, a0: Double, a1: Double, a2: Double) {
        self.b0 = b0 / a0; self.b1 = b1 / a0; self.b2 = b2 / a0
        self.a1 = a1 / a0; self.a2 = a2 / a0
    }

    /// A low-pass section with corner `hz` and quality `q`.
    static func lowPass(_ hz: Double, q: Double, sampleRate: Int) -> Biquad {
        let (cosw, alpha) = terms(hz, q, sampleRate)
        return Biquad(b0: (1 - cosw) / 2, b1: 1 - cosw, b2: (1 - cosw) / 2,
                      a0: 1 + alpha, a1: -2 * cosw, a2: 1 - alpha)
    }

    /// A high-pass section with corner `hz` and quality `q`.
    static func highPass(_ hz: Double, q: Double, sampleRate: Int) -> Biquad {
        let (cosw, alpha) = terms(hz, q, sampleRate)
        return Biquad(b0: (1 + cosw) / 2, b1: -(1 + cosw), b2: (1 + cosw) / 2,
                      a0: 1 + alpha, a1: -2 * cosw, a2: 1 - alpha)
    }

    private static func terms(_ hz: Double, _ q: Double, _ sampleRate: Int) -> (Double, Double) {
        let w = 2 * CoreMath.pi * hz / Double(sampleRate)
        return (CoreMath.cos(w), CoreMath.sin(w) / (2 * q))
    }

    mutating func process(_ x: Double) -> Double {
        let y = b0 * x + b1 * x1 + b2 * x2 - a1 * y1 - a2 * y2
        x2 = x1; x1 = x; y2 = y1; y1 = y
        return y
    }
}

/// Pink noise from white: parallel one-pole low-passes with corners spread ×5 apart and gains
/// falling as 1/√corner, which sums to a 1/f spectrum (within about ±1 dB) from 8 Hz to 20 kHz.
struct PinkFilter {
    private static let cornersHz: [Double] = [8, 40, 200, 1_000, 5_000, 25_000]
    private let poles: [Double]
    private let gains: [Double]
    private var state: [Double]

    init(sampleRate: Int) {
        poles = Self.cornersHz.map { CoreMath.exp(-2 * CoreMath.pi * $0 / Double(sampleRate)) }
        gains = Self.cornersHz.map { 1 / $0.squareRoot() }
        state = [Double](repeating: 0, count: Self.cornersHz.count)
    }

    mutating func process(_ white: Double) -> Double {
        var sum = 0.0
        for k in poles.indices {
            state[k] = poles[k] * state[k] + (1 - poles[k]) * white
            sum += gains[k] * state[k]
        }
        return 2 * sum
    }
}
