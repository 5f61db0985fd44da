import NearcastCore

/// Runs groups of repeated bursts through a ``ChannelCondition``: what combining the bursts a
/// phone hears (``BurstDecoder``'s step 6) makes of them.
///
/// Each trial is one stream: `repeats` bursts of one random 8-byte token, one box spacing apart
/// (two burst lengths, 1.44 s: the box's 50 % duty cap), through the condition's channel as one
/// signal: one room response for the whole stream (a phone lying still), one time scale (so the
/// spacing the decoder sees is stretched and the drift adds up over the group), and noise over
/// all of it at the condition's C/N0 against one burst's mean power, so every burst gets its own.
/// A fresh decoder takes the stream in 1024-sample periods.
///
/// With `held`, an image-method room is heard by a phone in a hand instead: the same room and
/// source, the listener moved 1-5 cm before each burst (``ShoeBoxRoom/realiseHeld``), so every
/// burst has its own response; each burst is convolved with its own and the tails overlap.
///
/// With `rotate`, the token is an EID that changes within the group: token A for bursts 1…j and
/// B for j+1…K, j uniform in 1…K−1. Success is then both tokens reported; anything else
/// reported is wrong, and must never happen.
public struct RepeatsBenchmark {
    /// What one condition gave.
    public struct Result: Sendable {
        public var condition: String
        public var repeats = 0
        public var trials = 0
        /// Trials whose token (with `rotate`: both tokens) was reported at a burst's place.
        public var decoded = 0
        /// Trials in which some burst decoded alone (with `rotate`: each token from a burst of
        /// its own): what the decoder gives without combining.
        public var decodedAlone = 0
        /// Payloads reported that were never sent.
        public var wrong = 0
        /// Sum over the decoded trials of the burst (1…K) at which the (last) token came first.
        public var firstTokenBurstSum = 0
        /// Sum over the decoded trials of the seconds from the end of that burst to the decoder
        /// reporting the token (the audio the decoder waited for, on the sender's clock).
        public var firstTokenDelaySum = 0.0
        /// Combinations tried and tokens found by combining, over all trials.
        public var combinedTries = 0
        public var combinedDecodes = 0
        /// Candidates demodulated where a kept burst's repeat was due and the sync found none.
        public var predictedCandidates = 0
        /// CRC checks of single bursts, over all trials.
        public var framesTried = 0
        public var audioSeconds = 0.0
        public var decodeSeconds = 0.0
        public var failedSeeds: [UInt64] = []
        /// Seeds of the trials in which a wrong payload was reported, and whether it came from
        /// several bursts combined.
        public var wrongSeeds: [(seed: UInt64, combined: Bool)] = []

        public var successPercent: Double { trials == 0 ? 0 : 100 * Double(decoded) / Double(trials) }
        public var alonePercent: Double { trials == 0 ? 0 : 100 * Double(decodedAlone) / Double(trials) }
        /// The mean burst (1…K) at which the token came first, over the decoded trials.
        public var meanFirstTokenBurst: Double { decoded == 0 ? 0 : Double(firstTokenBurstSum) / Double(decoded) }
        /// The mean seconds from the end of the burst that gave the (last) token first to its report.
        public var meanFirstTokenDelay: Double { decoded == 0 ? 0 : firstTokenDelaySum / Double(decoded) }
        public var cpuMillisecondsPerSecond: Double { audioSeconds == 0 ? 0 : 1000 * decodeSeconds / audioSeconds }
        /// What coherent combining of K copies gains over one: 10·log10 K dB.
        public var theoreticalGainDB: Double { 10 * CoreMath.log(Double(max(repeats, 1))) / CoreMath.log(10) }
    }

    /// One trial as the decoder saw it, for decoding the same audio elsewhere (the listener
    /// page's WebAssembly decoder: `nearcast bench modem --write-trials`, tools/bench/bench-web-repeats).
    public struct Trial {
        public var index: Int
        public var seed: UInt64
        /// The received stream, as the decoder was fed it.
        public var received: [Float]
        /// The group's tokens (two with `rotate`).
        public var tokens: [Token]
        /// Each burst of the group: the sample of the received stream it begins at, and the
        /// index in `tokens` of the token it carries.
        public var bursts: [(start: Double, token: Int)]
        /// How far from its burst's start a report may sit and count, samples.
        public var tolerance: Double
        /// Samples a burst lasts in the received stream.
        public var burstSamples: Double
        /// What the decoder reported, with the samples it had been fed at each report.
        public var found: [(burst: DecodedBurst, reportedAt: Int)]
    }

    public let condition: ChannelCondition
    public let repeats: Int
    public let rotate: Bool
    /// Whether the image-method room changes between bursts (a phone held in a hand).
    public let held: Bool
    private let simulator: ChannelSimulator

    public init(_ condition: ChannelCondition, repeats: Int, rotate: Bool = false, held: Bool = false) {
        precondition(repeats >= 1 && (!rotate || repeats >= 2), "a group needs a burst, a rotation two")
        precondition(!held || condition.shoeBox != nil, "a held phone needs an image-method room")
        self.condition = condition
        self.repeats = repeats
        self.rotate = rotate
        self.held = held
        var rest = condition
        // The held rooms are applied here, burst by burst; the simulator does the rest.
        if held { rest.shoeBox = nil }
        simulator = ChannelSimulator(rest)
    }

    /// Runs `trials` groups; `cpuSeconds` reads the calling thread's CPU clock.
    /// Each burst of `bursts` through its own response of `room` as a held phone hears it, the
    /// tails added (the stream grows by the longest response).
    static func heldRoom(_ room: ShoeBoxRoom, bursts: [Float], spacing: Int, length: Int, copies: Int,
                         sampleRate: Int, seed: UInt64) -> [Float] {
        var generator = SplitMix64(seed: seed ^ 0x401D)
        let responses = room.realiseHeld(copies: copies, sampleRate: sampleRate, generator: &generator)
        let longest = responses.map { $0.response.count }.max() ?? 0
        var out = [Float](repeating: 0, count: bursts.count + longest)
        for copy in 0..<copies {
            let from = copy * spacing
            let dry = bursts[from..<(from + length)].map(Double.init)
            let realisation = responses[copy]
            let wet = FFT.convolve(dry, realisation.response)
            // The direct sound lands where the burst was sent.
            for n in realisation.directIndex..<wet.count where from + n - realisation.directIndex < out.count {
                out[from + n - realisation.directIndex] += Float(wet[n])
            }
        }
        return out
    }

    /// `observe`, when given, sees every trial (its audio, its bursts, what was reported).
    public func run(trials: Int, seed: UInt64, decoder configuration: BurstDecoder.Configuration = .init(),
                    cpuSeconds: () -> Double, observe: ((Trial) throws -> Void)? = nil) throws -> Result {
        let encoder = try BurstEncoder(sampleRate: condition.sampleRate, band: condition.band, length: configuration.length)
        let burstSamples = encoder.rate.burstSamples
        let spacing = 2 * burstSamples
        var result = Result(condition: condition.name, repeats: repeats)
        var burst = [Float](repeating: 0, count: burstSamples)
        for index in 0..<trials {
            let trialSeed = ModemBenchmark.trialSeed(base: seed, index: index)
            var generator = SplitMix64(seed: trialSeed ^ 0x5EED)
            var tokens = [ModemBenchmark.randomToken(using: &generator)]
            var switchAt = repeats
            if rotate {
                tokens = [Token(kind: .eid, packed: generator.next(), count: 8)!, Token(kind: .eid, packed: generator.next(), count: 8)!]
                switchAt = 1 + Int(generator.next() % UInt64(repeats - 1))
            }
            var stream = [Float](repeating: 0, count: (repeats - 1) * spacing + burstSamples)
            var power = 0.0
            for copy in 0..<repeats {
                encoder.start(tokens[copy < switchAt ? 0 : 1])
                burst.withUnsafeMutableBufferPointer { _ = encoder.render(into: $0) }
                for i in 0..<burstSamples { stream[copy * spacing + i] = burst[i] }
                if copy == 0 { power = ChannelSimulator.activePower(burst) }
            }
            if held, let room = condition.shoeBox {
                stream = Self.heldRoom(room, bursts: stream, spacing: spacing, length: burstSamples, copies: repeats,
                                       sampleRate: condition.sampleRate, seed: trialSeed)
            }
            let (received, draw) = simulator.apply(stream, seed: trialSeed, power: power)

            let decoder = try BurstDecoder(sampleRate: condition.sampleRate, band: condition.band, configuration: configuration)
            let (found, reportedAt, seconds) = ModemBenchmark.decode(received, with: decoder, cpuSeconds: cpuSeconds)
            result.decodeSeconds += seconds
            result.audioSeconds += Double(decoder.samplesPushed) / Double(condition.sampleRate)
            result.combinedTries += decoder.combinedTries
            result.combinedDecodes += decoder.combinedDecodes
            result.predictedCandidates += decoder.predictedCandidates
            result.framesTried += decoder.framesTried

            // Where each burst lands in the received stream, and which token it carries.
            let stretch = 1 + draw.timeScalePPM / 1e6
            let tolerance = 0.010 * Double(condition.sampleRate)
            let lasts = Double(burstSamples) / stretch
            var firstAt = [Int](repeating: 0, count: tokens.count)     // 1-based burst, 0: not yet
            var firstDelay = [Double](repeating: 0, count: tokens.count)
            var alone = [Bool](repeating: false, count: tokens.count)
            for (heard, reported) in zip(found, reportedAt) {
                guard let which = tokens.firstIndex(of: heard.token) else {
                    result.wrong += 1
                    result.wrongSeeds.append((trialSeed, heard.copies > 1))
                    continue
                }
                for copy in 0..<repeats where (copy < switchAt ? 0 : 1) == which {
                    let place = draw.inputStart + Double(copy * spacing) / stretch
                    guard abs(Double(heard.startSample) - place) <= tolerance else { continue }
                    if firstAt[which] == 0 || copy + 1 < firstAt[which] {
                        firstAt[which] = copy + 1
                        firstDelay[which] = (Double(reported) - place - lasts) / Double(condition.sampleRate)
                    }
                    if heard.copies == 1 { alone[which] = true }
                }
            }
            result.trials += 1
            if !firstAt.contains(0) {
                result.decoded += 1
                let last = firstAt.indices.max { firstAt[$0] < firstAt[$1] } ?? 0
                result.firstTokenBurstSum += firstAt[last]
                result.firstTokenDelaySum += firstDelay[last]
            } else {
                result.failedSeeds.append(trialSeed)
            }
            if !alone.contains(false) { result.decodedAlone += 1 }
            try observe?(Trial(index: index, seed: trialSeed, received: received, tokens: tokens,
                               bursts: (0..<repeats).map { (draw.inputStart + Double($0 * spacing) / stretch, $0 < switchAt ? 0 : 1) },
                               tolerance: tolerance, burstSamples: lasts, found: Array(zip(found, reportedAt))))
        }
        return result
    }
}
