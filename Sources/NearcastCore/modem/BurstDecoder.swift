/// The streaming burst decoder: push audio in chunks of any size, get tokens back.
///
/// Pipeline, all at the complex baseband rate after ``BasebandConverter``:
/// 1. **Sync**: at every baseband sample, the normalised correlation of the last chirp-length
///    window with the up-chirp and with the down-chirp templates (0...1, level-independent).
///    A burst starting at s scores `(ρ_up(s) + ρ_down(s + L)) / 2`.
/// 2. **Candidates**: a score above the threshold that stays the largest for one chirp length
///    either side becomes a candidate; up to ``maximumPendingCandidates`` wait for their audio.
/// 3. **Decode**: when a candidate's whole burst has arrived, the symbol timing is refined over
///    ±2 baseband samples, soft bits are computed (``SoftDemodulator``), Viterbi-decoded, and the
///    frame's CRC, kind and tail are checked (``FrameCodec``). Only a frame that passes all of
///    them is reported.
///
/// Every buffer is allocated in `init`; `push` and `finish` do not allocate.
///
/// ```swift
/// let decoder = try BurstDecoder(sampleRate: 48_000)
/// decoder.push(chunk) { burst in print(burst.token) }
/// decoder.finish { burst in print(burst.token) }
/// ```
public final class BurstDecoder {
    /// Tunables of the decoder.
    public struct Configuration: Sendable {
        /// Sync score (0...1) above which a candidate is decoded. Pure noise scores about
        /// 1/L on average (L = 90 baseband samples at 48 kHz); the threshold keeps candidates
        /// from noise rare, and the CRC rejects the few that get through.
        public var syncThreshold: Float = 0.1

        public init() {}
    }

    /// Candidates that may wait for their audio at once.
    public static let maximumPendingCandidates = 8
    /// Timing refinement either side of the sync peak, in baseband samples.
    static let timingMargin = 2

    public let rate: ModemRate
    public let configuration: Configuration
    private var converter: BasebandConverter
    private var demodulator: SoftDemodulator
    private let viterbi: ViterbiDecoder

    // Baseband history, stored twice (at i and i + capacity) so any window is contiguous.
    private let capacity: Int
    private var ringRe: [Float]
    private var ringIm: [Float]
    private var upScore: [Float]            // ρ_up by window start, mod capacity
    private var produced = 0                // baseband samples so far

    // Conjugated chirp templates.
    private let upRe: [Float], upIm: [Float], downRe: [Float], downIm: [Float]
    private let templateEnergy: Float

    private var candidateStart = -1
    private var candidateScore: Float = 0
    private var pendingStart: [Int]
    private var pendingScore: [Float]
    private var pendingCount = 0
    private var suppressUntil = 0

    private var scratchRe: [Float]
    private var scratchIm: [Float]
    private var llrs: [Float]

    /// Makes a decoder for audio at `sampleRate` (allocates all its buffers).
    public init(sampleRate: Int, configuration: Configuration = Configuration()) throws(ModemRateError) {
        let rate = try ModemRate(sampleRate: sampleRate)
        self.rate = rate
        self.configuration = configuration
        converter = BasebandConverter(rate: rate)
        demodulator = SoftDemodulator(rate: rate)
        viterbi = ViterbiDecoder(steps: ModemProfile.encodedBits)

        var capacity = 1
        while capacity < 2 * rate.basebandBurstSamples + 4 * rate.basebandChirpSamples { capacity <<= 1 }
        self.capacity = capacity
        ringRe = [Float](repeating: 0, count: 2 * capacity)
        ringIm = [Float](repeating: 0, count: 2 * capacity)
        upScore = [Float](repeating: 0, count: capacity)

        let (ur, ui) = Self.chirpTemplate(rate: rate, rising: true)
        let (dr, di) = Self.chirpTemplate(rate: rate, rising: false)
        upRe = ur; upIm = ui; downRe = dr; downIm = di
        templateEnergy = Float(rate.basebandChirpSamples)

        pendingStart = [Int](repeating: 0, count: Self.maximumPendingCandidates)
        pendingScore = [Float](repeating: 0, count: Self.maximumPendingCandidates)
        let span = rate.basebandBurstSamples + 2 * Self.timingMargin
        scratchRe = [Float](repeating: 0, count: span)
        scratchIm = [Float](repeating: 0, count: span)
        llrs = [Float](repeating: 0, count: ModemProfile.codedBits)
    }

    /// Audio samples pushed so far.
    public private(set) var samplesPushed = 0
    /// Sync candidates whose frame was run through the Viterbi decoder and checked, so far: the
    /// chances noise had to pass the CRC.
    public private(set) var framesTried = 0

    /// Feeds audio samples; calls `onBurst` for each token found, in order.
    public func push(_ samples: UnsafeBufferPointer<Float>, _ onBurst: (DecodedBurst) -> Void) {
        for sample in samples {
            samplesPushed += 1
            if let baseband = converter.push(sample) {
                process(baseband, onBurst)
            }
        }
    }

    /// Feeds silence long enough to flush every burst still in the pipeline (end of a file).
    public func finish(_ onBurst: (DecodedBurst) -> Void) {
        let zeros = rate.burstSamples + 4 * rate.chirpSamples
        for _ in 0..<zeros {
            samplesPushed += 1
            if let baseband = converter.push(0) { process(baseband, onBurst) }
        }
    }

    // MARK: - Per baseband sample

    private func process(_ x: (re: Float, im: Float), _ onBurst: (DecodedBurst) -> Void) {
        let t = produced
        let slot = t & (capacity - 1)
        ringRe[slot] = x.re; ringRe[slot + capacity] = x.re
        ringIm[slot] = x.im; ringIm[slot + capacity] = x.im
        produced += 1

        let chirp = rate.basebandChirpSamples
        if t >= chirp - 1 {
            let window = t - chirp + 1
            let (up, down) = correlate(windowStart: window)
            upScore[window & (capacity - 1)] = up
            if window >= chirp {
                let start = window - chirp
                let score = 0.5 * (upScore[start & (capacity - 1)] + down)
                consider(start: start, score: score)
            }
        }
        decodeReadyCandidates(onBurst)
    }

    /// Normalised correlations of the window starting at `windowStart` with both chirps.
    private func correlate(windowStart: Int) -> (up: Float, down: Float) {
        let chirp = rate.basebandChirpSamples
        let base = windowStart & (capacity - 1)
        var upR: Float = 0, upI: Float = 0, downR: Float = 0, downI: Float = 0, energy: Float = 0
        ringRe.withUnsafeBufferPointer { xr in
            ringIm.withUnsafeBufferPointer { xi in
                upRe.withUnsafeBufferPointer { ur in
                    upIm.withUnsafeBufferPointer { ui in
                        downRe.withUnsafeBufferPointer { dr in
                            downIm.withUnsafeBufferPointer { di in
                                for m in 0..<chirp {
                                    let a = xr[base + m], b = xi[base + m]
                                    upR += a * ur[m] - b * ui[m]
                                    upI += a * ui[m] + b * ur[m]
                                    downR += a * dr[m] - b * di[m]
                                    downI += a * di[m] + b * dr[m]
                                    energy += a * a + b * b
                                }
                            }
                        }
                    }
                }
            }
        }
        guard energy > 0 else { return (0, 0) }
        let norm = 1 / (templateEnergy * energy)
        return ((upR * upR + upI * upI) * norm, (downR * downR + downI * downI) * norm)
    }

    /// Peak picking: the largest score above threshold within ±one chirp becomes a candidate.
    private func consider(start: Int, score: Float) {
        let chirp = rate.basebandChirpSamples
        if candidateStart >= 0 {
            if start - candidateStart <= chirp {
                if score > candidateScore {
                    candidateStart = start
                    candidateScore = score
                }
                return
            }
            enqueue(start: candidateStart, score: candidateScore)
            candidateStart = -1
        }
        if score >= configuration.syncThreshold && start >= suppressUntil {
            candidateStart = start
            candidateScore = score
        }
    }

    private func enqueue(start: Int, score: Float) {
        if pendingCount < Self.maximumPendingCandidates {
            pendingStart[pendingCount] = start
            pendingScore[pendingCount] = score
            pendingCount += 1
            return
        }
        // Full: replace the weakest if this one is stronger.
        var weakest = 0
        for index in 1..<pendingCount where pendingScore[index] < pendingScore[weakest] { weakest = index }
        if score > pendingScore[weakest] {
            pendingStart[weakest] = start
            pendingScore[weakest] = score
        }
    }

    private func decodeReadyCandidates(_ onBurst: (DecodedBurst) -> Void) {
        var index = 0
        while index < pendingCount {
            let start = pendingStart[index]
            if start < suppressUntil {
                removePending(at: index)
                continue
            }
            if produced >= start + rate.basebandBurstSamples + Self.timingMargin {
                let score = pendingScore[index]
                removePending(at: index)
                if let burst = decode(start: start, syncScore: score) {
                    onBurst(burst)
                }
                continue
            }
            index += 1
        }
    }

    private func removePending(at index: Int) {
        pendingCount -= 1
        pendingStart[index] = pendingStart[pendingCount]
        pendingScore[index] = pendingScore[pendingCount]
    }

    // MARK: - Frame decoding

    private func decode(start: Int, syncScore: Float) -> DecodedBurst? {
        let margin = Self.timingMargin
        let first = start - margin
        guard first >= 0, produced - first <= capacity else { return nil }
        let span = rate.basebandBurstSamples + 2 * margin
        let offset = first & (capacity - 1)
        for i in 0..<span {
            scratchRe[i] = ringRe[offset + i]
            scratchIm[i] = ringIm[offset + i]
        }
        let dataOffset = 2 * rate.basebandChirpSamples
        var bestShift = 0
        var bestQuality: Float = -1
        scratchRe.withUnsafeBufferPointer { xr in
            scratchIm.withUnsafeBufferPointer { xi in
                for shift in -margin...margin {
                    let quality = demodulator.measure(re: xr, im: xi, start: margin + shift + dataOffset)
                    if quality > bestQuality {
                        bestQuality = quality
                        bestShift = shift
                    }
                }
                _ = demodulator.measure(re: xr, im: xi, start: margin + bestShift + dataOffset)
            }
        }
        framesTried += 1
        let snr = llrs.withUnsafeMutableBufferPointer { demodulator.llrs(into: $0) }
        let decoded = llrs.withUnsafeBufferPointer { viterbi.decode($0) }
        guard let token = FrameCodec.token(fromFrameBits: decoded.bits) else { return nil }

        let burstStart = start + bestShift
        suppressUntil = burstStart + rate.basebandBurstSamples - rate.basebandChirpSamples
        // Baseband sample t is the filter output after audio sample (t + 1)·D − 1, centred
        // `delaySamples` earlier.
        let audioStart = (burstStart + 1) * rate.decimation - 1 - converter.delaySamples
        return DecodedBurst(token: token, startSample: max(0, audioStart), sampleRate: rate.sampleRate,
                            syncScore: syncScore, symbolSNR: snr)
    }

    // MARK: - Templates

    /// The conjugate of a chirp at baseband, sampled at the baseband rate.
    private static func chirpTemplate(rate: ModemRate, rising: Bool) -> ([Float], [Float]) {
        let count = rate.basebandChirpSamples
        let fsb = Double(rate.basebandRate)
        let low = Double(ModemProfile.chirpLowHz - ModemProfile.basebandCenterHz)
        let high = Double(ModemProfile.chirpHighHz - ModemProfile.basebandCenterHz)
        let duration = Double(count) / fsb
        let slope = (rising ? high - low : low - high) / duration     // Hz per second
        let begin = rising ? low : high
        var re = [Float](repeating: 0, count: count)
        var im = [Float](repeating: 0, count: count)
        for m in 0..<count {
            let time = Double(m) / fsb
            let cycles = begin * time + 0.5 * slope * time * time
            let angle = 2 * CoreMath.pi * cycles
            re[m] = Float(CoreMath.cos(angle))
            im[m] = Float(-CoreMath.sin(angle))
        }
        return (re, im)
    }
}
