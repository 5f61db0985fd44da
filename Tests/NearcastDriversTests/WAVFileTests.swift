import NearcastCore
import XCTest
@testable import NearcastDrivers

final class WAVFileTests: XCTestCase {
    private func roundTrip(_ encoding: WAVFormat.Encoding) throws {
        let directory = TemporaryDirectory()
        let path = directory.file("t.wav")
        let samples: [Float] = (0..<10_000).map { Float(($0 % 200) - 100) / 128 }
        let writer = try WAVFileWriter(path: path, format: WAVFormat(encoding: encoding, sampleRate: 44_100), capacityFrames: 333)
        try samples.withUnsafeBufferPointer { try writer.write($0) }
        try writer.close()
        let reader = try WAVFileReader(path: path)
        XCTAssertEqual(reader.layout.format, WAVFormat(encoding: encoding, sampleRate: 44_100))
        XCTAssertEqual(reader.layout.frames, samples.count)
        var back = [Float](repeating: 0, count: 20_000)
        var total = 0
        while true {
            let n = try back.withUnsafeMutableBufferPointer { try reader.read(into: UnsafeMutableBufferPointer(rebasing: $0[total..<min(total + 999, $0.count)])) }
            if n == 0 { break }
            total += n
        }
        XCTAssertEqual(total, samples.count)
        for i in 0..<samples.count {
            XCTAssertEqual(back[i], samples[i], accuracy: encoding == .pcm16 ? 1.0 / 16_000 : 0)
        }
    }

    func testPCM16RoundTrip() throws { try roundTrip(.pcm16) }
    func testFloatRoundTrip() throws { try roundTrip(.float32) }

    func testStereoExtensibleFileReadsTheFirstChannel() throws {
        // WAVE_FORMAT_EXTENSIBLE, 2 channels of 16-bit PCM, an odd-sized LIST chunk before data.
        var bytes: [UInt8] = Array("RIFF".utf8) + [0, 0, 0, 0] + Array("WAVE".utf8)
        func u32(_ v: Int) -> [UInt8] { (0..<4).map { UInt8((v >> (8 * $0)) & 0xFF) } }
        func u16(_ v: Int) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8)] }
        bytes += Array("fmt ".utf8) + u32(40) + u16(0xFFFE) + u16(2) + u32(48_000) + u32(48_000 * 4) + u16(4) + u16(16)
        bytes += u16(22) + u16(16) + u32(3) + u16(1) + [0x00, 0x00, 0x00, 0x00, 0x10, 0x00, 0x80, 0x00, 0x00, 0xAA, 0x00, 0x38, 0x9B, 0x71]
        bytes += Array("LIST".utf8) + u32(3) + [1, 2, 3, 0]
        bytes += Array("data".utf8) + u32(8) + u16(1000) + u16(0xFFFF) + u16(0xF000) + u16(7)
        let directory = TemporaryDirectory()
        try FileSystem.writeAtomically(directory.file("s.wav"), bytes)
        let reader = try WAVFileReader(path: directory.file("s.wav"))
        XCTAssertEqual(reader.layout.format.channels, 2)
        XCTAssertEqual(reader.layout.frames, 2)
        var out = [Float](repeating: 9, count: 4)
        XCTAssertEqual(try out.withUnsafeMutableBufferPointer { try reader.read(into: $0) }, 2)
        XCTAssertEqual(out[0], 1000 / 32_768)
        XCTAssertEqual(out[1], Float(Int16(bitPattern: 0xF000)) / 32_768)
    }

    func testDataSizePastTheEndIsClampedToTheFile() throws {
        let format = WAVFormat(encoding: .pcm16, sampleRate: 48_000)
        var header = format.header(dataBytes: 1_000_000)
        header += [1, 0, 2, 0, 3]      // two whole frames and a stray byte
        let layout = try WAVFormat.parse(header, fileSize: header.count)
        XCTAssertEqual(layout.frames, 2)
    }

    func testBadFilesAreNamedInTheError() throws {
        let directory = TemporaryDirectory()
        let text = directory.file("notes.wav")
        try FileSystem.writeAtomically(text, Array("hello, this is not audio".utf8))
        XCTAssertThrowsError(try WAVFileReader(path: text)) {
            XCTAssertEqual("\($0)", "\(text): not a WAV file (no RIFF/WAVE header)")
        }
        XCTAssertThrowsError(try WAVFileReader(path: directory.file("missing.wav"))) {
            XCTAssertEqual("\($0)", "\(directory.file("missing.wav")): No such file or directory")
        }
        let eightBit = WAVFormat(encoding: .pcm16, sampleRate: 8000)
        var bytes = eightBit.header(dataBytes: 4)
        bytes[34] = 8   // bits per sample
        XCTAssertThrowsError(try WAVFormat.parse(bytes, fileSize: bytes.count)) {
            XCTAssertEqual($0 as? WAVError, .unsupportedEncoding(code: 1, bits: 8))
        }
    }
}
