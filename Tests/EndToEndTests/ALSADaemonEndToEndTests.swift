import Foundation
import XCTest

/// The daemon on a board whose speaker and microphone are ALSA devices, through the real
/// libasound: ALSA_CONFIG_PATH points at a test configuration whose PCMs are the `file` plugin
/// (the speaker writes a WAV file, the microphone reads a raw file). Rewriting the
/// configuration makes a device appear, as a USB card plugged in would.
final class ALSADaemonEndToEndTests: XCTestCase {
    private func board(in dir: URL, microphone: Bool = false) throws -> URL {
        let file = dir.appendingPathComponent("alsaboard.json5")
        let input = microphone ? #"input: { driver: "alsa", device: "nearcast_mic", rate: 48000, period: 1024 },"# : ""
        try """
            {
              name: "alsatest", description: "ALSA speaker (file plugin), simulated LEDs and BLE",
              gpio: { driver: "sim", chip: "sim", lines: 8 },
              leds: { status: { line: 0 }, audio: { line: 1 }, ble: { line: 2 }, consent: { line: 3 } },
              audio: {
                output: { driver: "alsa", device: "nearcast_speaker", rate: 48000, period: 1024 },
                \(input)
              },
              bluetooth: { driver: "sim" },
              console: { tty: "stdio", baud: 115200 },
              consent: "granted",
            }
            """.write(to: file, atomically: true, encoding: .utf8)
        return file
    }

    private func speaker(writingTo wav: URL) -> String {
        #"pcm.nearcast_speaker { type file slave { pcm { type null } } file "\#(wav.path)" format "wav" }"# + "\n"
    }

    private func useALSAConfiguration(_ text: String, at path: URL) throws {
        try text.write(to: path, atomically: true, encoding: .utf8)
        setenv("ALSA_CONFIG_PATH", path.path, 1)
    }

    func testSpeakerMissingAtStartIsRetriedAndTheBoxPlaysWhenItAppears() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let config = dir.appendingPathComponent("asound.conf")
        try useALSAConfiguration("# the USB card is not plugged in\n", at: config)
        let started = try NearcastProcess.start(["run", "--board", try board(in: dir).path, "--state-dir", dir.path,
                                                 "--publish", "direct:5eedf00d", "--duration", "7"])
        // The card is plugged in once the daemon has reported it missing and blinks the audio LED.
        XCTAssertNotNil(NearcastProcess.waitForOutput(started) {
            $0.contains("error: audio device missing: nearcast_speaker (open: ") && $0.contains("audio=slow-blink")
        }, NearcastProcess.output(of: started))
        let wav = dir.appendingPathComponent("speaker.wav")
        try useALSAConfiguration(speaker(writingTo: wav), at: config)
        let run = try NearcastProcess.wait(started, timeout: 60)
        XCTAssertEqual(run.status, 0, run.stderr)
        let log = run.stdout
        let missing = log.range(of: "error: audio device missing: nearcast_speaker (open: ")
        let back = log.range(of: "audio: device back after: audio device missing: nearcast_speaker")
        XCTAssertNotNil(missing, log)
        XCTAssertNotNil(back, log)
        // The LEDs: the audio LED blinks slowly while the device is missing, and goes off when it is back.
        XCTAssertTrue(log.contains("audio=slow-blink"), log)
        if let missing, let back { XCTAssertLessThan(missing.lowerBound, back.lowerBound) }
        if let back { XCTAssertTrue(log[back.upperBound...].contains("leds: status=slow-blink audio=off"), log) }
        // Broadcasting by itself once the device is there: the bursts played afterwards decode.
        let tokens = try NearcastProcess.decode(wav.path).compactMap { $0["payload"] as? String }
        XCTAssertGreaterThanOrEqual(tokens.count, 2, log)
        XCTAssertEqual(Set(tokens), ["5eedf00d"])
    }

    /// `--board pc` (boards/pc.json5, found by name) on a machine with no sound device: one line
    /// naming the device it tried and what to check, a non-zero exit, nothing broadcast.
    func testThePCBoardRefusesToStartWithoutASpeaker() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        try useALSAConfiguration("# no sound card, no sound server: no default device\n", at: dir.appendingPathComponent("asound.conf"))
        let run = try NearcastProcess.run(["run", "--board", "pc", "--state-dir", dir.path, "--console", "none", "--duration", "5"],
                                          timeout: 60)
        XCTAssertNotEqual(run.status, 0, run.stdout)
        let errors = run.stderr.split(separator: "\n").filter { !$0.isEmpty }
        XCTAssertEqual(errors.count, 1, run.stderr)
        XCTAssertTrue(run.stderr.contains("the speaker, ALSA device 'default' (board "), run.stderr)
        XCTAssertTrue(run.stderr.contains("aplay -l") && run.stderr.contains("PipeWire or PulseAudio"), run.stderr)
        XCTAssertFalse(run.stdout.contains("] burst #"), run.stdout)
    }

    /// `--board pc` plays through ALSA's default device, here the file plugin standing for a
    /// desktop's sound server: what it played decodes (the VM test does the same with snd-aloop).
    func testThePCBoardPlaysThroughALSAsDefaultDevice() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let wav = dir.appendingPathComponent("default.wav")
        try useALSAConfiguration(#"pcm.!default { type file slave { pcm { type null } } file "\#(wav.path)" format "wav" }"# + "\n",
                                 at: dir.appendingPathComponent("asound.conf"))
        let run = try NearcastProcess.run(["run", "--board", "pc", "--state-dir", dir.path, "--console", "none", "--mediums", "audio",
                                           "--publish", "direct:0c0ffee0", "--duration", "5"], timeout: 60)
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertTrue(run.stdout.contains("audio output: ALSA default (48000 Hz, period 1024) on its own thread: open"), run.stdout)
        let tokens = try NearcastProcess.decode(wav.path).compactMap { $0["payload"] as? String }
        XCTAssertGreaterThanOrEqual(tokens.count, 2, run.stdout)
        XCTAssertEqual(Set(tokens), ["0c0ffee0"])
    }

    func testTheMicrophoneFeedsTheDaemonsSubscription() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        // What the microphone hears: a burst another box played, as raw S16_LE mono.
        let heard = dir.appendingPathComponent("heard.wav")
        let encode = try NearcastProcess.run(["encode", "--kind", "direct", "--payload", "0badcafe", "--out", heard.path])
        XCTAssertEqual(encode.status, 0, encode.stderr)
        let raw = dir.appendingPathComponent("microphone.raw")
        var samples = try Data(contentsOf: heard).dropFirst(44)          // the canonical 44-byte header
        samples = Data(count: 48_000) + samples + Data(count: 96_000)   // 0.5 s before, 1 s after
        try samples.write(to: raw)
        try useALSAConfiguration(speaker(writingTo: dir.appendingPathComponent("speaker.wav"))
            + #"pcm.nearcast_mic { type file slave { pcm { type null } } file "/dev/null" infile "\#(raw.path)" format "raw" }"# + "\n",
            at: dir.appendingPathComponent("asound.conf"))
        let run = try NearcastProcess.run(["run", "--board", try board(in: dir, microphone: true).path, "--state-dir", dir.path,
                                           "--publish", "direct:5eedf00d@ble", "--subscribe", "audio", "--duration", "4"],
                                          timeout: 60)
        XCTAssertEqual(run.status, 0, run.stderr)
        let log = run.stdout
        XCTAssertTrue(log.contains("the microphone (ALSA nearcast_mic, 48000 Hz) is decoded"), log)
        XCTAssertTrue(log.contains("] found direct 0badcafe over audio"), log)
    }
}
