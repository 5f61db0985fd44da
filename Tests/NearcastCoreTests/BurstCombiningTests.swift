import XCTest
@testable import NearcastCore

/// Combining the bursts a phone hears (``BurstMemory``): weak repeats decode together, two
/// tokens are never mixed into a third, and unrelated bursts never combine into a token.
final class BurstCombiningTests: XCTestCase {
    static let rate = 48_000

    /// Bursts one box spacing (two burst lengths, 1.44 s) apart, `tokens[i]` in the i-th, with
    /// white noise at `cn0` over the whole stream (against one burst's mean power).
    /// The bursts whose indices are in `chirpless` are sent without their two chirps (silence
    /// in their place), so no sync finds them.
    static func group(_ tokens: [Token], cn0: Double, seed: UInt64, chirpless: Set<Int> = []) throws -> [Float] {
        let encoder = try BurstEncoder(sampleRate: rate)
        let length = encoder.rate.burstSamples
        let lead = 12_000
        var audio = [Float](repeating: 0, count: lead + (tokens.count - 1) * 2 * length + length + 12_000)
        for (index, token) in tokens.enumerated() {
            encoder.start(token)
            let from = lead + index * 2 * length
            audio.withUnsafeMutableBufferPointer { buffer in
                _ = encoder.render(into: UnsafeMutableBufferPointer(rebasing: buffer[from..<(from + length)]))
                if chirpless.contains(index) {
                    for sample in from..<(from + 2 * encoder.rate.chirpSamples) { buffer[sample] = 0 }
                }
            }
        }
        var generator = SeededGenerator(seed: seed)
        TestSignals.addNoise(&audio, cn0: cn0, sampleRate: rate, burstPower: try TestSignals.burstPower(sampleRate: rate),
                             generator: &generator)
        return audio
    }

    /// Every token a fresh high-band decoder finds in `audio`, with or without combining, and
    /// the decoder (for its counts).
    static func decode(_ audio: [Float], combining: Bool = true, searchingRepeats: Bool = true) throws -> (found: [DecodedBurst], decoder: BurstDecoder) {
        var configuration = BurstDecoder.Configuration()
        configuration.combinesBursts = combining
        configuration.searchesRepeats = searchingRepeats
        let decoder = try BurstDecoder(sampleRate: rate, configuration: configuration)
        var found: [DecodedBurst] = []
        audio.withUnsafeBufferPointer { all in
            var start = 0
            while start < all.count {
                let end = min(all.count, start + 960)
                decoder.push(UnsafeBufferPointer(rebasing: all[start..<end])) { found.append($0) }
                start = end
            }
        }
        decoder.finish { found.append($0) }
        return (found, decoder)
    }

    func testARepeatTheSyncCannotFindIsLookedForWhereItIsDue() throws {
        // Three bursts at 25 dB-Hz, the second and third without chirps: the sync finds only the
        // first, which seldom decodes alone; its repeats are looked for where they are due,
        // placed by it, and decode with it. Every token reported at a chirpless burst was found
        // by the search.
        var generator = SeededGenerator(seed: 52)
        var with = 0, without = 0, searched = 0, atChirpless = 0
        let length = try BurstEncoder(sampleRate: Self.rate).rate.burstSamples
        for group in 0..<10 {
            let token = TestSignals.randomToken(using: &generator)
            let audio = try Self.group(Array(repeating: token, count: 3), cn0: 25, seed: 5200 + UInt64(group), chirpless: [1, 2])
            let plain = try Self.decode(audio, searchingRepeats: false).found
            let (found, decoder) = try Self.decode(audio)
            XCTAssertTrue(found.allSatisfy { $0.token == token } && plain.allSatisfy { $0.token == token }, "a wrong token")
            XCTAssertTrue(plain.allSatisfy { $0.startSample < 12_000 + length }, "without the search only the first burst is heard")
            if !plain.isEmpty { without += 1 }
            if !found.isEmpty { with += 1 }
            atChirpless += found.filter { $0.startSample > 12_000 + length }.count
            searched += decoder.repeatsSearched
        }
        XCTAssertGreaterThan(searched, 0, "repeats were looked for")
        XCTAssertGreaterThan(atChirpless, 0, "tokens reported at bursts only the search found")
        XCTAssertGreaterThanOrEqual(with - without, 3, "groups only the search decoded (with: \(with), without: \(without) of 10)")
    }

    func testRepeatsTooWeakAloneDecodeCombined() throws {
        // Four bursts at 24 dB-Hz: one alone decodes about 5 % of the time (docs/modem.md).
        var generator = SeededGenerator(seed: 51)
        var alone = 0, combined = 0, onlyCombined = 0
        for group in 0..<6 {
            let token = TestSignals.randomToken(using: &generator)
            let audio = try Self.group(Array(repeating: token, count: 4), cn0: 24, seed: 5100 + UInt64(group))
            let without = try Self.decode(audio, combining: false).found
            let with = try Self.decode(audio).found
            XCTAssertTrue(without.allSatisfy { $0.token == token }, "a wrong token alone")
            XCTAssertTrue(with.allSatisfy { $0.token == token }, "a wrong token combined")
            let withoutFound = !without.isEmpty, withFound = !with.isEmpty
            if withoutFound { alone += 1 }
            if withFound { combined += 1 }
            if withFound && !withoutFound {
                onlyCombined += 1
                XCTAssertGreaterThan(with[0].copies, 1, "a token the bursts alone did not give came from several")
            }
        }
        XCTAssertGreaterThanOrEqual(combined, 5, "combined: \(combined) of 6 groups")
        XCTAssertGreaterThanOrEqual(onlyCombined, 3, "groups that only combining decoded (alone: \(alone) of 6)")
    }

    func testAnEIDRotatingWithinAGroupGivesBothTokensOrNeitherNeverAThird() throws {
        // Five bursts, the EID changing after 1 to 4 of them; at 26 dB-Hz (a burst alone decodes
        // about half the time, two combined nearly always) and at 24 (most tokens need three).
        var generator = SeededGenerator(seed: 4242)
        var both = 0
        for group in 0..<12 {
            let first = Token(kind: .eid, packed: generator.next(), count: 8)!
            let second = Token(kind: .eid, packed: generator.next(), count: 8)!
            let switchAt = 1 + group % 4
            let cn0 = group < 8 ? 26.0 : 24.0
            let tokens = (0..<5).map { $0 < switchAt ? first : second }
            let found = try Self.decode(try Self.group(tokens, cn0: cn0, seed: 4200 + UInt64(group))).found
            for burst in found {
                XCTAssertTrue(burst.token == first || burst.token == second, "group \(group): a third token \(burst.token)")
            }
            if group < 8 && Set(found.map(\.token)).count == 2 { both += 1 }
        }
        XCTAssertGreaterThanOrEqual(both, 5, "groups at 26 dB-Hz that gave both tokens, of 8")
    }

    func testUnrelatedBurstsNeverCombineIntoAToken() throws {
        // "Noise bursts": true chirps, then data symbols each taken from another random token's
        // burst, so every group's tones are clear but belong to no codeword. Bursts one spacing
        // apart share 5 of their 11 symbols, so they pass the correlation screen and are tried
        // together; no combination may pass as a token.
        let encoder = try BurstEncoder(sampleRate: Self.rate)
        let r = encoder.rate
        let length = r.burstSamples
        var generator = SeededGenerator(seed: 777)
        func symbols(of token: Token) -> [Float] {
            encoder.start(token)
            var burst = [Float](repeating: 0, count: length)
            burst.withUnsafeMutableBufferPointer { _ = encoder.render(into: $0) }
            return burst
        }
        var audio = [Float](repeating: 0, count: 12_000 + 24 * 2 * length)
        var shared: [[Float]] = (0..<5).map { _ in symbols(of: TestSignals.randomToken(using: &generator)) }
        for index in 0..<24 {
            if index % 6 == 0 { shared = (0..<5).map { _ in symbols(of: TestSignals.randomToken(using: &generator)) } }
            var burst = symbols(of: TestSignals.randomToken(using: &generator))
            for symbol in 0..<r.symbolCount {
                let source = symbol < 5 ? shared[symbol] : symbols(of: TestSignals.randomToken(using: &generator))
                let from = 2 * r.chirpSamples + symbol * r.symbolSamples
                for n in from..<(from + r.symbolSamples) { burst[n] = source[n] }
            }
            for n in 0..<length { audio[12_000 + index * 2 * length + n] = burst[n] }
        }
        TestSignals.addNoise(&audio, cn0: 30, sampleRate: Self.rate, burstPower: try TestSignals.burstPower(sampleRate: Self.rate),
                             generator: &generator)
        let (found, decoder) = try Self.decode(audio)
        XCTAssertEqual(found.map(\.token), [], "tokens from bursts that carry none")
        XCTAssertGreaterThan(decoder.combinedTries, 10, "combinations were tried")
        XCTAssertEqual(decoder.combinedDecodes, 0)
    }

    func testTheSameAudioPushedSampleBySampleGivesTheSameTokens() throws {
        // The push-style contract holds for combined tokens too.
        let token = try Token(kind: .eid, hex: "a1b2c3d4e5f60718")
        let audio = try Self.group(Array(repeating: token, count: 3), cn0: 24.5, seed: 9)
        let inOne = try Self.decode(audio).found
        var configuration = BurstDecoder.Configuration()
        configuration.combinesBursts = true
        let decoder = try BurstDecoder(sampleRate: Self.rate, configuration: configuration)
        var bySample: [DecodedBurst] = []
        audio.withUnsafeBufferPointer { all in
            for index in all.indices { decoder.push(UnsafeBufferPointer(rebasing: all[index..<(index + 1)])) { bySample.append($0) } }
        }
        decoder.finish { bySample.append($0) }
        XCTAssertEqual(inOne, bySample)
        XCTAssertTrue(inOne.contains { $0.token == token }, "the group decoded")
    }

    func testLagsFitOnlyWholeSpacingsWithinTheLargestTimeScale() throws {
        let memory = BurstMemory(rate: try ModemRate(sampleRate: Self.rate))
        let s = memory.spacing
        XCTAssertEqual(s, 4320)                         // 1.44 s at 3 kHz
        XCTAssertTrue(memory.lagFits(s))
        XCTAssertTrue(memory.lagFits(2 * s * (1 + 5e-3)))
        XCTAssertTrue(memory.lagFits(6 * s * (1 - 5e-3)))
        XCTAssertFalse(memory.lagFits(0))
        XCTAssertFalse(memory.lagFits(0.5 * s))
        XCTAssertFalse(memory.lagFits(s * 1.03))
        XCTAssertFalse(memory.lagFits(7 * s))
    }
}
