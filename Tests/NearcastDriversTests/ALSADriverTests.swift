import Glibc
import NearcastCore
import XCTest
@testable import NearcastDrivers

/// The real libasound, with a test-local configuration whose PCMs are the `file` plugin over a
/// `null` slave: what Nearcast plays lands in a WAV file, and capture reads a raw file. ALSA
/// reads its configuration at the first open in a process and again whenever the files named
/// by ALSA_CONFIG_PATH change, which is how a device "appears" in the recovery test.
final class ALSADriverTests: XCTestCase {
    private let rate = 48_000
    private let period = 960

    /// Points libasound at a configuration holding `definitions`.
    private func useALSAConfiguration(_ definitions: String, in directory: TemporaryDirectory) throws {
        let path = directory.file("asound.conf")
        try FileSystem.writeAtomically(path, Array(definitions.utf8))
        setenv("ALSA_CONFIG_PATH", path, 1)
    }

    private func filePlayback(named name: String, writingTo wav: String) -> String {
        """
        pcm.\(name) {
            type file
            slave { pcm { type null } }
            file "\(wav)"
            format "wav"
        }

        """
    }

    /// Renders `seconds` of audio with `token`'s burst starting at 0.2 s, in periods, into `output`.
    private func play(_ token: Token, seconds: Double, into output: AudioOutput) throws {
        let encoder = try BurstEncoder(sampleRate: rate)
        encoder.start(token)
        var buffer = [Float](repeating: 0, count: period)
        var written = 0
        while written < Int(seconds * Double(rate)) {
            buffer.withUnsafeMutableBufferPointer { span in
                for i in span.indices { span[i] = 0 }
                if written >= rate / 5 { encoder.render(into: span) }
            }
            try buffer.withUnsafeBufferPointer { try output.write($0) }
            written += period
        }
    }

    private func decodeWAV(_ path: String) throws -> [DecodedBurst] {
        let reader = try WAVFileReader(path: path)
        XCTAssertEqual(reader.layout.format.sampleRate, rate)
        XCTAssertEqual(reader.layout.format.encoding, .pcm16)
        var samples = [Float](repeating: 0, count: reader.layout.frames)
        let got = try samples.withUnsafeMutableBufferPointer { try reader.read(into: $0) }
        let decoder = try BurstDecoder(sampleRate: rate)
        var found: [DecodedBurst] = []
        samples.withUnsafeBufferPointer { decoder.push(UnsafeBufferPointer(rebasing: $0[0..<got])) { found.append($0) } }
        decoder.finish { found.append($0) }
        return found
    }

    /// Polls `condition` every 50 ms for up to `seconds`.
    private func eventually(within seconds: Double, _ condition: () -> Bool) -> Bool {
        let deadline = MonotonicClock.seconds() + seconds
        while MonotonicClock.seconds() < deadline {
            if condition() { return true }
            usleep(50_000)
        }
        return condition()
    }

    func testPlaybackThreadPlaysTheRingAndDecodesToThePayload() throws {
        let directory = TemporaryDirectory()
        let wav = directory.file("played.wav")
        try useALSAConfiguration(filePlayback(named: "nearcast_file", writingTo: wav), in: directory)

        let output = try ALSAPlayback(device: "nearcast_file", sampleRate: rate, periodFrames: period)
        XCTAssertEqual(output.status, AudioDeviceStatus(), "the device opened at once")
        let token = try Token(kind: .direct, hex: "feedfacecafef00d")
        let started = MonotonicClock.seconds()
        try play(token, seconds: 1.5, into: output)
        try output.drain()
        let elapsed = MonotonicClock.seconds() - started
        // The file plugin does not pace; the thread keeps to real time itself (at most 2 % fast,
        // less the device's four-period buffer), so the daemon's loop is paced as by a sound card.
        XCTAssertGreaterThan(elapsed, 1.5 / 1.02 - 4 * Double(period) / Double(rate) - 0.05)
        XCTAssertEqual(try decodeWAV(wav).map(\.token), [token])
        XCTAssertEqual(output.status.xruns, 0)
    }

    func testPlaybackPlaysSilenceWhenNothingIsWaiting() throws {
        let directory = TemporaryDirectory()
        let wav = directory.file("silence.wav")
        try useALSAConfiguration(filePlayback(named: "nearcast_file", writingTo: wav), in: directory)
        let output = try ALSAPlayback(device: "nearcast_file", sampleRate: rate, periodFrames: period)
        usleep(500_000)                             // the loop writes nothing for half a second
        try output.drain()
        let reader = try WAVFileReader(path: wav)
        XCTAssertGreaterThanOrEqual(reader.layout.frames, rate / 4, "the device kept being fed")
        var samples = [Float](repeating: 1, count: reader.layout.frames)
        _ = try samples.withUnsafeMutableBufferPointer { try reader.read(into: $0) }
        XCTAssertEqual(samples.map(abs).max(), 0, "with nothing to play the thread plays silence")
    }

    func testMissingDeviceIsRetriedAndPlaysAgainWhenItAppears() throws {
        let directory = TemporaryDirectory()
        // At first the configuration has no such PCM: what a card that is not plugged in looks like.
        try useALSAConfiguration("# no PCMs yet\n", in: directory)
        let output = try ALSAPlayback(device: "nearcast_usb", sampleRate: rate, periodFrames: period)
        let first = output.status
        XCTAssertEqual(first.health, .missing)
        guard case .missing(let device, let reason)? = first.problem else {
            return XCTFail("expected the device to be reported missing, got \(String(describing: first.problem))")
        }
        XCTAssertEqual(device, "nearcast_usb")
        XCTAssertTrue(reason.hasPrefix("open: "), reason)
        XCTAssertEqual("\(first.problem!)".hasPrefix("audio device missing: nearcast_usb (open: "), true)

        // While it is missing the loop is still paced (samples are discarded at real time).
        let token = try Token(kind: .direct, hex: "0123456789abcdef")
        let started = MonotonicClock.seconds()
        try play(token, seconds: 0.5, into: output)
        XCTAssertGreaterThan(MonotonicClock.seconds() - started, 0.5 - 4 * Double(period) / Double(rate) - 0.05)

        // The card is plugged in: the next retry (1 s, then 2 s after failures) opens it.
        let wav = directory.file("after.wav")
        try useALSAConfiguration(filePlayback(named: "nearcast_usb", writingTo: wav), in: directory)
        XCTAssertTrue(eventually(within: 8) { output.status.health == .ok }, "still \(output.status)")
        XCTAssertEqual(output.status.reopenings, 1)
        XCTAssertNil(output.status.problem)
        try play(token, seconds: 1.5, into: output)
        try output.drain()
        XCTAssertEqual(try decodeWAV(wav).map(\.token), [token], "broadcasting again by itself")
    }

    func testCaptureFromAFileFeedsTheDecoder() throws {
        let directory = TemporaryDirectory()
        // 0.3 s of silence, a burst, silence: raw S16_LE mono, which the file plugin reads as the
        // microphone's samples.
        let token = try Token(kind: .eid, hex: "a1b2c3d4e5f60718")
        let encoder = try BurstEncoder(sampleRate: rate)
        var raw: [UInt8] = []
        var samples = [Float](repeating: 0, count: Int(0.3 * Double(rate)) + encoder.rate.burstSamples + rate)
        encoder.start(token)
        samples.withUnsafeMutableBufferPointer {
            _ = encoder.render(into: UnsafeMutableBufferPointer(rebasing: $0[Int(0.3 * Double(rate))...]))
        }
        for sample in samples {
            let value = UInt16(bitPattern: Int16((sample * 32_767).rounded()))
            raw += [UInt8(value & 0xff), UInt8(value >> 8)]
        }
        let rawPath = directory.file("microphone.raw")
        try FileSystem.writeAtomically(rawPath, raw)
        try useALSAConfiguration("""
            pcm.nearcast_mic {
                type file
                slave { pcm { type null } }
                file "/dev/null"
                infile "\(rawPath)"
                format "raw"
            }

            """, in: directory)

        let capture = try ALSACapture(device: "nearcast_mic", sampleRate: rate, periodFrames: period)
        XCTAssertEqual(capture.status, AudioDeviceStatus())
        let decoder = try BurstDecoder(sampleRate: rate)
        var found: [DecodedBurst] = []
        var buffer = [Float](repeating: 0, count: period)
        var total = 0
        let deadline = MonotonicClock.seconds() + 10
        while total < samples.count && MonotonicClock.seconds() < deadline {
            let got = buffer.withUnsafeMutableBufferPointer { capture.read(into: $0) }
            if got == 0 { usleep(5_000); continue }
            buffer.withUnsafeBufferPointer { decoder.push(UnsafeBufferPointer(rebasing: $0[0..<got])) { found.append($0) } }
            total += got
        }
        capture.stop()
        XCTAssertGreaterThanOrEqual(total, samples.count, "the capture thread delivered the whole file")
        XCTAssertEqual(found.map(\.token), [token])
        XCTAssertEqual(Double(found.first?.startSample ?? 0) / Double(rate), 0.3, accuracy: 0.01)
        XCTAssertEqual(capture.dropped, 0)
    }

    func testMissingMicrophoneIsReported() throws {
        let directory = TemporaryDirectory()
        try useALSAConfiguration("# no PCMs\n", in: directory)
        let capture = try ALSACapture(device: "hw:CARD=NoSuchCard,DEV=0", sampleRate: rate, periodFrames: period)
        defer { capture.stop() }
        XCTAssertEqual(capture.status.health, .missing)
        XCTAssertEqual(capture.status.problem.map { "\($0)".hasPrefix("audio device missing: hw:CARD=NoSuchCard,DEV=0 (open: ") }, true)
    }

    func testALSAErrorsMapToTheLEDStates() {
        XCTAssertEqual(ALSAFailure(.open, -ENOENT).deviceError(device: "d").health, .missing)
        XCTAssertEqual(ALSAFailure(.write, -ENODEV).deviceError(device: "d").health, .missing)
        XCTAssertEqual(ALSAFailure(.open, -EACCES).deviceError(device: "d"), .permissionDenied(device: "d"))
        XCTAssertEqual(ALSAFailure(.open, -EPERM).deviceError(device: "d").health, .permissionDenied)
        XCTAssertEqual(ALSAFailure(.rate, -EINVAL).deviceError(device: "d"),
                       .unsupportedConfiguration(device: "d", reason: "rate: Invalid argument"))
        XCTAssertEqual("\(ALSAFailure(.open, -EACCES).deviceError(device: "hw:CARD=Device,DEV=0"))",
                       "audio permission denied: hw:CARD=Device,DEV=0")
    }
}
