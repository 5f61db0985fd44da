import XCTest
@testable import NearcastCore

/// Encoder → decoder through clean and noisy audio: the modem's behaviour, not its limits
/// (those are measured by the benchmark, with enough trials to support a percentage).
final class ModemRoundTripTests: XCTestCase {
    func testRandomTokensRoundTripAtBothRatesAndAnyOffset() throws {
        var generator = SeededGenerator(seed: 1)
        for rate in [48_000, 44_100] {
            for _ in 0..<12 {
                let token = TestSignals.randomToken(using: &generator)
                let lead = Int.random(in: 0..<rate, using: &generator)
                let audio = try TestSignals.burst(token, sampleRate: rate, leadingSilence: lead)
                let found = try TestSignals.decode(audio, sampleRate: rate)
                XCTAssertEqual(found.map(\.token), [token], "rate \(rate), lead \(lead)")
                if let burst = found.first {
                    // The reported start is within a few samples of the true one.
                    XCTAssertLessThan(abs(burst.startSample - lead), rate / 1000, "offset at rate \(rate)")
                }
            }
        }
    }

    func testChunkSizeDoesNotChangeWhatIsDecoded() throws {
        var generator = SeededGenerator(seed: 2)
        var audio: [Float] = []
        var sent: [Token] = []
        for _ in 0..<3 {
            let token = TestSignals.randomToken(using: &generator)
            sent.append(token)
            audio += try TestSignals.burst(token, sampleRate: 48_000, leadingSilence: Int.random(in: 100..<9000, using: &generator))
        }
        let power = try TestSignals.burstPower(sampleRate: 48_000)
        TestSignals.addNoise(&audio, cn0: 45, sampleRate: 48_000, burstPower: power, generator: &generator)
        let whole = try TestSignals.decode(audio, sampleRate: 48_000)
        XCTAssertEqual(whole.map(\.token), sent)
        for chunk in [1, 7, 160, 1023, 4096] {
            let chunked = try TestSignals.decode(audio, sampleRate: 48_000, chunk: chunk)
            XCTAssertEqual(chunked, whole, "chunk \(chunk)")
        }
    }

    func testBurstInModerateWhiteNoiseDecodes() throws {
        // 36 dB-Hz is an in-band (1.5 kHz) SNR of 4.2 dB: audible hiss well above the tones.
        var generator = SeededGenerator(seed: 3)
        for rate in [48_000, 44_100] {
            let power = try TestSignals.burstPower(sampleRate: rate)
            var decoded = 0
            let trials = 20
            for _ in 0..<trials {
                let token = TestSignals.randomToken(using: &generator)
                var audio = try TestSignals.burst(token, sampleRate: rate, leadingSilence: Int.random(in: 0..<20_000, using: &generator))
                TestSignals.addNoise(&audio, cn0: 36, sampleRate: rate, burstPower: power, generator: &generator)
                let found = try TestSignals.decode(audio, sampleRate: rate)
                XCTAssertTrue(found.allSatisfy { $0.token == token }, "a wrong payload was reported")
                if found.map(\.token) == [token] { decoded += 1 }
            }
            XCTAssertEqual(decoded, trials, "rate \(rate): decoded \(decoded) of \(trials) at 36 dB-Hz")
        }
    }

    func testTokenIsReportedAsSoonAsItsBurstHasBeenHeard() throws {
        // The decoder reports a burst once its own audio is in (and the interpolator's few
        // samples after it), not after the worst case of where a burst may begin: a listener
        // shows the token about 20 ms after the burst ends, not 0.16 s.
        var generator = SeededGenerator(seed: 7)
        for rate in [48_000, 44_100] {
            let token = TestSignals.randomToken(using: &generator)
            let lead = 3_000
            let audio = try TestSignals.burst(token, sampleRate: rate, leadingSilence: lead, trailingSilence: rate)
            let burstEnd = audio.count - rate
            let decoder = try BurstDecoder(sampleRate: rate)
            var reportedAt: [Int] = []
            audio.withUnsafeBufferPointer { all in
                for start in stride(from: 0, to: all.count, by: 64) {
                    decoder.push(UnsafeBufferPointer(rebasing: all[start..<min(all.count, start + 64)])) { burst in
                        XCTAssertEqual(burst.token, token)
                        reportedAt.append(decoder.samplesPushed)
                    }
                }
            }
            XCTAssertEqual(reportedAt.count, 1, "rate \(rate)")
            guard let reported = reportedAt.first else { continue }
            let waited = Double(reported - burstEnd) / Double(rate)
            XCTAssertGreaterThanOrEqual(waited, 0, "rate \(rate): reported before its burst ended")
            XCTAssertLessThan(waited, 0.040, "rate \(rate): reported \(waited) s after its burst ended")
        }
    }

    func testBackToBackBurstsAreAllFound() throws {
        var generator = SeededGenerator(seed: 4)
        var audio: [Float] = []
        var sent: [Token] = []
        for _ in 0..<5 {
            let token = TestSignals.randomToken(using: &generator)
            sent.append(token)
            audio += try TestSignals.burst(token, sampleRate: 48_000, leadingSilence: 0, trailingSilence: 0)
        }
        XCTAssertEqual(try TestSignals.decode(audio, sampleRate: 48_000).map(\.token), sent)
    }

    func testLoudAndQuietBurstsDecode() throws {
        let token = try Token(kind: .eid, hex: "a1b2c3d4e5f60718")
        for amplitude: Float in [1.0, 0.01, 0.0005] {
            let audio = try TestSignals.burst(token, sampleRate: 48_000, leadingSilence: 5000, amplitude: amplitude)
            XCTAssertEqual(try TestSignals.decode(audio, sampleRate: 48_000).map(\.token), [token], "amplitude \(amplitude)")
        }
    }
}
