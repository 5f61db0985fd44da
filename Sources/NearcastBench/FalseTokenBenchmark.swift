import NearcastCore

/// Feeds hours of ``BackgroundSound`` with no burst in it through one streaming decoder and
/// counts every token it reports (each one is a false token) and every CRC check it made (see
/// ``BurstDecoder/framesTried``: one per sync candidate that passed the tonal-share gate).
public struct FalseTokenBenchmark {
    /// What one kind of sound gave.
    public struct Result: Sendable {
        public var sound: BackgroundSound.Kind
        public var seconds = 0.0
        public var falseTokens = 0
        public var framesTried = 0
        /// Sync candidates demodulated (the CPU cost of noise), of which `framesTried` passed
        /// the tonal-share gate.
        public var candidates = 0
        public var decodeSeconds = 0.0

        /// Frames tried per hour of sound.
        public var framesPerHour: Double { seconds == 0 ? 0 : Double(framesTried) * 3600 / seconds }
        /// Sync candidates demodulated per hour of sound.
        public var candidatesPerHour: Double { seconds == 0 ? 0 : Double(candidates) * 3600 / seconds }
        /// False tokens per hour of sound.
        public var falseTokensPerHour: Double { seconds == 0 ? 0 : Double(falseTokens) * 3600 / seconds }
    }

    /// Runs `seconds` of `sound` at `sampleRate` through the decoder of `band`; `cpuSeconds`
    /// reads the thread's CPU clock.
    public static func run(sound: BackgroundSound.Kind, seconds: Double, sampleRate: Int, band: ModemBand = .high, seed: UInt64,
                           decoder configuration: BurstDecoder.Configuration = .init(),
                           cpuSeconds: () -> Double) throws -> Result {
        var source = BackgroundSound(kind: sound, sampleRate: sampleRate, seed: seed)
        let decoder = try BurstDecoder(sampleRate: sampleRate, band: band, configuration: configuration)
        var result = Result(sound: sound)
        var chunk = [Float](repeating: 0, count: 4800)
        var remaining = Int(seconds * Double(sampleRate))
        while remaining > 0 {
            let count = min(remaining, chunk.count)
            chunk.withUnsafeMutableBufferPointer { source.fill(UnsafeMutableBufferPointer(rebasing: $0[0..<count])) }
            let before = cpuSeconds()
            chunk.withUnsafeBufferPointer { buffer in
                decoder.push(UnsafeBufferPointer(rebasing: buffer[0..<count])) { _ in result.falseTokens += 1 }
            }
            result.decodeSeconds += cpuSeconds() - before
            remaining -= count
        }
        decoder.finish { _ in result.falseTokens += 1 }
        result.seconds = seconds
        result.framesTried = decoder.framesTried
        result.candidates = decoder.candidatesDecoded
        return result
    }
}
