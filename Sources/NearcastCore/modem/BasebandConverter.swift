/// Mixes the modem's band down to 0 Hz and decimates it to ``ModemRate/basebandRate``, one audio
/// sample at a time, without allocating.
///
/// The mixer multiplies by e^(−j2π·fc·n/fs) from a table one period long (fs / gcd(fs, fc)
/// entries: 480 at 48 kHz), so it never drifts. The decimation filter is a Blackman-windowed
/// sinc whose passband covers the tones (±850 Hz) and whose stopband begins where aliases would
/// fold back into the band (baseband rate − 850 Hz); everything below 18 kHz (speech, music) is
/// far into that stopband. Only every `decimation`-th output is computed.
public struct BasebandConverter {
    /// Half-width of the band that must pass, Hz (the outer tones are at −800 and +700 Hz).
    public static let passbandEdgeHz = 850.0

    public let rate: ModemRate
    /// The band mixed down.
    public let band: ModemBand
    /// Filter taps (real, symmetric).
    private let taps: [Float]
    private let mixRe: [Float]
    private let mixIm: [Float]
    /// Mixed samples, stored twice (at i and i + tapCount) so the filter reads one contiguous run.
    private var historyRe: [Float]
    private var historyIm: [Float]
    private var historyIndex = 0
    private var mixIndex = 0
    private var phase = 0

    /// Audio samples by which the filter delays the baseband signal.
    public var delaySamples: Int { (taps.count - 1) / 2 }

    /// Builds the mixer table and filter for `band` at `rate` (allocates once).
    public init(rate: ModemRate, band: ModemBand = .high) {
        self.rate = rate
        self.band = band
        let fs = rate.sampleRate
        let fc = band.basebandCenterHz
        let period = fs / Self.gcd(fs, fc)
        var mixRe = [Float](repeating: 0, count: period)
        var mixIm = [Float](repeating: 0, count: period)
        for n in 0..<period {
            let angle = -2 * CoreMath.pi * Double((fc * n) % fs) / Double(fs)
            mixRe[n] = Float(CoreMath.cos(angle))
            mixIm[n] = Float(CoreMath.sin(angle))
        }
        self.mixRe = mixRe
        self.mixIm = mixIm

        let stopbandEdge = Double(rate.basebandRate) - Self.passbandEdgeHz
        let transition = stopbandEdge - Self.passbandEdgeHz
        let cutoff = (stopbandEdge + Self.passbandEdgeHz) / 2 / Double(fs)   // cycles/sample
        // A Blackman window's transition band is about 5.5·fs/N wide.
        var count = Int((5.5 * Double(fs) / transition).rounded(.up))
        if count % 2 == 0 { count += 1 }
        var taps = [Float](repeating: 0, count: count)
        let middle = Double(count - 1) / 2
        var sum = 0.0
        var values = [Double](repeating: 0, count: count)
        for index in 0..<count {
            let x = Double(index) - middle
            let sinc = x == 0 ? 2 * cutoff : CoreMath.sin(2 * CoreMath.pi * cutoff * x) / (CoreMath.pi * x)
            let w = 2 * CoreMath.pi * Double(index) / Double(count - 1)
            let window = 0.42 - 0.5 * CoreMath.cos(w) + 0.08 * CoreMath.cos(2 * w)
            values[index] = sinc * window
            sum += values[index]
        }
        for index in 0..<count { taps[index] = Float(values[index] / sum) }   // unity gain at 0 Hz
        self.taps = taps
        historyRe = [Float](repeating: 0, count: 2 * count)
        historyIm = [Float](repeating: 0, count: 2 * count)
    }

    /// Takes one audio sample; returns a baseband sample after every `decimation` inputs.
    @inline(__always)
    public mutating func push(_ sample: Float) -> (re: Float, im: Float)? {
        let tapCount = taps.count
        let re = sample * mixRe[mixIndex]
        let im = sample * mixIm[mixIndex]
        mixIndex += 1
        if mixIndex == mixRe.count { mixIndex = 0 }
        historyRe.withUnsafeMutableBufferPointer { h in
            h[historyIndex] = re
            h[historyIndex + tapCount] = re
        }
        historyIm.withUnsafeMutableBufferPointer { h in
            h[historyIndex] = im
            h[historyIndex + tapCount] = im
        }
        historyIndex += 1
        if historyIndex == tapCount { historyIndex = 0 }
        phase += 1
        guard phase == rate.decimation else { return nil }
        phase = 0
        // The oldest sample is at historyIndex; the run [historyIndex, historyIndex + N) is in
        // time order. The filter is symmetric, so tap order does not matter.
        var outRe: Float = 0
        var outIm: Float = 0
        let start = historyIndex
        taps.withUnsafeBufferPointer { taps in
            historyRe.withUnsafeBufferPointer { hr in
                historyIm.withUnsafeBufferPointer { hi in
                    for k in 0..<tapCount {
                        outRe += taps[k] * hr[start + k]
                        outIm += taps[k] * hi[start + k]
                    }
                }
            }
        }
        return (outRe, outIm)
    }

    /// Forgets all history (as after a gap in the audio).
    public mutating func reset() {
        for i in historyRe.indices { historyRe[i] = 0; historyIm[i] = 0 }
        historyIndex = 0
        mixIndex = 0
        phase = 0
    }

    private static func gcd(_ a: Int, _ b: Int) -> Int {
        var (a, b) = (a, b)
        while b != 0 { (a, b) = (b, a % b) }
        return a
    }
}
