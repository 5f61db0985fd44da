import XCTest

/// `nearcast decode` on a committed 44.1 kHz file, the way a phone app's recording would reach
/// it. The file is a burst that went through the simulator's "walking-44k" channel (a 0.6 s
/// room, +3103 ppm of Doppler, a microphone rolling off above 19 kHz, pink noise), saved as
/// 16-bit PCM (burst format 2): made with
/// `nearcast encode --payload c0ffee0ddba11a5e --kind eid --rate 44100 --float --out b.wav`,
/// `nearcast bench channel --condition walking-44k --seed 7 b.wav r.wav`, then scaled to a 0.5 peak in 16 bits.
/// (There is no microphone on the build machine; this is the closest honest stand-in.)
final class RecordedFileEndToEndTests: XCTestCase {
    func testDecodesA44kHzRecordingWithDopplerAndEchoes() throws {
        let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("Fixtures/walking-44k-3103ppm.wav").path
        let tokens = try NearcastProcess.decode(fixture)
        XCTAssertEqual(tokens.count, 1)
        XCTAssertEqual(tokens.first?["payload"] as? String, "c0ffee0ddba11a5e")
        XCTAssertEqual(tokens.first?["kind"] as? String, "eid")
        XCTAssertEqual(tokens.first?["time_scale_ppm"] as? Double ?? 0, 3103, accuracy: 300)
        // The burst was placed after 0.5 s of silence, played 0.31% fast: it starts at 0.4985 s.
        XCTAssertEqual(tokens.first?["offset_s"] as? Double ?? 0, 0.5 / 1.003103, accuracy: 0.002)
    }
}
