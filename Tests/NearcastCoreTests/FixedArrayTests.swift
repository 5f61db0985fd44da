import NearcastCore
import XCTest

/// `FixedArray` stands in for `InlineArray` on Swift 6.0: its elements must sit inline, one
/// stride apart, and its buffer functions must hand a typed error back as that type.
final class FixedArrayTests: XCTestCase {
    private enum Refusal: Error, Equatable { case refused(Int) }

    func testCapacityIsTheTuplesElementCountAndTheStorageIsInline() {
        XCTAssertEqual(FixedArray<Tuple4<UInt8>, UInt8>.capacity, 4)
        XCTAssertEqual(FixedArray<Tuple256<UInt8>, UInt8>.capacity, 256)
        XCTAssertEqual(FixedArray<Bytes8192, UInt8>.capacity, 8192)
        XCTAssertEqual(MemoryLayout<FixedArray<Bytes8192, UInt8>>.size, 8192)
        XCTAssertEqual(FixedArray<Tuple32<Int>, Int>.capacity, 32)
        // Inline: the value is exactly its elements, no pointer to a heap buffer.
        XCTAssertEqual(MemoryLayout<FixedArray<Tuple256<UInt8>, UInt8>>.size, 256)
        XCTAssertEqual(MemoryLayout<FixedArray<Tuple8<Int>, Int>>.size, 8 * MemoryLayout<Int>.stride)
    }

    func testElementsAreSetReadAndCopiedAsValues() {
        var bytes = FixedArray<Tuple16<UInt8>, UInt8>(repeating: 7)
        XCTAssertEqual((0..<16).map { bytes[$0] }, Array(repeating: 7, count: 16))
        for index in bytes.indices { bytes[index] = UInt8(index * 3) }
        let copy = bytes
        bytes[5] = 0xFF
        XCTAssertEqual(copy[5], 15, "a copy is a value, not a shared buffer")
        XCTAssertEqual(bytes[5], 0xFF)
        XCTAssertEqual(bytes[15], 45)
    }

    func testBytesStoredAsWordsAreAddressedOneByOne() {
        var bytes = FixedArray<Bytes4096, UInt8>(repeating: 0xA5)
        XCTAssertEqual(bytes[0], 0xA5)
        XCTAssertEqual(bytes[4095], 0xA5)
        for index in bytes.indices { bytes[index] = UInt8(truncatingIfNeeded: index &* 7) }
        XCTAssertEqual((0..<10).map { bytes[$0] }, [0, 7, 14, 21, 28, 35, 42, 49, 56, 63])
        bytes.withUnsafeBytes { raw in
            XCTAssertEqual(raw.count, 4096)
            XCTAssertEqual(raw[4095], UInt8(truncatingIfNeeded: 4095 &* 7))
        }
        bytes.withUnsafeMutableBufferPointer { $0[9] = 0 }
        XCTAssertEqual(bytes[9], 0)
        XCTAssertEqual(bytes[10], 70)
    }

    func testAnEnumWithPayloadsIsStoredAtItsStride() {
        enum Shape: Equatable { case none, pulse(Int8), span(Int64, Bool) }
        var shapes = FixedArray<Tuple8<Shape>, Shape>(repeating: .none)
        shapes[0] = .pulse(-3)
        shapes[7] = .span(1 << 40, true)
        XCTAssertEqual(shapes[0], .pulse(-3))
        XCTAssertEqual(shapes[1], .none)
        XCTAssertEqual(shapes[7], .span(1 << 40, true))
        shapes.withUnsafeBufferPointer { buffer in
            XCTAssertEqual(buffer.count, 8)
            XCTAssertEqual(buffer[7], .span(1 << 40, true))
        }
    }

    func testBuffersAreTheElementsInOrder() {
        var bytes = FixedArray<Tuple8<UInt8>, UInt8>(repeating: 0)
        bytes.withUnsafeMutableBufferPointer { buffer in
            for index in buffer.indices { buffer[index] = UInt8(index + 1) }
        }
        XCTAssertEqual(bytes.withUnsafeBytes { Array($0) }, [1, 2, 3, 4, 5, 6, 7, 8])
    }

    func testTypedErrorsComeBackAsTheirType() throws {
        var bytes = FixedArray<Tuple4<UInt8>, UInt8>(repeating: 1)
        do throws(Refusal) {
            try bytes.withUnsafeMutableBufferPointer { (buffer) throws(Refusal) -> Void in
                throw .refused(Int(buffer[0]))
            }
            XCTFail("no error")
        } catch {
            XCTAssertEqual(error, .refused(1))   // `error` is a Refusal, not `any Error`
        }
        let array = [9, 8, 7]
        do throws(Refusal) {
            _ = try array.withBuffer { (buffer) throws(Refusal) -> Int in throw .refused(buffer[2]) }
            XCTFail("no error")
        } catch {
            XCTAssertEqual(error, .refused(7))
        }
        var mutable = [UInt8](repeating: 0, count: 3)
        let sum = try mutable.withMutableBuffer { (buffer) throws(Refusal) -> Int in
            buffer[1] = 5
            return buffer.reduce(0) { $0 + Int($1) }
        }
        XCTAssertEqual(sum, 5)
        XCTAssertEqual(mutable, [0, 5, 0])
        XCTAssertEqual(try mutable.withBytes { (raw) throws(Refusal) -> Int in raw.count }, 3)
    }
}
