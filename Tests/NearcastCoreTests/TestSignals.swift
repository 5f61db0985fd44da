import Glibc
import NearcastBench       // SplitMix64.gaussian()
@testable import NearcastCore

/// The core's seeded generator (Gaussian samples come from the bench's extension).
typealias SeededGenerator = SplitMix64

/// Audio fixtures for the modem tests.
enum TestSignals {
    /// One burst for `token` in `band` with silence around it.
    static func burst(_ token: Token, sampleRate: Int, leadingSilence: Int, trailingSilence: Int = 1000,
                      amplitude: Float = 0.5, band: ModemBand = .high) throws -> [Float] {
        let encoder = try BurstEncoder(sampleRate: sampleRate, band: band, amplitude: amplitude)
        encoder.start(token)
        var audio = [Float](repeating: 0, count: leadingSilence + encoder.rate.burstSamples + trailingSilence)
        audio.withUnsafeMutableBufferPointer { buffer in
            _ = encoder.render(into: UnsafeMutableBufferPointer(rebasing: buffer[leadingSilence...]))
        }
        return audio
    }

    /// Mean power of a burst over its own duration (DESIGN's C/N0 definition).
    static func burstPower(sampleRate: Int, amplitude: Float = 0.5, band: ModemBand = .high) throws -> Double {
        let token = try Token(kind: .direct, hex: "0011223344556677")
        let audio = try burst(token, sampleRate: sampleRate, leadingSilence: 0, trailingSilence: 0, amplitude: amplitude, band: band)
        return audio.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(audio.count)
    }

    /// Adds white Gaussian noise so the burst sits at `cn0` dB-Hz:
    /// σ² = P·(fs/2) / 10^(C/N0 / 10) (docs/design.md, how the modem is measured).
    static func addNoise(_ audio: inout [Float], cn0: Double, sampleRate: Int, burstPower: Double,
                         generator: inout SeededGenerator) {
        let sigma = Glibc.sqrt(burstPower * Double(sampleRate) / 2 / Glibc.pow(10, cn0 / 10))
        for i in audio.indices { audio[i] += Float(sigma * generator.gaussian()) }
    }

    /// A random token of either kind and any valid length.
    static func randomToken(using generator: inout SeededGenerator) -> Token {
        let kind: TokenKind = Bool.random(using: &generator) ? .direct : .eid
        let count = kind == .eid ? 8 : Int.random(in: 1...8, using: &generator)
        var value = UInt64.random(in: 0...UInt64.max, using: &generator)
        if count < 8 { value &= (UInt64(1) << UInt64(count * 8)) - 1 }
        return Token(kind: kind, packed: value, count: count)!
    }

    /// Decodes `audio` listening to `bands`, pushing it in chunks of `chunk` samples (0: all at
    /// once); the bursts in time order.
    static func decode(_ audio: [Float], sampleRate: Int, chunk: Int = 0, bands: [ModemBand] = [.high]) throws -> [DecodedBurst] {
        let decoder = try MultiBandDecoder(sampleRate: sampleRate, bands: bands)
        var found: [DecodedBurst] = []
        audio.withUnsafeBufferPointer { all in
            let step = chunk > 0 ? chunk : max(all.count, 1)
            var start = 0
            while start < all.count {
                let end = min(all.count, start + step)
                decoder.push(UnsafeBufferPointer(rebasing: all[start..<end])) { found.append($0) }
                start = end
            }
        }
        decoder.finish { found.append($0) }
        return found.sorted { $0.startSample < $1.startSample }
    }
}
