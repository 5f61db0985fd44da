@testable import NearcastDrivers
import XCTest

/// The two sample conversions of the ALSA threads (`ALSAPeriodBuffers`).
final class ALSAPeriodBuffersTests: XCTestCase {
    func testCapturedFramesBecomeFloatsWithFullScaleAtMinusOne() {
        let buffers = ALSAPeriodBuffers(frames: 4)
        for (index, frame) in [Int16.min, -16_384, 0, Int16.max].enumerated() { buffers.frames[index] = frame }
        buffers.framesToFloats(3)
        XCTAssertEqual(Array(buffers.floats), [-1, -0.5, 0, 0])   // the fourth was not converted
    }

    func testPlayedFloatsAreClippedRoundedAndPaddedWithSilence() {
        let buffers = ALSAPeriodBuffers(frames: 6)
        for index in 0..<6 { buffers.frames[index] = 99 }
        for (index, value) in [Float(2), -3, 0.5, -0.25].enumerated() { buffers.floats[index] = value }
        buffers.floatsToFrames(4, paddedTo: 5)
        XCTAssertEqual(Array(UnsafeBufferPointer(start: buffers.frames, count: 6)), [32_767, -32_767, 16_384, -8_192, 0, 99])
    }

    /// Stopping: fewer frames than were waiting are played, and nothing is padded.
    func testAShorterTotalPadsNothing() {
        let buffers = ALSAPeriodBuffers(frames: 3)
        for index in 0..<3 { buffers.frames[index] = 7 }
        buffers.floats[0] = 1
        buffers.floatsToFrames(1, paddedTo: 0)
        XCTAssertEqual(Array(UnsafeBufferPointer(start: buffers.frames, count: 3)), [32_767, 7, 7])
    }
}
