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
}
