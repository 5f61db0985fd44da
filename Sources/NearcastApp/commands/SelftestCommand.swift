import NearcastCore
import NearcastDrivers

/// `nearcast selftest`: what a hardware tester runs on a freshly flashed board. Walks the LEDs,
/// plays a calibration burst and, where the board has a microphone, decodes it back, and
/// checks the Bluetooth controller by advertising a test frame. Prints a table with the reason
/// for each failure; the exit status says whether every check passed.
struct SelftestCommand: RunnableCommand {
    static let node = CommandNode.command(
        "selftest",
        abstract: "Check a board's LEDs, speaker, microphone and Bluetooth controller.",
        discussion: """
            Stop the daemon first (systemctl stop nearcast): the LEDs, the sound card and the \
            controller have one owner at a time. Exit status 0 when every check passed, 1 otherwise.
            """,
        arguments: [
            .option("board", value: "name-or-file",
                    help: "Board name or board file path (default: the config file's board, else sim)."),
            .option("config", value: "file",
                    help: "Static config whose board is tested when --board is not given (default: /etc/nearcast/nearcast.json5 if present)."),
            .option("state-dir", value: "dir",
                    help: "Where the sim board writes selftest.wav and its logs (default ./sim-state; on a real board /tmp/nearcast-selftest, never the daemon's state)."),
            .option("step", value: "seconds", help: "Seconds each LED stays lit during the walk (default 0.3)."),
        ],
        make: SelftestCommand.init)

    /// The payload of the calibration burst: "selftest".
    static let calibrationToken = Token(kind: .direct, packed: 0x7365_6c66_7465_7374, count: 8)!

    let board: String?
    let config: String?
    let stateDir: String?
    let step: Double

    init(_ arguments: ParsedArguments) throws(UsageError) {
        board = try arguments.value("board")
        config = try arguments.value("config")
        stateDir = try arguments.value("state-dir")
        step = try arguments.value("step", default: 0.3)
        guard step.isFinite && step >= 0.05 && step <= 10 else {
            throw UsageError("--step \(step): use 0.05 to 10 seconds")
        }
    }

    /// One row of the table.
    struct Check {
        enum Result: String { case pass = "PASS", fail = "FAIL", skip = "SKIP" }
        var name: String
        var result: Result
        var detail: String
    }

    func run() throws {
        // On an installed box a bare `nearcast selftest` tests the box's own board.
        // (Only read without --board: a broken config must not stop a self-test of a named board.)
        let configPath = board != nil ? nil : config ?? (FileSystem.exists(StaticConfig.defaultPath) ? StaticConfig.defaultPath : nil)
        let configured = try configPath.map { path throws(CommandFailure) in try StaticConfig.load(path).board } ?? nil
        let loaded: Board
        do { loaded = try BoardLoader.load(board ?? configured ?? "sim") } catch { throw CommandFailure("\(error)") }
        // Never the daemon's state directory: selftest runs as whoever typed it (often root),
        // and must not leave root-owned files where the service keeps its state.
        let state = try StateDirectory(path: stateDir ?? (loaded.isSimulated ? "sim-state" : "/tmp/nearcast-selftest"))
        StandardStreams.line("nearcast selftest \(BuildInfo.version): board \(loaded.name) (\(loaded.description)) from \(loaded.source)")
        var checks = [walkLEDs(loaded, state)]
        checks += audio(loaded, state)
        checks.append(bluetooth(loaded, state))

        StandardStreams.line("")
        StandardStreams.line("\(Formatting.padRight("check", 11)) \(Formatting.padRight("result", 6)) detail")
        for check in checks {
            StandardStreams.line("\(Formatting.padRight(check.name, 11)) \(Formatting.padRight(check.result.rawValue, 6)) \(check.detail)")
        }
        let failed = checks.filter { $0.result == .fail }.count
        StandardStreams.line(failed == 0 ? "selftest passed (\(checks.filter { $0.result == .pass }.count) passed, \(checks.filter { $0.result == .skip }.count) skipped)"
                                         : "selftest FAILED: \(failed) of \(checks.count) checks")
        if failed > 0 { throw ExitStatus(code: 1) }
    }

    private func walkLEDs(_ board: Board, _ state: StateDirectory) -> Check {
        let leds: StatusLEDOutput
        do { (leds, _) = try StatusLEDDriver.open(board: board, state: state) } catch {
            return Check(name: "leds", result: .fail, detail: "\(error)")
        }
        defer { leds.release() }
        StandardStreams.line("leds: lighting each LED alone for \(Formatting.fixed(step, decimals: 1)) s")
        do { try StatusLEDDriver.walk(leds, step: step) } catch {
            return Check(name: "leds", result: .fail, detail: "\(board.source): leds.\(error.led.rawValue): \(error.error)")
        }
        return Check(name: "leds", result: .pass,
                     detail: "\(StatusLED.count) LEDs walked (status, audio, ble, consent); check that each lit alone")
    }

    /// Plays the calibration burst and listens for it: on the sim board the "microphone" is the
    /// file the speaker wrote; on a real board the ALSA microphone captures while it plays.
    private func audio(_ board: Board, _ state: StateDirectory) -> [Check] {
        let device = board.audioOutput.driver == "wav" ? state.file("selftest.wav") : board.audioOutput.device
        let output: AudioOutput
        do { output = try BoardDevices.openOutput(board, state: state, fileName: "selftest.wav") } catch {
            return [Check(name: "audio out", result: .fail, detail: "\(error)"), skippedInput(board, "the speaker failed")]
        }
        if let problem = output.status.problem {
            try? output.drain()
            return [Check(name: "audio out", result: .fail, detail: "\(problem)"), skippedInput(board, "the speaker failed")]
        }
        var capture: ALSACapture?
        var inputProblem: AudioDeviceError?
        if let input = board.audioInput, input.driver == "alsa" {
            do {
                let opened = try ALSACapture(device: input.device, sampleRate: input.rate, periodFrames: input.period)
                capture = opened
                inputProblem = opened.status.problem
            } catch {
                inputProblem = error
            }
        }
        let fs = output.sampleRate
        let encoder: BurstEncoder, decoder: BurstDecoder
        do {
            encoder = try BurstEncoder(sampleRate: fs)
            decoder = try BurstDecoder(sampleRate: board.audioInput?.rate ?? fs)
        } catch {
            return [Check(name: "audio out", result: .fail, detail: "\(board.source): audio: \(error)")]
        }
        StandardStreams.line("audio: playing the calibration burst (direct \(Self.calibrationToken.hex), level 50 %) on \(device)")
        var heard: [DecodedBurst] = []
        var period = [Float](repeating: 0, count: output.periodFrames)
        var captured = [Float](repeating: 0, count: 4096)
        let total = fs * 3 / 10 + encoder.rate.burstSamples + fs / 2
        var written = 0
        var failure: AudioDeviceError?
        while written < total {
            period.withUnsafeMutableBufferPointer { span in
                for i in span.indices { span[i] = 0 }
                if written >= fs * 3 / 10 {
                    if written < fs * 3 / 10 + span.count { encoder.start(Self.calibrationToken) }
                    encoder.render(into: span)
                }
            }
            do {
                try period.withBuffer { (samples) throws(AudioDeviceError) in try output.write(samples) }
            } catch {
                failure = error
                break
            }
            written += period.count
            if let capture { drain(capture, into: &captured, decoder) { heard.append($0) } }
        }
        do { try output.drain() } catch { failure = failure ?? error }
        let played = output.status
        if let capture {
            MonotonicClock.sleep(until: MonotonicClock.nanoseconds() + 300_000_000)     // the tail still in flight
            drain(capture, into: &captured, decoder) { heard.append($0) }
            capture.stop()
        }
        if let problem = failure ?? played.problem {
            return [Check(name: "audio out", result: .fail, detail: "\(problem)"), skippedInput(board, "the speaker failed")]
        }
        let out = Check(name: "audio out", result: .pass,
                        detail: "calibration burst played on \(device)" + (played.xruns > 0 ? " (\(played.xruns) underruns)" : ""))
        if board.audioOutput.driver == "wav" {
            // The sim board's microphone hears its own speaker: decode the file it wrote.
            do {
                let reader = try WAVFileReader(path: device)
                var samples = [Float](repeating: 0, count: reader.layout.frames)
                let got = try samples.withUnsafeMutableBufferPointer { try reader.read(into: $0) }
                samples.withUnsafeBufferPointer { decoder.push(UnsafeBufferPointer(rebasing: $0[0..<got])) { heard.append($0) } }
            } catch {
                return [out, Check(name: "audio in", result: .fail, detail: "\(device): \(error)")]
            }
            decoder.finish { heard.append($0) }
            return [out, inputCheck(heard, source: "the simulated microphone (\(device))")]
        }
        guard let input = board.audioInput, input.driver == "alsa" else { return [out, skippedInput(board, nil)] }
        if let inputProblem { return [out, Check(name: "audio in", result: .fail, detail: "\(inputProblem)")] }
        decoder.finish { heard.append($0) }
        return [out, inputCheck(heard, source: "the microphone (\(input.device))")]
    }

    private func drain(_ capture: ALSACapture, into buffer: inout [Float], _ decoder: BurstDecoder, _ onBurst: (DecodedBurst) -> Void) {
        buffer.withUnsafeMutableBufferPointer { span in
            while true {
                let got = capture.read(into: span)
                if got == 0 { break }
                decoder.push(UnsafeBufferPointer(rebasing: span[0..<got]), onBurst)
            }
        }
    }

    private func inputCheck(_ heard: [DecodedBurst], source: String) -> Check {
        if let burst = heard.first(where: { $0.token == Self.calibrationToken }) {
            return Check(name: "audio in", result: .pass,
                         detail: "\(source) decoded the burst back (Es/N0 \(Formatting.fixed(Double(burst.symbolSNR), decimals: 1)) dB)")
        }
        let other = heard.map { "\($0.token.kind) \($0.token.hex)" }
        return Check(name: "audio in", result: .fail,
                     detail: "\(source) did not hear the calibration burst" + (other.isEmpty ? "; check the speaker's volume and that the microphone is near it"
                                                                                  : "; heard only \(other.joined(separator: ", "))"))
    }

    private func skippedInput(_ board: Board, _ reason: String?) -> Check {
        Check(name: "audio in", result: .skip, detail: reason ?? "no microphone on this board (audio.input in \(board.source))")
    }

    private func bluetooth(_ board: Board, _ state: StateDirectory) -> Check {
        var generator = SystemRandomNumberGenerator()
        let frame = EddystoneFrame.advertisingData(for: Self.calibrationToken, txPower: Int8(clamping: board.bluetooth.txPower))
        let address = BLEAddress.nonResolvablePrivate(using: &generator)
        if board.bluetooth.driver == "sim" {
            let path = state.file("selftest-ble.log")
            do {
                let advertiser = try SimulatedBLEAdvertiser(path: path, setCount: 1)
                try advertiser.advertise(set: 0, data: frame, address: address)
                try advertiser.stop(set: 0)
            } catch {
                return Check(name: "bluetooth", result: .fail, detail: "\(path): \(error)")
            }
            return Check(name: "bluetooth", result: .pass, detail: "simulated controller: test frame recorded in \(path)")
        }
        var found = ""
        do {
            let advertiser = try BoardDevices.openController(board.bluetooth) { found = $0 }
            StandardStreams.line(found)
            try advertiser.advertise(set: 0, data: frame, address: address)
            MonotonicClock.sleep(until: MonotonicClock.nanoseconds() + 1_000_000_000)
            try advertiser.maintain(now: 1)
            try advertiser.stop(set: 0)
            return Check(name: "bluetooth", result: .pass,
                         detail: String(found.dropFirst(found.hasPrefix("bluetooth: ") ? 11 : 0)) + "; advertised a test frame for 1 s from \(address)")
        } catch {
            return Check(name: "bluetooth", result: .fail, detail: "\(error)")
        }
    }
}
