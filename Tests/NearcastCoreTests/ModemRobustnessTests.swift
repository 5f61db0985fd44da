import XCTest
import NearcastBench
@testable import NearcastCore

/// The modem never turns noise or damage into a token.
final class ModemRobustnessTests: XCTestCase {
    func testSixtySecondsOfWhiteNoiseGiveNoToken() throws {
        var generator = SeededGenerator(seed: 10)
        for rate in [48_000, 44_100] {
            var audio = [Float](repeating: 0, count: 60 * rate)
            for i in audio.indices { audio[i] = Float(0.1 * generator.gaussian()) }
            XCTAssertEqual(try TestSignals.decode(audio, sampleRate: rate, chunk: 4096), [], "rate \(rate)")
        }
    }

    func testCorruptedBurstGivesNoTokenRatherThanAWrongOne() throws {
        var generator = SeededGenerator(seed: 11)
        let rate = try ModemRate(sampleRate: 48_000)
        for trial in 0..<30 {
            let token = TestSignals.randomToken(using: &generator)
            var audio = try TestSignals.burst(token, sampleRate: 48_000, leadingSilence: 2000)
            // Wipe a third of the data symbols with a loud, wide-band burst of noise.
            let dataStart = 2000 + 2 * rate.chirpSamples
            let from = dataStart + Int.random(in: 0..<(7 * rate.symbolSamples), using: &generator)
            for i in from..<(from + 4 * rate.symbolSamples) { audio[i] = Float(0.8 * generator.gaussian()) }
            let found = try TestSignals.decode(audio, sampleRate: 48_000)
            XCTAssertTrue(found.allSatisfy { $0.token == token }, "trial \(trial): wrong payload \(found)")
        }
    }

    func testTruncatedBurstGivesNoToken() throws {
        let token = try Token(kind: .direct, hex: "0102030405060708")
        let full = try TestSignals.burst(token, sampleRate: 48_000, leadingSilence: 1000, trailingSilence: 0)
        let half = try ModemRate(sampleRate: 48_000).burstSamples / 2
        let cut = Array(full[0..<(1000 + half)])     // half the burst
        XCTAssertEqual(try TestSignals.decode(cut, sampleRate: 48_000), [])
    }

    func testBurstsBuriedInNoiseAreNeverMisreported() throws {
        // Far below the decoding threshold: nothing or the right token, never another one.
        var generator = SeededGenerator(seed: 12)
        let power = try TestSignals.burstPower(sampleRate: 48_000)
        var wrong = 0
        for _ in 0..<40 {
            let token = TestSignals.randomToken(using: &generator)
            var audio = try TestSignals.burst(token, sampleRate: 48_000, leadingSilence: 3000)
            TestSignals.addNoise(&audio, cn0: 24, sampleRate: 48_000, burstPower: power, generator: &generator)
            wrong += try TestSignals.decode(audio, sampleRate: 48_000).filter { $0.token != token }.count
        }
        XCTAssertEqual(wrong, 0)
    }
}
