import NearcastCore

/// Runs bursts through a ``ChannelCondition`` and counts what the decoder made of them.
///
/// Each trial: a random 8-byte token (direct or EID, so kind + 8 bytes + CRC, the frame the bar
/// is about), one burst at the condition's sample rate, the channel with its own seed, then a
/// fresh streaming decoder fed in 1024-sample periods. Only the decoder's push/finish calls are
/// timed, with the CPU clock the caller passes in (the bench module reads no clock itself).
public struct ModemBenchmark {
    /// What one condition gave.
    public struct Result: Sendable {
        public var condition: String
        /// The band the trials were sent and decoded in.
        public var band: ModemBand = .high
        public var trials = 0
        /// Right payload, reported within 10 ms of where the burst really starts.
        public var decoded = 0
        /// Payloads reported that were never sent (the number that must stay 0).
        public var wrong = 0
        /// Airtime of one burst, seconds.
        public var airtime = 0.0
        /// Seconds of audio the decoder processed (the trial's and the silence `finish` flushes
        /// the pipeline with).
        public var audioSeconds = 0.0
        /// CPU seconds spent in the decoder.
        public var decodeSeconds = 0.0
        /// Bursts demodulated (sync candidates and second tries) and CRC checks, over all trials:
        /// what the decoder's CPU went to besides the sync.
        public var demodulated = 0
        public var framesTried = 0
        /// Sum of the image-method rooms' direct-to-reverberant ratios (dB), for their mean.
        public var directToReverberantSum = 0.0
        /// Trials with an image-method room.
        public var roomTrials = 0
        /// Mean direct-to-reverberant ratio of the image-method rooms drawn, dB.
        public var meanDirectToReverberantDB: Double? { roomTrials == 0 ? nil : directToReverberantSum / Double(roomTrials) }
        /// Seeds of the trials that failed, for replaying them.
        public var failedSeeds: [UInt64] = []

        /// Decoded share, percent.
        public var successPercent: Double { trials == 0 ? 0 : 100 * Double(decoded) / Double(trials) }
        /// Decoder CPU per second of audio, milliseconds.
        public var cpuMillisecondsPerSecond: Double { audioSeconds == 0 ? 0 : 1000 * decodeSeconds / audioSeconds }
    }

    /// Audio is pushed in periods of this many samples, as a capture driver delivers it.
    public static let period = 1024

    public let condition: ChannelCondition
    private let simulator: ChannelSimulator

    public init(_ condition: ChannelCondition) {
        self.condition = condition
        simulator = ChannelSimulator(condition)
    }

    /// The seed of trial `index` under base seed `seed`, so one failure can be replayed alone.
    public static func trialSeed(base seed: UInt64, index: Int) -> UInt64 {
        seed &* 1_000_003 &+ UInt64(index)
    }

    /// Runs `trials` trials; `cpuSeconds` reads the calling thread's CPU clock.
    public func run(trials: Int, seed: UInt64, decoder configuration: BurstDecoder.Configuration = .init(),
                    cpuSeconds: () -> Double) throws -> Result {
        let encoder = try BurstEncoder(sampleRate: condition.sampleRate, band: condition.band, length: configuration.length)
        var result = Result(condition: condition.name, band: condition.band)
        result.airtime = encoder.rate.burstSeconds
        for index in 0..<trials {
            let trialSeed = Self.trialSeed(base: seed, index: index)
            var generator = SplitMix64(seed: trialSeed ^ 0x5EED)
            let token = Self.randomToken(using: &generator)
            encoder.start(token)
            var burst = [Float](repeating: 0, count: encoder.rate.burstSamples)
            burst.withUnsafeMutableBufferPointer { _ = encoder.render(into: $0) }
            let (received, draw) = simulator.apply(burst, seed: trialSeed)
            if let drr = draw.directToReverberantDB {
                result.directToReverberantSum += drr
                result.roomTrials += 1
            }

            let decoder = try BurstDecoder(sampleRate: condition.sampleRate, band: condition.band, configuration: configuration)
            let (found, _, seconds) = Self.decode(received, with: decoder, cpuSeconds: cpuSeconds)
            result.decodeSeconds += seconds
            result.demodulated += decoder.candidatesDecoded
            result.framesTried += decoder.framesTried
            // Every sample the decoder processed, the silence `finish` appends included: its CPU
            // is in `decodeSeconds` too.
            result.audioSeconds += Double(decoder.samplesPushed) / Double(condition.sampleRate)

            let tolerance = 0.010 * Double(condition.sampleRate)
            var ok = false
            for burst in found {
                if burst.token != token {
                    result.wrong += 1
                } else if abs(Double(burst.startSample) - draw.inputStart) <= tolerance {
                    ok = true
                }
            }
            result.trials += 1
            if ok { result.decoded += 1 } else { result.failedSeeds.append(trialSeed) }
        }
        return result
    }

    /// Feeds `received` to `decoder` in periods, then flushes it: the tokens it found, the
    /// samples it had been fed when it reported each (how long it made the listener wait), and
    /// the CPU seconds the decoder took.
    static func decode(_ received: [Float], with decoder: BurstDecoder,
                       cpuSeconds: () -> Double) -> (found: [DecodedBurst], reportedAt: [Int], seconds: Double) {
        var found: [DecodedBurst] = []
        var reportedAt: [Int] = []
        let report = { (burst: DecodedBurst) in
            found.append(burst)
            reportedAt.append(decoder.samplesPushed)
        }
        let before = cpuSeconds()
        received.withUnsafeBufferPointer { all in
            var start = 0
            while start < all.count {
                let end = min(all.count, start + period)
                decoder.push(UnsafeBufferPointer(rebasing: all[start..<end]), report)
                start = end
            }
        }
        decoder.finish(report)
        return (found, reportedAt, cpuSeconds() - before)
    }

    /// An 8-byte token of either kind.
    static func randomToken(using generator: inout SplitMix64) -> Token {
        let kind: TokenKind = Bool.random(using: &generator) ? .direct : .eid
        return Token(kind: kind, packed: UInt64.random(in: 0...UInt64.max, using: &generator), count: 8)!
    }
}
