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

final class CodingTests: XCTestCase {
    func testCRC16MatchesTheCatalogueCheckValue() {
        // CRC-16/CCITT-FALSE of "123456789" is 0x29B1.
        var bits: UInt128 = 0
        for byte in "123456789".utf8 { bits = bits << 8 | UInt128(byte) }
        XCTAssertEqual(CRC16.checksum(bits: bits, count: 72), 0x29B1)
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
            // Flip 4 coded bits spread well apart: within the code's free distance (10).
            for k in 0..<4 { llrs[k * 40 + trial % 20] *= -1 }
            XCTAssertEqual(llrs.withUnsafeBufferPointer { viterbi.decode($0).bits }, bits, "4 errors, trial \(trial)")
        }
    }

    func testInterleaverIsAPermutationThatSpreadsNeighbours() {
        var seen = Set<Int>()
        for index in 0..<ModemProfile.codedBits {
            let (symbol, bit) = FrameCodec.position(ofCodedBit: index)
            seen.insert(symbol * ModemProfile.bitsPerSymbol + bit)
        }
        XCTAssertEqual(seen.count, ModemProfile.codedBits)
        for a in 0..<ModemProfile.codedBits {
            for b in (a + 1)..<min(a + 12, ModemProfile.codedBits) {
                XCTAssertNotEqual(FrameCodec.position(ofCodedBit: a).symbol, FrameCodec.position(ofCodedBit: b).symbol,
                                  "coded bits \(a) and \(b) share a symbol")
            }
        }
    }

    func testGrayMapping() {
        for value in UInt8(0)..<16 {
            XCTAssertEqual(FrameCodec.value(ofTone: FrameCodec.gray(value)), value)
            if value < 15 {
                XCTAssertEqual((FrameCodec.gray(value) ^ FrameCodec.gray(value + 1)).nonzeroBitCount, 1)
            }
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
        XCTAssertNil(FrameCodec.token(fromFrameBits: (header << 16 | UInt128(crc)) << 6))
    }

    func testProfileArithmetic() throws {
        XCTAssertEqual(ModemProfile.codedBits, 176)
        XCTAssertEqual(ModemProfile.symbolCount, 44)
        XCTAssertEqual(ModemProfile.lastToneHz, 20_000)
        let r48 = try ModemRate(sampleRate: 48_000)
        XCTAssertEqual(r48.burstSamples, 24_000)
        XCTAssertEqual(r48.basebandSymbolSamples, 30)
        let r44 = try ModemRate(sampleRate: 44_100)
        XCTAssertEqual(r44.burstSamples, 22_050)
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
