import Glibc
import NearcastCore
import XCTest
@testable import NearcastDrivers

/// The real libasound, with a project-local configuration whose PCM is the `file` plugin over a
/// `null` slave: what Nearcast plays lands in a WAV file, which the modem must decode.
final class ALSAAudioOutputTests: XCTestCase {
    /// Writes an ALSA configuration defining `nearcast_file` (a WAV file at `path`) and points
    /// libasound at it. ALSA reads its configuration at the first open in the process and
    /// re-reads it when ALSA_CONFIG_PATH's files change, so each test writes its own.
    private func useFilePlugin(writingTo path: String, in directory: TemporaryDirectory) throws {
        let config = """
            pcm.nearcast_file {
                type file
                slave { pcm { type null } }
                file "\(path)"
                format "wav"
            }
            """
        let configPath = directory.file("asound.conf")
        try FileSystem.writeAtomically(configPath, Array(config.utf8))
        setenv("ALSA_CONFIG_PATH", configPath, 1)
    }

    func testPlaybackThroughTheFilePluginDecodesToThePayload() throws {
        let directory = TemporaryDirectory()
        let wav = directory.file("played.wav")
        try useFilePlugin(writingTo: wav, in: directory)

        let output = try ALSAAudioOutput(device: "nearcast_file", sampleRate: 48_000, periodFrames: 960)
        let token = try Token(kind: .direct, hex: "feedfacecafef00d")
        let encoder = try BurstEncoder(sampleRate: 48_000)
        encoder.start(token)
        var period = [Float](repeating: 0, count: output.periodFrames)
        var written = 0
        // 0.2 s of silence, the burst, 0.2 s of silence, in periods as the daemon writes them.
        while written < 48_000 {
            let count = period.withUnsafeMutableBufferPointer { buffer -> Int in
                for i in buffer.indices { buffer[i] = 0 }
                if written >= 9_600 { encoder.render(into: buffer) }
                return buffer.count
            }
            try period.withUnsafeBufferPointer { try output.write($0) }
            written += count
        }
        try output.drain()

        let reader = try WAVFileReader(path: wav)
        XCTAssertEqual(reader.layout.format.sampleRate, 48_000)
        XCTAssertEqual(reader.layout.format.encoding, .pcm16)
        var samples = [Float](repeating: 0, count: reader.layout.frames)
        let got = try samples.withUnsafeMutableBufferPointer { try reader.read(into: $0) }
        XCTAssertGreaterThanOrEqual(got, 40_000, "the file plugin wrote what was played")
        let decoder = try BurstDecoder(sampleRate: 48_000)
        var found: [DecodedBurst] = []
        samples.withUnsafeBufferPointer { decoder.push(UnsafeBufferPointer(rebasing: $0[0..<got])) { found.append($0) } }
        decoder.finish { found.append($0) }
        XCTAssertEqual(found.map(\.token), [token])
        XCTAssertEqual(found.first.map { Double($0.startSample) / 48_000 } ?? 0, 0.2, accuracy: 0.002)
    }

    func testUnknownDeviceIsReportedAsMissing() throws {
        let directory = TemporaryDirectory()
        try useFilePlugin(writingTo: directory.file("unused.wav"), in: directory)
        XCTAssertThrowsError(try ALSAAudioOutput(device: "hw:CARD=NoSuchCard,DEV=0", sampleRate: 48_000, periodFrames: 960)) { error in
            guard case .missing(let device, _)? = error as? AudioDeviceError else {
                return XCTFail("expected .missing, got \(error)")
            }
            XCTAssertEqual(device, "hw:CARD=NoSuchCard,DEV=0")
        }
    }
}
