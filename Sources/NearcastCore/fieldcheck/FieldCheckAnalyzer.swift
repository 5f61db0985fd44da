/// Finds ``FieldCheckSignal``'s sweep in a stream of audio and measures it: the check page's
/// analyser (compiled to WebAssembly with the decoder) and `nearcast check`'s.
///
/// The stream is cut into 20 ms hops; each hop gives each of the 19 tones' power (a Goertzel
/// filter over the Hann-windowed hop: 75 Hz noise bandwidth, so neighbouring tones 500 Hz apart
/// do not leak into each other). The sweep is found by its order in time: for a start hop `s`,
/// tone `k` is measured over hops `s+5k ... s+5k+2` (inside its 80 ms), and the same frequency's
/// noise is the median of what it measured during the 18 other tones' slots. A steady sound, a
/// tone or a broadband noise, is as loud in every slot and stands 0 dB above itself; only the
/// sweep puts each frequency up in its own slot alone. A start is taken when the first four tones
/// (12-13.5 kHz, which every phone hears and no burst reaches) each stand 10 dB above their noise
/// and are the loudest of the 19 frequencies in their slots; of neighbouring starts, the one whose
/// tones stand highest.
///
/// Everything is allocated in `init`; `push` allocates nothing.
public final class FieldCheckAnalyzer {
    /// The sample rate analysed.
    public let sampleRate: Int
    /// Samples per hop (20 ms).
    public let hopSamples: Int
    private static let hopsPerSlot = 5
    /// Hops of one tone measured (of the 4 its 80 ms cover, the 3 surely inside it).
    private static let measuredHops = 3
    /// Hops remembered: the sweep's 95 and some spare.
    private static let historyHops = 128
    /// The last hop a start's analysis reads, after the start.
    private static let spanHops = hopsPerSlot * (FieldCheckSignal.toneCount - 1) + measuredHops - 1
    /// The first tones, 12-13.5 kHz, must each stand clear and be the loudest frequency in their
    /// slot: every phone's microphone passes them, and no burst of either band reaches them (a
    /// low-band burst in digital silence otherwise stands far above a -130 dB floor in 4 slots
    /// in a row).
    private static let leadingTones = 4
    /// How far each of those must stand above its noise, dB: finding the sweep, not judging a
    /// band (``FieldCheckVerdict/clearSNR`` does that).
    private static let detectionSNR: Float = 10

    private let window: [Float]
    private let coefficients: [Double]
    private var hop: [Float]
    private var hopFill = 0
    /// Tone powers by hop: `history[(hop % historyHops) * toneCount + tone]`, a full-scale sine 1.
    private var history: [Float]
    private var hopsDone = 0
    private var slotPower: [Float]
    private var others: [Float]
    private var candidate = FieldCheckReading()
    private var pending: FieldCheckReading?
    private var pendingScore: Float = 0
    private var pendingHop = 0
    private var quietUntilHop = 0
    /// Samples pushed since `init`.
    public private(set) var samplesPushed = 0

    /// An analyser for audio at `sampleRate` (a rate the modem uses).
    public init(sampleRate: Int) throws(ModemRateError) {
        _ = try ModemRate(sampleRate: sampleRate)
        self.sampleRate = sampleRate
        hopSamples = sampleRate / 50
        var window = [Float](repeating: 0, count: hopSamples)
        for index in 0..<hopSamples {
            window[index] = Float(0.5 - 0.5 * CoreMath.cos(2 * CoreMath.pi * Double(index) / Double(hopSamples)))
        }
        self.window = window
        var coefficients = [Double](repeating: 0, count: FieldCheckSignal.toneCount)
        for tone in 0..<FieldCheckSignal.toneCount {
            coefficients[tone] = 2 * CoreMath.cos(2 * CoreMath.pi * Double(FieldCheckSignal.toneHz(tone)) / Double(sampleRate))
        }
        self.coefficients = coefficients
        hop = [Float](repeating: 0, count: hopSamples)
        history = [Float](repeating: 0, count: Self.historyHops * FieldCheckSignal.toneCount)
        slotPower = [Float](repeating: 0, count: FieldCheckSignal.toneCount * FieldCheckSignal.toneCount)
        others = [Float](repeating: 0, count: FieldCheckSignal.toneCount)
    }

    /// Analyses `samples`; calls `found` for each sweep measured (a little over one slot after
    /// its last tone).
    public func push(_ samples: UnsafeBufferPointer<Float>, _ found: (FieldCheckReading) -> Void) {
        var index = 0
        while index < samples.count {
            let count = min(samples.count - index, hopSamples - hopFill)
            for offset in 0..<count { hop[hopFill + offset] = samples[index + offset] }
            hopFill += count
            index += count
            if hopFill == hopSamples {
                hopFill = 0
                analyseHop(found)
            }
        }
        samplesPushed += samples.count
    }

    /// Reports a sweep found but held back for a better start at the stream's end.
    public func finish(_ found: (FieldCheckReading) -> Void) {
        if let pending { found(pending) }
        pending = nil
    }

    private func analyseHop(_ found: (FieldCheckReading) -> Void) {
        let row = (hopsDone % Self.historyHops) * FieldCheckSignal.toneCount
        // A full-scale sine of amplitude A gives |X| = A·N/4 through the Hann window.
        let scale = 16 / (Double(hopSamples) * Double(hopSamples))
        for tone in 0..<FieldCheckSignal.toneCount {
            let coefficient = coefficients[tone]
            var s1 = 0.0, s2 = 0.0
            for n in 0..<hopSamples {
                let s0 = Double(hop[n] * window[n]) + coefficient * s1 - s2
                s2 = s1
                s1 = s0
            }
            history[row + tone] = Float((s1 * s1 + s2 * s2 - coefficient * s1 * s2) * scale)
        }
        let start = hopsDone - Self.spanHops
        hopsDone += 1
        guard start >= 0 else { return }
        if start >= quietUntilHop, let score = measure(from: start), score > pendingScore || pending == nil {
            pending = candidate
            pendingScore = score
            pendingHop = start
        }
        if let reading = pending, start - pendingHop >= Self.hopsPerSlot {
            found(reading)
            pending = nil
            pendingScore = 0
            quietUntilHop = pendingHop + Self.hopsPerSlot * FieldCheckSignal.toneCount
        }
    }

    /// Measures a sweep starting at hop `start` into `candidate`; its score (the tones' margins
    /// over their noise, summed, each 0...40 dB) when enough tones stand clear, else nil.
    private func measure(from start: Int) -> Float? {
        let tones = FieldCheckSignal.toneCount
        // slotPower[slot * tones + tone]: tone's mean power over slot's measured hops.
        for slot in 0..<tones {
            for tone in 0..<tones { slotPower[slot * tones + tone] = 0 }
            for step in 0..<Self.measuredHops {
                let row = ((start + slot * Self.hopsPerSlot + step) % Self.historyHops) * tones
                for tone in 0..<tones { slotPower[slot * tones + tone] += history[row + tone] / Float(Self.measuredHops) }
            }
        }
        var score: Float = 0
        var leading = 0
        candidate.startSample = start * hopSamples
        for tone in 0..<tones {
            var count = 0
            for slot in 0..<tones where slot != tone {
                others[count] = slotPower[slot * tones + tone]
                count += 1
            }
            let noise = max(Self.median(&others, count), 1e-13)
            let level = max(slotPower[tone * tones + tone], 1e-13)
            let levelDB = Self.decibels(level), noiseDB = Self.decibels(noise)
            candidate.levelDB[tone] = levelDB
            candidate.noiseDB[tone] = noiseDB
            candidate.snrDB[tone] = levelDB - noiseDB
            if tone == leading && tone < Self.leadingTones && levelDB - noiseDB >= Self.detectionSNR
                && loudestInItsSlot(tone) { leading += 1 }
            // Not capped: of neighbouring starts, the one whose hops lie wholly inside the
            // tones stands highest.
            score += max(levelDB - noiseDB, 0)
        }
        return leading == Self.leadingTones ? score : nil
    }

    /// Whether `tone` is the loudest of the 19 frequencies in its own slot (a sweep's tone is; a
    /// burst or a noise spreads its energy over others).
    private func loudestInItsSlot(_ tone: Int) -> Bool {
        let tones = FieldCheckSignal.toneCount
        let own = slotPower[tone * tones + tone]
        for other in 0..<tones where slotPower[tone * tones + other] > own { return false }
        return true
    }

    /// The lower median of `values[0..<count]` (reorders them).
    private static func median(_ values: inout [Float], _ count: Int) -> Float {
        // Insertion sort: 18 values, and no allocation.
        for i in 1..<count {
            let value = values[i]
            var j = i - 1
            while j >= 0 && values[j] > value {
                values[j + 1] = values[j]
                j -= 1
            }
            values[j + 1] = value
        }
        return values[(count - 1) / 2]
    }

    private static func decibels(_ power: Float) -> Float {
        Float(10 * CoreMath.log(Double(power)) / 2.302_585_092_994_046)
    }
}
