import XCTest
@testable import NearcastCore

/// The two bands: each round-trips, each decoder hears only its own band, a decoder of both
/// hears both and says which, and the encoder of both alternates.
final class ModemBandTests: XCTestCase {
    func testTheLowBandRoundTripsAtBothRatesAndInModerateNoise() throws {
        var generator = SeededGenerator(seed: 31)
        for rate in [48_000, 44_100] {
            let power = try TestSignals.burstPower(sampleRate: rate, band: .low)
            for _ in 0..<8 {
                let token = TestSignals.randomToken(using: &generator)
                let lead = Int.random(in: 0..<rate, using: &generator)
                var audio = try TestSignals.burst(token, sampleRate: rate, leadingSilence: lead, band: .low)
                TestSignals.addNoise(&audio, cn0: 36, sampleRate: rate, burstPower: power, generator: &generator)
                let found = try TestSignals.decode(audio, sampleRate: rate, bands: [.low])
                XCTAssertEqual(found.map(\.token), [token], "rate \(rate), lead \(lead)")
                XCTAssertEqual(found.map(\.band), [.low])
                if let burst = found.first { XCTAssertLessThan(abs(burst.startSample - lead), rate / 1000) }
            }
        }
    }

    func testEachBandsDecoderHearsOnlyItsOwnBand() throws {
        let token = try Token(kind: .direct, hex: "c0ffee")
        for band in ModemBand.allCases {
            let audio = try TestSignals.burst(token, sampleRate: 48_000, leadingSilence: 4_000, amplitude: 1.0, band: band)
            for listener in ModemBand.allCases {
                let found = try TestSignals.decode(audio, sampleRate: 48_000, bands: [listener])
                XCTAssertEqual(found.map(\.token), band == listener ? [token] : [],
                               "a \(band.name)-band burst at full scale, decoder of the \(listener.name) band")
            }
        }
    }

    func testADecoderOfBothBandsHearsAMixAndSaysWhichBandEachCameIn() throws {
        // Alternating bands, as `--band both` sends them, plus one burst in each band at once.
        var generator = SeededGenerator(seed: 32)
        var audio: [Float] = []
        var sent: [(Token, ModemBand)] = []
        for index in 0..<6 {
            let token = TestSignals.randomToken(using: &generator)
            let band: ModemBand = index.isMultiple(of: 2) ? .high : .low
            sent.append((token, band))
            audio += try TestSignals.burst(token, sampleRate: 48_000, leadingSilence: 20_000, band: band)
        }
        let high = try Token(kind: .direct, hex: "0a0b"), low = try Token(kind: .direct, hex: "0c0d")
        let first = try TestSignals.burst(high, sampleRate: 48_000, leadingSilence: 10_000, band: .high)
        let second = try TestSignals.burst(low, sampleRate: 48_000, leadingSilence: 10_000, band: .low)
        audio += zip(first, second).map { 0.5 * ($0 + $1) }
        for chunk in [0, 480, 4_096] {
            let found = try TestSignals.decode(audio, sampleRate: 48_000, chunk: chunk, bands: [.high, .low])
            let expected = sent.map { "\($0.0.hex)@\($0.1.name)" } + ["0a0b@high", "0c0d@low"]
            XCTAssertEqual(Set(found.map { "\($0.token.hex)@\($0.band.name)" }), Set(expected), "chunk \(chunk)")
            XCTAssertEqual(found.count, expected.count, "chunk \(chunk): \(found)")
            XCTAssertEqual(found.prefix(6).map { "\($0.token.hex)@\($0.band.name)" }, Array(expected.prefix(6)), "in time order")
        }
    }

    func testTheLowBandsTonesAndChirpsLieInItsBand() throws {
        // The spectrum of a low-band burst: its energy between 15.0 and 16.5 kHz, none near 19 kHz.
        let token = try Token(kind: .direct, hex: "55aa")
        let audio = try TestSignals.burst(token, sampleRate: 48_000, leadingSilence: 0, trailingSilence: 0, band: .low)
        func power(atHz frequency: Double) -> Double {
            var re = 0.0, im = 0.0
            for (n, x) in audio.enumerated() {
                let angle = 2 * Double.pi * frequency * Double(n) / 48_000
                re += Double(x) * cos(angle)
                im -= Double(x) * sin(angle)
            }
            return (re * re + im * im) / Double(audio.count)
        }
        let inBand = stride(from: 15_100.0, through: 16_400, by: 100).map(power(atHz:)).reduce(0, +) / 14
        let outside = [14_000.0, 17_500, 18_700, 19_300, 19_900].map(power(atHz:)).reduce(0, +) / 5
        XCTAssertGreaterThan(10 * log10(inBand / outside), 40, "in-band against out-of-band power")
    }

    func testTheEncoderOfBothBandsAlternatesAndASelectionChangeTakesTheNextBurst() throws {
        let encoder = try MultiBandEncoder(sampleRate: 48_000, selection: .both)
        let token = try Token(kind: .direct, hex: "01")
        var bands: [ModemBand] = []
        var buffer = [Float](repeating: 0, count: 48_000)
        for _ in 0..<4 {
            encoder.start(token)
            bands.append(try XCTUnwrap(encoder.lastBand))
            buffer.withUnsafeMutableBufferPointer { _ = encoder.render(into: $0) }
            XCTAssertTrue(encoder.isFinished)
        }
        XCTAssertEqual(bands, [.high, .low, .high, .low])
        encoder.selection = .low
        encoder.start(token)
        XCTAssertEqual(encoder.lastBand, .low)
        encoder.selection = .high
        encoder.amplitude = 0.25
        encoder.start(token)
        var rendered = [Float](repeating: 0, count: encoder.rate.burstSamples)
        rendered.withUnsafeMutableBufferPointer { _ = encoder.render(into: $0) }
        XCTAssertEqual(rendered.map(abs).max() ?? 0, 0.25, accuracy: 1e-4, "the amplitude reaches the band's encoder")
        XCTAssertEqual(try TestSignals.decode(rendered + [Float](repeating: 0, count: 2_000), sampleRate: 48_000, bands: [.high, .low]).map(\.band), [.high])
    }

    func testSelectionsAndBandsHaveTheirNames() {
        XCTAssertEqual(BandSelection.allCases.map(\.name), ["high", "low", "both"])
        for selection in BandSelection.allCases { XCTAssertEqual(BandSelection(name: selection.name), selection) }
        XCTAssertNil(BandSelection(name: "HIGH"))
        XCTAssertEqual(BandSelection.both.bands, [.high, .low])
    }
}
