import NearcastCore
import XCTest

/// The streaming encoder and decoder allocate nothing after start-up.
final class ModemAllocationTests: XCTestCase {
    func testTheCounterSeesAllocations() throws {
        var sink: [Int] = []
        let counted = AllocationCounter.allocations {
            for i in 0..<10 { sink = Array(repeating: i, count: 100 + i) }
        }
        XCTAssertGreaterThanOrEqual(counted, 10, "the counter must see array allocations")
        XCTAssertEqual(sink.count, 109)
    }

    func testStreamingEncoderAndDecoderAllocateNothingOverMinutesOfAudio() throws {
        XCTAssertTrue(AllocationCounter.isActive, "malloc-interposer must replace malloc in the test process")
        let rate = 48_000
        let encoder = try BurstEncoder(sampleRate: rate)
        let decoder = try BurstDecoder(sampleRate: rate)
        let token = try Token(kind: .eid, hex: "0102030405060708")
        var period = [Float](repeating: 0, count: 1024)
        var found = 0
        var noise: UInt64 = 12345
        // Warm-up: one burst through both, so lazily built state exists before counting.
        encoder.start(token)
        for _ in 0..<60 {
            period.withUnsafeMutableBufferPointer { buffer in
                for i in buffer.indices { buffer[i] = 0 }
                encoder.render(into: buffer)
            }
            period.withUnsafeBufferPointer { decoder.push($0) { _ in found += 1 } }
        }
        // Three minutes of audio: a burst every second, with a little noise, in 1024-frame periods.
        let periods = 3 * 60 * rate / 1024
        let allocations = AllocationCounter.allocations {
            for index in 0..<periods {
                if index % 47 == 0 { encoder.start(token) }
                period.withUnsafeMutableBufferPointer { buffer in
                    for i in buffer.indices {
                        noise = noise &* 6364136223846793005 &+ 1442695040888963407
                        buffer[i] = Float(Int32(truncatingIfNeeded: noise >> 32)) / Float(Int32.max) * 0.01
                    }
                    let rendered = encoder.render(into: buffer)
                    _ = rendered
                }
                period.withUnsafeBufferPointer { decoder.push($0) { _ in found += 1 } }
            }
        }
        XCTAssertEqual(allocations, 0, "heap allocations on the modem's thread")
        XCTAssertGreaterThan(found, 150, "the bursts were decoded while counting")
    }

    func testEncoderAndDecoderThroughSharedRingsAllocateNothing() throws {
        let rate = 44_100
        let encoder = try BurstEncoder(sampleRate: rate)
        let decoder = try BurstDecoder(sampleRate: rate)
        let ring = SampleRing(capacity: 4 * 441)
        let token = try Token(kind: .direct, hex: "0a0b0c0d")
        var found = 0
        var noise: UInt64 = 99
        func period() {
            ring.withWritableRegion(maximum: 441) { region in
                for i in region.indices {
                    noise = noise &* 6364136223846793005 &+ 1442695040888963407
                    region[i] = Float(Int32(truncatingIfNeeded: noise >> 32)) / Float(Int32.max) * 0.01
                }
                if !encoder.isFinished { _ = encoder.render(into: region) }
                return region.count
            }
            decoder.push(from: ring) { _ in found += 1 }
        }
        encoder.start(token)
        for _ in 0..<100 { period() }                  // warm-up: one burst
        let allocations = AllocationCounter.allocations {
            for index in 0..<(60 * 100) {              // one minute in 10 ms periods
                if index % 150 == 0 { encoder.start(token) }
                period()
            }
        }
        XCTAssertEqual(allocations, 0, "heap allocations on the modem's thread")
        XCTAssertGreaterThan(found, 35, "the bursts were decoded while counting")
    }

    /// At 27 dB-Hz some first decodes fail, so the slow paths run too: other pairs of sync peaks
    /// and the coherent second pass. They must not allocate either.
    func testDecoderAllocatesNothingWhenFirstDecodesFail() throws {
        XCTAssertTrue(AllocationCounter.isActive, "malloc-interposer must replace malloc in the test process")
        let rate = 48_000
        let encoder = try BurstEncoder(sampleRate: rate)
        let decoder = try BurstDecoder(sampleRate: rate)
        var generator = SplitMix64(seed: 2718)
        // The noise for 27 dB-Hz against the burst's own mean power: σ² = P·(fs/2)/10^(C/N0/10).
        encoder.start(try Token(kind: .eid, hex: "0102030405060708"))
        var burst = [Float](repeating: 0, count: encoder.rate.burstSamples)
        burst.withUnsafeMutableBufferPointer { _ = encoder.render(into: $0) }
        let power = burst.reduce(0) { $0 + Double($1) * Double($1) } / Double(burst.count)
        let sigma = (power * Double(rate / 2) / pow(10, 2.7)).squareRoot()
        var period = [Float](repeating: 0, count: 1024)
        var found = 0
        func fill(startingBurstAt index: Int) {
            if index % 30 == 0 {
                encoder.start(Token(kind: .direct, packed: generator.next(), count: 8)!)
            }
            period.withUnsafeMutableBufferPointer { buffer in
                // render(into:) writes over the buffer: the noise is added after it.
                for i in buffer.indices { buffer[i] = 0 }
                _ = encoder.render(into: buffer)
                for i in buffer.indices {
                    // The sum of four uniforms on [-1, 1] (variance 4/3) is near enough Gaussian.
                    var sum = 0.0
                    for _ in 0..<4 { sum += Double(generator.next() >> 11) * 0x1p-52 - 1 }
                    buffer[i] += Float(sigma * sum * (3.0 / 4).squareRoot())
                }
            }
            period.withUnsafeBufferPointer { decoder.push($0) { _ in found += 1 } }
        }
        for index in 0..<60 { fill(startingBurstAt: index) }      // warm-up
        let (pairsBefore, retriesBefore, foundBefore) = (decoder.alternativePairsMeasured, decoder.coherentRetries, found)
        let allocations = AllocationCounter.allocations {
            for index in 0..<(2 * 60 * rate / 1024) { fill(startingBurstAt: index) }
        }
        XCTAssertEqual(allocations, 0, "heap allocations on the modem's thread")
        // The slow paths ran inside the counted block.
        XCTAssertGreaterThan(decoder.alternativePairsMeasured - pairsBefore, 0, "other sync pairs were measured")
        XCTAssertGreaterThan(decoder.coherentRetries - retriesBefore, 0, "coherent second passes were made")
        XCTAssertGreaterThan(found - foundBefore, 150, "the bursts were decoded while counting")
    }
}
