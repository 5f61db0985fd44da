import NearcastCore

/// One set of impairments between the speaker and the decoder, applied with a fixed seed.
///
/// Order of the chain: room (convolution with a ``ShoeBoxRoom`` or ``RoomModel`` response), time scale (Doppler or
/// clock error, by resampling), the microphone's roll-off, background noise at the set C/N0,
/// overdrive and clipping in the analog stage, then the converter's DC offset. C/N0 is measured against the
/// mean power of the transmitted burst over its own duration (docs/design.md, how the modem is measured);
/// the statistical room's response is scaled so its direct path has gain 1, the image-method
/// room's to unit energy (so the noise stands in the same ratio to the burst as heard in the
/// room, which is how the bar's "30 dB SNR" is meant), with its direct sound at the burst's start.
public struct ChannelCondition: Sendable {
    /// Short name used on the command line and in tables.
    public var name: String
    /// One line for the table's legend.
    public var summary: String
    /// Audio sample rate of the whole chain.
    public var sampleRate: Int = 48_000
    /// The band the bursts are sent in; the pink noise's C/N0 is measured in it.
    public var band: ModemBand = .high
    /// Background noise colour, or nil for none.
    public var noise: NoiseColor? = .white
    /// Carrier-to-noise density in the modem's band, dB-Hz.
    public var cn0: Double = 40
    /// The time scale, in ppm, drawn uniformly from this range for each trial.
    public var timeScalePPM: ClosedRange<Double> = 0...0
    /// The statistical room, or nil.
    public var room: RoomModel?
    /// The image-method room, or nil.
    public var shoeBox: ShoeBoxRoom?
    /// Whether the time scale is the range's lower or upper end (at random) rather than any
    /// value between: the walking rows measure the extremes.
    public var timeScaleAtEnds = false
    /// Corner of a 4th-order Butterworth low-pass (a cheap microphone's roll-off), Hz.
    public var micRolloffHz: Double?
    /// A steep low-pass at this frequency, Hz (a Kaiser-windowed sinc, 70 dB down 0.7 kHz past it):
    /// what a phone whose browser resamples through a lower rate, or whose audio path low-passes
    /// before the page, does to a band above it. The field check's tests use it.
    public var phoneCutoffHz: Double?
    /// Constant added after the noise, in units of full scale.
    public var dcOffset: Double = 0
    /// If set, the capture gain puts the burst's peak at this many times full scale, and every
    /// sample is then clipped to ±1.
    public var overdrive: Double?

    public init(name: String, summary: String) {
        self.name = name
        self.summary = summary
    }

    /// Silence the simulator puts before and after the signal, seconds.
    public static let padding = 0.5

    /// The room of the reverberant conditions: a 250 m³ venue room, RT60 0.6 s in the modem's
    /// band, the listener 3 m from the speaker and within its main lobe. At 19 kHz a speaker is
    /// directional: a 25 mm dome has ka ≈ 4.3 there (directivity index ~13 dB), a 50 mm cone
    /// more; Q = 10 (DI 10 dB) is on the safe side. Direct-to-reverberant ratio +1.8 dB.
    public static let venueRoom = RoomModel(rt60: 0.6, distance: 3, volume: 250, directivity: 10)
    /// The same room heard far off the speaker's axis, as from an omnidirectional source on a
    /// wall (Q = 2): DRR −5.2 dB, three times more echo than direct sound.
    public static let offAxisRoom = RoomModel(rt60: 0.6, distance: 3, volume: 250, directivity: 2)

    /// C/N0 of the room conditions: SNR 30 dB in the 1.5 kHz band (C/N0 = SNR + 31.8 dB).
    public static let roomCN0 = 30 + 31.8

    /// The conditions `nearcast bench modem` measures by default: the modem's bar (docs/design.md, the audio burst).
    public static let standard: [ChannelCondition] = {
        var list: [ChannelCondition] = []
        func add(_ name: String, _ summary: String, _ configure: (inout ChannelCondition) -> Void) {
            var condition = ChannelCondition(name: name, summary: summary)
            configure(&condition)
            list.append(condition)
        }
        add("clean", "no noise, no impairment (48 kHz)") { $0.noise = nil }
        add("white-28", "white noise, C/N0 28 dB-Hz") { $0.cn0 = 28 }
        add("white-28-44k", "white noise, C/N0 28 dB-Hz, 44.1 kHz") { $0.cn0 = 28; $0.sampleRate = 44_100 }
        add("pink-28", "pink noise, C/N0 28 dB-Hz in the band") { $0.noise = .pink; $0.cn0 = 28 }
        add("scale+4100", "time scale +4100 ppm, white 32 dB-Hz") { $0.cn0 = 32; $0.timeScalePPM = 4100...4100 }
        add("scale-4100", "time scale -4100 ppm, white 32 dB-Hz") { $0.cn0 = 32; $0.timeScalePPM = -4100 ... -4100 }
        add("scale-any", "time scale uniform in +-4100 ppm, white 32 dB-Hz") {
            $0.cn0 = 32; $0.timeScalePPM = -4100...4100
        }
        add("room-3m", "RT60 0.6 s room, 3 m, on axis (DRR +1.8 dB), SNR 30 dB") {
            $0.room = venueRoom; $0.cn0 = roomCN0
        }
        add("room-3m-44k", "the same room at 44.1 kHz") {
            $0.room = venueRoom; $0.cn0 = roomCN0; $0.sampleRate = 44_100
        }
        add("room-3m-omni", "the same room off axis (Q 2, DRR -5.2 dB), SNR 30 dB") {
            $0.room = offAxisRoom; $0.cn0 = roomCN0
        }
        // Image-method rooms: the rooms of the modem's bar (docs/design.md).
        let roomA = ShoeBoxRoom(rt60: 0.6, distance: 3)
        let roomB = ShoeBoxRoom(rt60: 0.8, distance: 5)
        add("room-a", "image-method room RT60 0.6 s, 3 m, omni (DRR about -8.6 dB), SNR 30 dB") {
            $0.shoeBox = roomA; $0.cn0 = roomCN0
        }
        add("room-a-44k", "the same room at 44.1 kHz") {
            $0.shoeBox = roomA; $0.cn0 = roomCN0; $0.sampleRate = 44_100
        }
        add("room-b", "image-method room RT60 0.8 s, 5 m, omni (DRR about -11 dB), SNR 30 dB") {
            $0.shoeBox = roomB; $0.cn0 = roomCN0
        }
        add("room-b-44k", "the same room at 44.1 kHz") {
            $0.shoeBox = roomB; $0.cn0 = roomCN0; $0.sampleRate = 44_100
        }
        add("room-a-walking", "room-a, then +4100 or -4100 ppm (walking), SNR 30 dB") {
            $0.shoeBox = roomA; $0.cn0 = roomCN0; $0.timeScalePPM = -4100...4100; $0.timeScaleAtEnds = true
        }
        add("room-a-walking-44k", "the same at 44.1 kHz") {
            $0.shoeBox = roomA; $0.cn0 = roomCN0; $0.timeScalePPM = -4100...4100; $0.timeScaleAtEnds = true
            $0.sampleRate = 44_100
        }
        add("room-b-pink", "room-b with pink noise, SNR 30 dB in the band") {
            $0.shoeBox = roomB; $0.cn0 = roomCN0; $0.noise = .pink
        }
        add("room-a-side", "room-a, cardioid speaker turned 90 degrees away from the listener") {
            $0.shoeBox = ShoeBoxRoom(rt60: 0.6, distance: 3, source: .cardioid(degreesFromListener: 90))
            $0.cn0 = roomCN0
        }
        add("cheap-mic", "roll-off above 19 kHz, DC 0.2, clipped 4x, white 34 dB-Hz") {
            $0.micRolloffHz = 19_000; $0.dcOffset = 0.2; $0.overdrive = 4; $0.cn0 = 34
        }
        add("walking-44k", "44.1 kHz: room, +-4100 ppm, mic roll-off, pink 40 dB-Hz") {
            $0.sampleRate = 44_100; $0.room = venueRoom; $0.timeScalePPM = -4100...4100
            $0.micRolloffHz = 19_000; $0.noise = .pink; $0.cn0 = 40
        }
        return list
    }()

    /// The standard condition called `name`.
    public static func named(_ name: String) -> ChannelCondition? {
        standard.first { $0.name == name }
    }
}

/// Applies a ``ChannelCondition`` to audio.
public struct ChannelSimulator {
    public let condition: ChannelCondition
    private let scaler = TimeScaler()
    private let noiseSource: NoiseSource?

    public init(_ condition: ChannelCondition) {
        self.condition = condition
        noiseSource = condition.noise.map { NoiseSource(color: $0, sampleRate: condition.sampleRate, band: condition.band) }
    }

    /// What one trial drew from the condition's ranges.
    public struct Draw: Sendable {
        /// The time scale applied, ppm.
        public var timeScalePPM: Double
        /// Where the input's first sample lands in the output, in output samples.
        public var inputStart: Double
        /// The image-method room's direct-to-reverberant ratio, dB (nil without one).
        public var directToReverberantDB: Double?
    }

    /// The received signal for `signal` (padded with silence both sides) and what was drawn.
    /// The noise is scaled to `power` if given (one burst's mean power, for a stream of
    /// several with silence between them), else to the mean power of `signal` between its
    /// first and last non-zero sample.
    public func apply(_ signal: [Float], seed: UInt64, power: Double? = nil) -> (received: [Float], draw: Draw) {
        var generator = SplitMix64(seed: seed)
        let fs = condition.sampleRate
        let pad = Int(ChannelCondition.padding * Double(fs))
        var x = [Double](repeating: 0, count: signal.count + 2 * pad)
        for i in signal.indices { x[pad + i] = Double(signal[i]) }
        let power = power ?? Self.activePower(signal)

        if let room = condition.room {
            let h = room.impulseResponse(sampleRate: fs, generator: &generator)
            x = Array(FFT.convolve(x, h)[0..<x.count])
        }
        var drr: Double?
        if let shoeBox = condition.shoeBox {
            let realisation = shoeBox.realise(sampleRate: fs, generator: &generator)
            let lead = realisation.directIndex
            x = Array(FFT.convolve(x, realisation.response)[lead..<(lead + x.count)])
            drr = realisation.directToReverberantDB
        }
        let range = condition.timeScalePPM
        let ppm: Double
        if range.lowerBound == range.upperBound {
            ppm = range.lowerBound
        } else if condition.timeScaleAtEnds {
            ppm = Bool.random(using: &generator) ? range.upperBound : range.lowerBound
        } else {
            ppm = Double.random(in: range, using: &generator)
        }
        if ppm != 0 { x = scaler.scale(x, ppm: ppm) }
        if let corner = condition.micRolloffHz {
            // 4th-order Butterworth: two sections with Q = 0.541 and 1.307.
            var first = Biquad.lowPass(corner, q: 0.541_196, sampleRate: fs)
            var second = Biquad.lowPass(corner, q: 1.306_563, sampleRate: fs)
            for i in x.indices { x[i] = second.process(first.process(x[i])) }
        }
        if let cutoff = condition.phoneCutoffHz { x = Self.steepLowPass(x, cutoffHz: cutoff, sampleRate: fs) }
        if let noiseSource {
            let n0 = power / CoreMath.exp(condition.cn0 / 10 * CoreMath.log(10))
            let noise = noiseSource.samples(count: x.count, n0: n0, generator: &generator)
            for i in x.indices { x[i] += noise[i] }
        }
        if let overdrive = condition.overdrive {
            let peak = signal.reduce(0) { max($0, abs(Double($1))) }
            let gain = peak > 0 ? overdrive / peak : 1
            for i in x.indices { x[i] = min(1, max(-1, x[i] * gain)) }
        }
        if condition.dcOffset != 0 {
            // The converter's offset, after the analog stage clipped; its range still ends at ±1.
            for i in x.indices { x[i] = min(1, max(-1, x[i] + condition.dcOffset)) }
        }
        let start = Double(pad) / (1 + ppm / 1e6)
        return (x.map { Float($0) }, Draw(timeScalePPM: ppm, inputStart: start, directToReverberantDB: drr))
    }

    /// `x` through a linear-phase low-pass at `cutoffHz`: a Kaiser-windowed sinc (beta 7, ±1.7 ms),
    /// whose transition is about 1.3 kHz wide, delayed back into place.
    static func steepLowPass(_ x: [Double], cutoffHz: Double, sampleRate: Int) -> [Double] {
        let halfWidth = sampleRate / 600
        let cutoff = cutoffHz / Double(sampleRate)
        let kernel = (-halfWidth...halfWidth).map {
            KaiserSinc.value(at: Double($0), cutoff: cutoff, halfWidth: Double(halfWidth + 1), beta: 7)
        }
        return Array(FFT.convolve(x, kernel)[halfWidth..<(halfWidth + x.count)])
    }

    /// Mean power between the first and last non-zero sample.
    static func activePower(_ signal: [Float]) -> Double {
        guard let first = signal.firstIndex(where: { $0 != 0 }),
              let last = signal.lastIndex(where: { $0 != 0 }) else { return 0 }
        var sum = 0.0
        for i in first...last { sum += Double(signal[i]) * Double(signal[i]) }
        return sum / Double(last - first + 1)
    }
}
