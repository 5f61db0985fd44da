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
        let configured = try configPath.map { path throws(ConfigError) in try StaticConfig.load(path).board } ?? nil
        let loaded: Board
        do { loaded = try BoardLoader.load(board ?? configured ?? "sim") } catch { throw CommandFailure("\(error)") }
        // Never the daemon's state directory: selftest runs as whoever typed it (often root),
        // and must not leave root-owned files where the service keeps its state.
        let state = try StateDirectory(path: stateDir ?? (loaded.isSimulated ? "sim-state" : "/tmp/nearcast-selftest"))
        StandardStreams.line("nearcast selftest \(BuildInfo.version): board \(loaded.name) (\(loaded.description)) from \(loaded.source)")
        let devices = try Devices.open(loaded, state: state, purpose: .selftest, log: { StandardStreams.line($0) })
        var checks = [walkLEDs(devices)]
        checks += audio(devices, state)
        checks.append(bluetooth(devices, state))
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

    private func walkLEDs(_ devices: Devices) -> Check {
        guard let leds = devices.leds else {
            return Check(name: "leds", result: .fail, detail: "\(devices.ledsProblem.map { "\($0)" } ?? "no LEDs")")
        }
        defer { leds.release() }
        StandardStreams.line("leds: lighting each LED alone for \(Formatting.fixed(step, decimals: 1)) s")
        do { try LEDWalk.run(leds, step: step, clock: devices.clock) } catch {
            return Check(name: "leds", result: .fail, detail: "\(devices.board.source): leds.\(error.led.rawValue): \(error.error)")
        }
        return Check(name: "leds", result: .pass,
                     detail: "\(StatusLED.count) LEDs walked (status, audio, ble, consent); check that each lit alone")
    }

    /// Plays the calibration burst and listens for it through the board's microphone while it
    /// plays (on the sim board, the twin that hears the simulated speaker), as the daemon does.
    private func audio(_ devices: Devices, _ state: StateDirectory) -> [Check] {
        let board = devices.board, output = devices.output
        let device = board.audioOutput.driver == .wav ? state.file(Devices.Purpose.selftest.audioFile ?? "") : board.audioOutput.device
        if let problem = output.status.problem {
            try? output.drain()
            return [Check(name: "audio out", result: .fail, detail: "\(problem)"), skippedInput(board, "the speaker failed")]
        }
        var capture: CapturedAudioDecoder?
        var inputProblem: AudioDeviceError?
        do {
            if let input = try devices.openMicrophone() {
                capture = try CapturedAudioDecoder(input: input)
                inputProblem = input.status.problem
            }
        } catch let error as AudioDeviceError {
            inputProblem = error
        } catch {
            return [Check(name: "audio in", result: .fail, detail: "\(board.source): audio.input: \(error)")]
        }
        let fs = output.sampleRate
        let encoder: BurstEncoder
        do { encoder = try BurstEncoder(sampleRate: fs) } catch {
            return [Check(name: "audio out", result: .fail, detail: "\(board.source): audio: \(error)")]
        }
        StandardStreams.line("audio: playing the calibration burst (direct \(Self.calibrationToken.hex), level 50 %) on \(device)")
        var heard: [DecodedBurst] = []
        var period = [Float](repeating: 0, count: output.periodFrames)
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
            capture?.decodeAvailable { heard.append($0) }
        }
        do { try output.drain() } catch { failure = failure ?? error }
        let played = output.status
        if let capture {
            if board.audioOutput.driver == .alsa {
                MonotonicClock.sleep(until: MonotonicClock.nanoseconds() + 300_000_000)     // the tail still in flight
            }
            capture.finish { heard.append($0) }
            capture.input.stop()
        }
        if let problem = failure ?? played.problem {
            return [Check(name: "audio out", result: .fail, detail: "\(problem)"), skippedInput(board, "the speaker failed")]
        }
        let out = Check(name: "audio out", result: .pass,
                        detail: "calibration burst played on \(device)" + (played.xruns > 0 ? " (\(played.xruns) underruns)" : ""))
        guard capture != nil || inputProblem != nil else { return [out, skippedInput(board, nil)] }
        if let inputProblem { return [out, Check(name: "audio in", result: .fail, detail: "\(inputProblem)")] }
        return [out, inputCheck(heard, source: board.audioOutput.driver == .wav ? "the simulated microphone (\(device))"
                                                                                 : "the microphone (\(board.audioInput?.device ?? ""))")]
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

    /// Advertises a test frame for a second through the board's radio (the same recovery the
    /// daemon uses: a missing controller is reported, not fatal) and says what the controller did.
    private func bluetooth(_ devices: Devices, _ state: StateDirectory) -> Check {
        var generator = SystemRandomNumberGenerator()
        let board = devices.board, radio = devices.radio
        let frame = EddystoneFrame.advertisingData(for: Self.calibrationToken, txPower: Int8(clamping: board.bluetooth.txPower))
        let address = BLEAddress.nonResolvablePrivate(using: &generator)
        do {
            try radio.advertise(set: 0, data: frame, address: address)
            if board.bluetooth.driver != .sim { MonotonicClock.sleep(until: MonotonicClock.nanoseconds() + 1_000_000_000) }
            devices.clock.seconds = 1
            radio.maintain(now: 1)
            try radio.stop(set: 0)
        } catch {
            return Check(name: "bluetooth", result: .fail, detail: "\(error)")
        }
        if let problem = radio.problem { return Check(name: "bluetooth", result: .fail, detail: problem) }
        if board.bluetooth.driver == .sim {
            return Check(name: "bluetooth", result: .pass,
                         detail: "simulated controller: test frame recorded in \(state.file(Devices.Purpose.selftest.bluetoothLog))")
        }
        let found = devices.controllerFound.map { String($0.dropFirst($0.hasPrefix("bluetooth: ") ? 11 : 0)) + "; " } ?? ""
        return Check(name: "bluetooth", result: .pass, detail: found + "advertised a test frame for 1 s from \(address)")
    }
}
