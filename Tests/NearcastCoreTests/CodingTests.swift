import Glibc
import XCTest
@testable import NearcastCore

final class CoreMathTests: XCTestCase {
    func testElementaryFunctionsMatchTheCLibrary() {
        var x = -50.0
        while x < 50 {
            XCTAssertEqual(CoreMath.sin(x), Glibc.sin(x), accuracy: 1e-13, "sin \(x)")
            XCTAssertEqual(CoreMath.cos(x), Glibc.cos(x), accuracy: 1e-13, "cos \(x)")
            x += 0.0137
        }
        for value in [1e-300, 1e-5, 0.3, 1, 2.718281828, 10, 12345.678, 1e300] {
            XCTAssertEqual(CoreMath.log(value), Glibc.log(value), accuracy: 1e-13 * max(1, abs(Glibc.log(value))), "log \(value)")
        }
        for value in [-700.0, -20, -1, -1e-9, 0, 0.5, 1, 30, 700] {
            XCTAssertEqual(CoreMath.exp(value) / Glibc.exp(value), 1, accuracy: 1e-13, "exp \(value)")
        }
        XCTAssertEqual(CoreMath.exp(1000), .infinity)
        XCTAssertEqual(CoreMath.log(0), -.infinity)
        XCTAssertTrue(CoreMath.log(-1).isNaN)
    }

    func testLogBesselI0AgainstSeries() {
        for x in [0.0, 0.1, 1, 3.7, 3.8, 10, 50, 200] {
            // I0(x) = Σ (x²/4)^k / (k!)²; sum in log space for large x.
            var term = 1.0, sum = 1.0, k = 1.0
            while term > 1e-18 * sum && k < 2000 {
                term *= (x * x / 4) / (k * k)
                sum += term
                k += 1
            }
            XCTAssertEqual(CoreMath.logBesselI0(x), Glibc.log(sum), accuracy: 1e-5 * max(1, Glibc.log(sum)), "x = \(x)")
        }
    }
}

final class MixedRadixFFTTests: XCTestCase {
    func testMatchesADirectDFTAtTheModemsLengths() {
        var generator = SeededGenerator(seed: 30)
        for count in [1, 2, 7, 12, 180, 294, 720, 1176] {
            let fft = MixedRadixFFT(count: count)
            // Fewer inputs than points: the rest is zero padding, as the time-scale search uses.
            let given = max(1, count / 4 * 4 == count ? count / 4 : count)
            let re = (0..<given).map { _ in Float.random(in: -1...1, using: &generator) }
            let im = (0..<given).map { _ in Float.random(in: -1...1, using: &generator) }
            re.withUnsafeBufferPointer { r in im.withUnsafeBufferPointer { i in fft.transform(re: r, im: i) } }
            fft.withOutput { outRe, outIm in
                for k in 0..<count {
                    var sumRe = 0.0, sumIm = 0.0
                    for n in 0..<given {
                        let angle = -2 * Double.pi * Double(k * n % count) / Double(count)
                        sumRe += Double(re[n]) * cos(angle) - Double(im[n]) * sin(angle)
                        sumIm += Double(re[n]) * sin(angle) + Double(im[n]) * cos(angle)
                    }
                    XCTAssertEqual(Double(outRe[k]), sumRe, accuracy: 1e-3 * Double(given).squareRoot(), "\(count) points, bin \(k)")
                    XCTAssertEqual(Double(outIm[k]), sumIm, accuracy: 1e-3 * Double(given).squareRoot(), "\(count) points, bin \(k)")
                }
            }
        }
    }
}

final class CodingTests: XCTestCase {
    func testCRC16MatchesTheCatalogueCheckValues() {
        // "123456789": CRC-16/CCITT-FALSE (init 0xFFFF, format 1) is 0x29B1, CRC-16/AUG-CCITT
        // (init 0x1D0F, format 2) is 0xE5CC.
        var bits: UInt128 = 0
        for byte in "123456789".utf8 { bits = bits << 8 | UInt128(byte) }
        XCTAssertEqual(CRC16.checksum(bits: bits, count: 72, initial: 0xFFFF), 0x29B1)
        XCTAssertEqual(CRC16.checksum(bits: bits, count: 72), 0xE5CC)
    }

    func testAFrameWithTheFirstFormatsCRCIsRejected() throws {
        // The same header with the CRC format 1 used: the format marker makes it fail.
        let header = UInt128(1) << 64 | UInt128(0x0102_0304_0506_0708)
        let oldCRC = CRC16.checksum(bits: header, count: 66, initial: 0xFFFF)
        XCTAssertNil(FrameCodec.token(fromFrameBits: (header << 16 | UInt128(oldCRC)) << UInt128(ModemProfile.tailBits)))
        let newCRC = CRC16.checksum(bits: header, count: 66)
        XCTAssertNotNil(FrameCodec.token(fromFrameBits: (header << 16 | UInt128(newCRC)) << UInt128(ModemProfile.tailBits)))
    }

    func testViterbiDecodesCleanAndCorrectsErrors() {
        var generator = SeededGenerator(seed: 20)
        let steps = ModemProfile.encodedBits
        let viterbi = ViterbiDecoder(steps: steps)
        for trial in 0..<50 {
            // Random frame bits with a zero tail.
            var bits = UInt128(UInt64.random(in: 0...UInt64.max, using: &generator)) << 24
                | UInt128(UInt32.random(in: 0...UInt32.max, using: &generator))
            bits &= (UInt128(1) << UInt128(steps)) - 1
            bits &= ~((UInt128(1) << UInt128(ModemProfile.tailBits)) - 1)
            var llrs = [Float](repeating: 0, count: 2 * steps)
            var state = 0
            for step in 0..<steps {
                let bit = Int(truncatingIfNeeded: bits >> UInt128(steps - 1 - step)) & 1
                let out = ConvolutionalCode.step(state: state, bit: bit)
                state = out.next
                llrs[2 * step] = out.c0 == 1 ? 4 : -4
                llrs[2 * step + 1] = out.c1 == 1 ? 4 : -4
            }
            XCTAssertEqual(state, 0, "the tail returns the encoder to state 0")
            XCTAssertEqual(llrs.withUnsafeBufferPointer { viterbi.decode($0).bits }, bits, "clean, trial \(trial)")
            // Flip 4 coded bits spread well apart: within the code's free distance (12).
            for k in 0..<4 { llrs[k * 40 + trial % 20] *= -1 }
            XCTAssertEqual(llrs.withUnsafeBufferPointer { viterbi.decode($0).bits }, bits, "4 errors, trial \(trial)")
        }
    }

    func testInterleaverAndPuncturingMapEveryCodedBitToOneSlot() {
        XCTAssertEqual(Set(BurstPlan.slotCodedBit.map(Int.init)), Set(0..<ModemProfile.codedBits))
        XCTAssertEqual(BurstPlan.slotCodedBit.count, ModemProfile.codedBits)
        let punctured = (0..<ModemProfile.motherCodedBits).filter(FrameCodec.isPunctured)
        XCTAssertEqual(punctured, [22, 68, 112, 158])
        XCTAssertEqual(ModemProfile.motherCodedBits - punctured.count, ModemProfile.codedBits)
    }

    func testHoppingPlanNeverReusesASubbandInConsecutiveSymbols() {
        for symbol in 0..<ModemProfile.symbolCount {
            let here = Set((0..<ModemProfile.groupCount).map { BurstPlan.subband(symbol: symbol, group: $0) })
            XCTAssertEqual(here.count, ModemProfile.groupCount, "symbol \(symbol): a subband twice")
            XCTAssertTrue(here.allSatisfy { $0 < ModemProfile.subbandCount })
            if symbol > 0 {
                let before = Set((0..<ModemProfile.groupCount).map { BurstPlan.subband(symbol: symbol - 1, group: $0) })
                XCTAssertTrue(here.isDisjoint(with: before), "symbol \(symbol) reuses \(here.intersection(before))")
            }
        }
        // Every used bin is a grid bin below the three silent ones.
        XCTAssertEqual(BurstPlan.bin(subband: 21, tone: 3), ModemProfile.usedBinCount - 1)
    }

    func testGrayMapping() {
        for label in 0..<4 {
            XCTAssertEqual(BurstPlan.label(ofTone: BurstPlan.tone(ofLabel: label)), label)
        }
        // Neighbouring tones carry labels one bit apart.
        for tone in 0..<3 {
            XCTAssertEqual((BurstPlan.label(ofTone: tone) ^ BurstPlan.label(ofTone: tone + 1)).nonzeroBitCount, 1)
        }
    }

    func testEncodedTonesDecodeBackThroughTheViterbiDecoder() throws {
        // Hard decisions from the encoder's own tones, fed to the Viterbi decoder as the
        // demodulator would: the plan, puncturing and interleaver invert exactly.
        var generator = SeededGenerator(seed: 22)
        let viterbi = ViterbiDecoder(steps: ModemProfile.encodedBits)
        for _ in 0..<20 {
            let token = TestSignals.randomToken(using: &generator)
            var tones = [UInt8](repeating: 0, count: ModemProfile.symbolCount * ModemProfile.groupCount)
            tones.withUnsafeMutableBufferPointer { FrameCodec.encode(token, into: $0) }
            var mother = [Float](repeating: 0, count: ModemProfile.motherCodedBits)
            var positions: [Int] = []
            for position in 0..<ModemProfile.motherCodedBits where !FrameCodec.isPunctured(position) { positions.append(position) }
            for slot in 0..<ModemProfile.codedBits {
                let label = BurstPlan.label(ofTone: Int(tones[slot / 2]))
                let bit = (label >> (1 - slot % 2)) & 1
                mother[positions[Int(BurstPlan.slotCodedBit[slot])]] = bit == 1 ? 3 : -3
            }
            let bits = mother.withUnsafeBufferPointer { viterbi.decode($0).bits }
            XCTAssertEqual(FrameCodec.token(fromFrameBits: bits), token)
        }
    }

    func testFrameBitsRoundTripForEveryKindAndLength() throws {
        var generator = SeededGenerator(seed: 21)
        for _ in 0..<200 {
            let token = TestSignals.randomToken(using: &generator)
            XCTAssertEqual(FrameCodec.token(fromFrameBits: FrameCodec.frameBits(for: token)), token)
        }
        // Short direct tokens whose bytes look like padding survive too.
        for hex in ["80", "8000", "0080", "00", "000000000000", "80808080808080"] {
            let token = try Token(kind: .direct, hex: hex)
            XCTAssertEqual(FrameCodec.token(fromFrameBits: FrameCodec.frameBits(for: token)), token, hex)
        }
    }

    func testDamagedFrameBitsAreRejected() throws {
        let token = try Token(kind: .eid, hex: "0102030405060708")
        let bits = FrameCodec.frameBits(for: token)
        for position in 0..<ModemProfile.encodedBits {
            let damaged = bits ^ (UInt128(1) << UInt128(position))
            XCTAssertNil(FrameCodec.token(fromFrameBits: damaged), "bit \(position) flipped")
        }
        // The reserved kind 3 is rejected even with a valid CRC.
        let header = UInt128(3) << 64 | UInt128(0x0102_0304_0506_0708)
        let crc = CRC16.checksum(bits: header, count: 66)
        XCTAssertNil(FrameCodec.token(fromFrameBits: (header << 16 | UInt128(crc)) << UInt128(ModemProfile.tailBits)))
    }

    func testProfileArithmetic() throws {
        XCTAssertEqual(ModemProfile.codedBits, 176)
        XCTAssertEqual(ModemProfile.motherCodedBits, 180)
        XCTAssertEqual(ModemProfile.symbolCount, 11)
        XCTAssertEqual(ModemBand.high.lastToneHz, 20_000)
        XCTAssertEqual(ModemBand.low.lastToneHz, 16_500)
        XCTAssertEqual(ModemBand.high.chirpPairSpreadSeconds, -0.99, accuracy: 1e-9)
        XCTAssertEqual(ModemBand.low.chirpPairSpreadSeconds, -0.815, accuracy: 1e-9)
        for band in ModemBand.allCases {
            XCTAssertEqual(band.toneHz(bin: ModemProfile.centerBin), Double(band.basebandCenterHz), accuracy: 1e-9)
            // Bin k makes a whole number of cycles in a symbol.
            XCTAssertEqual(band.toneHz(bin: 7) * 0.06, Double(band.firstToneCyclesPerSymbol + 7), accuracy: 1e-9)
            // The chirps inside the grid, and the names round-trip.
            XCTAssertGreaterThan(band.chirpLowHz, band.firstToneHz)
            XCTAssertLessThan(band.chirpHighHz, band.lastToneHz)
            XCTAssertEqual(ModemBand(name: band.name), band)
        }
        XCTAssertNil(ModemBand(name: "middle"))
        // The bands do not overlap: 2 kHz between the low band's top and the high band's bottom.
        XCTAssertEqual(ModemBand.high.firstToneHz - ModemBand.low.lastToneHz, 2_000)
        let r48 = try ModemRate(sampleRate: 48_000)
        XCTAssertEqual(r48.burstSamples, 34_560)
        XCTAssertEqual(r48.basebandSymbolSamples, 180)
        XCTAssertEqual(r48.burstSeconds, 0.72, accuracy: 1e-12)
        let r44 = try ModemRate(sampleRate: 44_100)
        XCTAssertEqual(r44.burstSamples, 31_752)
        XCTAssertEqual(r44.basebandSymbolSamples * r44.decimation, r44.symbolSamples)
        XCTAssertThrowsError(try ModemRate(sampleRate: 16_000))
    }
}

final class TokenTests: XCTestCase {
    func testHexParsingAndFormatting() throws {
        XCTAssertEqual(try Token(kind: .direct, hex: "0xA1b2").hex, "a1b2")
        XCTAssertEqual(try Token(kind: .direct, hex: "0102030405060708").bytes, [1, 2, 3, 4, 5, 6, 7, 8])
        XCTAssertThrowsError(try Token(kind: .direct, hex: "abc")) { XCTAssertEqual($0 as? TokenError, .invalidHex("abc")) }
        XCTAssertThrowsError(try Token(kind: .direct, hex: "zz"))
        XCTAssertThrowsError(try Token(kind: .direct, hex: ""))
        XCTAssertThrowsError(try Token(kind: .direct, hex: "010203040506070809"))
        XCTAssertThrowsError(try Token(kind: .eid, hex: "0102")) {
            XCTAssertEqual($0 as? TokenError, .wrongLength(kind: .eid, count: 2))
        }
    }

    func testEpochArithmetic() {
        XCTAssertEqual(EphemeralIdentifier.epochStart(time: 1_258_098_495, exponent: 9), 1_258_098_176)
        XCTAssertEqual(EphemeralIdentifier.nextEpoch(time: 1000, exponent: 4), 1008)
        XCTAssertNil(EphemeralIdentifier.nextEpoch(time: UInt32.max, exponent: 15))
        XCTAssertEqual(EphemeralIdentifier.epochStart(time: 77, exponent: 0), 77)
    }

    func testBeaconClock() {
        let clock = BeaconClock(startingAt: 100)
        XCTAssertEqual(clock.time(elapsedSeconds: 0), 100)
        XCTAssertEqual(clock.time(elapsedSeconds: 12.9), 112)
        XCTAssertEqual(BeaconClock(startingAt: UInt32.max - 1).time(elapsedSeconds: 10), UInt32.max)
    }

    func testBeaconClockReservationStaysAheadAndRetriesFailedWrites() {
        var reservation = BeaconClockReservation(saved: 1_000, leaseSeconds: 600)
        XCTAssertEqual(reservation.clock.start, 1_000)
        XCTAssertEqual(reservation.valueToSave(at: 1_000), 1_600, "reserve at once, before broadcasting")
        reservation.saved(1_600)
        XCTAssertNil(reservation.valueToSave(at: 1_299), "more than half the lease left")
        XCTAssertEqual(reservation.valueToSave(at: 1_300), 1_900)
        reservation.saveFailed(at: 1_300)
        XCTAssertNil(reservation.valueToSave(at: 1_359), "a failed write waits a minute")
        XCTAssertEqual(reservation.valueToSave(at: 1_360), 1_960)
        XCTAssertFalse(reservation.isUnprotected(at: 1_600))
        XCTAssertTrue(reservation.isUnprotected(at: 1_601), "past the reservation a power cut could go back")
        XCTAssertEqual(BeaconClockReservation(saved: UInt32.max - 10).valueToSave(at: UInt32.max - 10), UInt32.max)
    }
}

/// Base64 as the hub's JSON carries it.
final class Base64Tests: XCTestCase {
    func testTheRFC4648VectorsRoundTrip() {
        let vectors = ["": "", "f": "Zg==", "fo": "Zm8=", "foo": "Zm9v", "foob": "Zm9vYg==", "fooba": "Zm9vYmE=", "foobar": "Zm9vYmFy"]
        for (plain, encoded) in vectors {
            XCTAssertEqual(Base64.encode(Array(plain.utf8)), encoded)
            XCTAssertEqual(Base64.decode(encoded), Array(plain.utf8))
        }
        let bytes: [UInt8] = [0xfb, 0xff, 0xbf]
        XCTAssertEqual(Base64.encode(bytes), "+/+/")
        XCTAssertEqual(Base64.decode("-_-_"), bytes, "the URL-safe alphabet")
        XCTAssertEqual(Base64.decode("Zm8"), Array("fo".utf8), "missing padding")
        for bad in ["Z", "Zm9v!", "Zg=a", "Zg===", "Z m9", "=", "==", "TWFu=", "TWFu==", "TR==", "Zh=="] {
            XCTAssertNil(Base64.decode(bad), bad)
        }
    }
}
