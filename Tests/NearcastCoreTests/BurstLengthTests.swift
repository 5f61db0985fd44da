@testable import NearcastCore
import XCTest

/// The bench's shorter bursts: their derived tables are sound, and a burst of each length
/// round-trips; format 2's own tables are untouched.
final class BurstLengthTests: XCTestCase {
    func testOnlySixToElevenSymbolsAreLengths() {
        XCTAssertNil(BurstLength(symbols: 5))
        XCTAssertNil(BurstLength(symbols: 12))
        XCTAssertEqual(BurstLength(symbols: 11), .standard)
    }

    func testEachLengthPuncturesTheRightCountAndInterleavesAPermutation() throws {
        for symbols in 6...11 {
            let length = try XCTUnwrap(BurstLength(symbols: symbols))
            let punctured = (0..<ModemProfile.motherCodedBits).filter(length.isPunctured)
            XCTAssertEqual(punctured.count, ModemProfile.motherCodedBits - 16 * symbols, "\(symbols) symbols")
            XCTAssertEqual(Set((0..<length.codedBits).map(length.codedBit(ofSlot:))).count, length.codedBits, "\(symbols) symbols")
        }
        // Format 2's tables, as research/modem-lab/tables_T60G8.txt has them.
        XCTAssertEqual((0..<180).filter(BurstLength.standard.isPunctured), [22, 68, 112, 158])
        XCTAssertEqual((0..<176).map(BurstLength.standard.codedBit(ofSlot:)), BurstPlan.slotCodedBit.map(Int.init))
    }

    func testABurstOfEachLengthRoundTripsInNoiseAndTakesItsAirtime() throws {
        var generator = SeededGenerator(seed: 5)
        for symbols in 6...11 {
            let length = try XCTUnwrap(BurstLength(symbols: symbols))
            let token = TestSignals.randomToken(using: &generator)
            let encoder = try BurstEncoder(sampleRate: 48_000, length: length)
            XCTAssertEqual(encoder.rate.burstSeconds, 0.06 + 0.06 * Double(symbols), accuracy: 1e-9)
            encoder.start(token)
            var audio = [Float](repeating: 0, count: 12_000 + encoder.rate.burstSamples + 12_000)
            audio.withUnsafeMutableBufferPointer { _ = encoder.render(into: UnsafeMutableBufferPointer(rebasing: $0[12_000...])) }
            TestSignals.addNoise(&audio, cn0: 40, sampleRate: 48_000, burstPower: try TestSignals.burstPower(sampleRate: 48_000),
                                 generator: &generator)
            var configuration = BurstDecoder.Configuration()
            configuration.length = length
            let decoder = try BurstDecoder(sampleRate: 48_000, configuration: configuration)
            var found: [Token] = []
            audio.withUnsafeBufferPointer { decoder.push($0) { found.append($0.token) } }
            decoder.finish { found.append($0.token) }
            XCTAssertEqual(found, [token], "\(symbols) symbols")
        }
    }
}
