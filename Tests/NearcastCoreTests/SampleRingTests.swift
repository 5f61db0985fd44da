import XCTest
@testable import NearcastCore

final class SampleRingTests: XCTestCase {
    func testWritesAndReadsWrapAroundInOrder() {
        let ring = SampleRing(capacity: 5)
        var next: Float = 0
        var expected: Float = 0
        for step in 1...20 {
            let batch = (0..<(step % 4 + 1)).map { _ -> Float in next += 1; return next }
            let written = batch.withUnsafeBufferPointer { ring.write($0) }
            next -= Float(batch.count - written)          // what did not fit is offered again
            XCTAssertLessThanOrEqual(ring.count, 5)
            var out = [Float](repeating: -1, count: step % 3 + 1)
            let read = out.withUnsafeMutableBufferPointer { ring.read(into: $0) }
            for value in out[0..<read] {
                expected += 1
                XCTAssertEqual(value, expected)
            }
        }
        XCTAssertEqual(ring.count, Int(next - expected))
    }

    func testRegionsNeverPassTheEndAndRespectSpace() {
        let ring = SampleRing(capacity: 8)
        XCTAssertEqual(ring.writeSilence(6), 6)
        XCTAssertEqual(ring.withReadableRegion(maximum: 4) { $0.count }, 4)
        // 2 waiting at slots 4-5; free space 6 but only slots 6-7 are contiguous.
        XCTAssertEqual(ring.withWritableRegion { $0.count }, 2)
        XCTAssertEqual(ring.withWritableRegion { $0.count }, 4)
        XCTAssertEqual(ring.freeSpace, 0)
        XCTAssertEqual(ring.withWritableRegion { $0.count }, 0)
        XCTAssertEqual(ring.writeSilence(3), 0, "a full ring takes nothing")
        XCTAssertEqual(ring.withReadableRegion { $0.count }, 4, "slots 4-7, then the region ends")
        XCTAssertEqual(ring.count, 4)
    }

    func testEncoderToDecoderThroughRings() throws {
        let token = try Token(kind: .eid, hex: "8877665544332211")
        let encoder = try BurstEncoder(sampleRate: 44_100)
        let decoder = try BurstDecoder(sampleRate: 44_100)
        let ring = SampleRing(capacity: 3 * 441)
        var found: [DecodedBurst] = []
        ring.writeSilence(1000)
        decoder.push(from: ring) { found.append($0) }
        encoder.start(token)
        while !encoder.isFinished {
            XCTAssertGreaterThan(encoder.render(into: ring, maximum: 700), 0)
            decoder.push(from: ring) { found.append($0) }
            XCTAssertTrue(ring.isEmpty)
        }
        decoder.finish { found.append($0) }
        XCTAssertEqual(found.map(\.token), [token])
        XCTAssertEqual(found.first?.startSample ?? -1, 1000, accuracy: 44)
    }
}
