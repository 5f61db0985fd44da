import NearcastCore
import NearcastDrivers

/// A board's devices, opened in one place from its description, each behind its protocol: the
/// speaker (``AudioOutput``), the microphone (``AudioInput``, opened while listening), the
/// Bluetooth radio (a ``RecoveringAdvertiser`` over the board's ``BLEDevice``, real or
/// simulated), and the status LEDs. The daemon and `selftest` take their devices from here; nothing past
/// this file knows which driver is behind a protocol.
///
/// On the simulated board every device is a twin that runs on ``clock`` (stream time, moved by
/// whoever renders the audio) and fails on demand through ``faults``.
final class Devices {
    /// What the devices are for: the daemon's files, or selftest's own beside them.
    enum Purpose {
        case daemon
        case selftest

        var audioFile: String? { self == .selftest ? "selftest.wav" : nil }
        var bluetoothLog: String { self == .selftest ? "selftest-ble.log" : "ble.log" }
    }

    let board: Board
    let output: AudioOutput
    let radio: RecoveringAdvertiser
    /// The status LEDs (nil when they could not be had; ``ledsProblem`` says why).
    let leds: StatusLEDOutput?
    let ledsProblem: CommandFailure?
    /// Stream time for the simulated drivers' logs (unused by real ones).
    let clock: StreamClock
    /// The simulated board's fault switches (nil on a real board: faults cannot be injected).
    let faults: SimulatedFaults?
    /// What was opened, one line each, for the log.
    let descriptions: [String]
    /// What the real controller said it is, the last time it was opened.
    var controllerFound: String? { notes.found }
    private let notes: ControllerNotes
    private let microphoneOpener: (() throws(AudioDeviceError) -> AudioInput)?

    private init(board: Board, output: AudioOutput, radio: RecoveringAdvertiser, leds: StatusLEDOutput?,
                 ledsProblem: CommandFailure?, clock: StreamClock, faults: SimulatedFaults?, descriptions: [String],
                 microphoneOpener: (() throws(AudioDeviceError) -> AudioInput)?, notes: ControllerNotes) {
        self.notes = notes
        self.board = board
        self.output = output
        self.radio = radio
        self.leds = leds
        self.ledsProblem = ledsProblem
        self.clock = clock
        self.faults = faults
        self.descriptions = descriptions
        self.microphoneOpener = microphoneOpener
    }

    /// Opens the microphone and starts capturing (nil: the board has none). A real device that
    /// is missing is not an error: its driver retries and ``AudioInput/status`` says so.
    func openMicrophone() throws(AudioDeviceError) -> AudioInput? {
        try microphoneOpener?()
    }

    /// How the microphone is heard, for the log.
    var microphoneDescription: String {
        if let input = board.audioInput, input.driver == .alsa { return "the microphone (ALSA \(input.device), \(input.rate) Hz)" }
        return "the simulated microphone, which hears the simulated speaker"
    }

    /// Opens everything the board describes. The speaker and the radio must open (a real
    /// controller or sound card that is missing is retried, not refused); LEDs that cannot be
    /// had leave ``leds`` nil, since the box still broadcasts without them.
    static func open(_ board: Board, state: StateDirectory, purpose: Purpose = .daemon,
                     log: @escaping (String) -> Void) throws(CommandFailure) -> Devices {
        let clock = StreamClock()
        // Faults are for the simulated board only: a real box's drivers fail for real reasons.
        let faults: SimulatedFaults? = board.isSimulated ? SimulatedFaults() : nil
        var descriptions: [String] = []
        let notes = ControllerNotes()

        // The speaker, and the microphone that goes with it.
        let output: AudioOutput
        var microphoneOpener: (() throws(AudioDeviceError) -> AudioInput)?
        let speaker = board.audioOutput
        do {
            switch speaker.driver {
            case .wav:
                let path = state.file(purpose.audioFile ?? speaker.device)
                let simulated = try SimulatedAudioOutput(path: path, sampleRate: speaker.rate, periodFrames: speaker.period,
                                                         faults: faults ?? SimulatedFaults())
                output = simulated
                descriptions.append("audio output: \(path) (simulated speaker, \(speaker.rate) Hz)")
                microphoneOpener = { () throws(AudioDeviceError) -> AudioInput in
                    simulated.microphone.start()
                    return simulated.microphone
                }
            case .alsa:
                let playback = try ALSAPlayback(device: speaker.device, sampleRate: speaker.rate, periodFrames: speaker.period)
                if speaker.requiredAtStart, let problem = playback.status.problem {
                    try? playback.drain()
                    throw CommandFailure("""
                        the speaker, ALSA device '\(speaker.device)' (board \(board.source)), cannot be opened: \(problem). \
                        Check that `aplay -l` lists a sound card and that PipeWire or PulseAudio runs for this user, \
                        or name another device in a board file
                        """)
                }
                output = playback
                descriptions.append("audio output: ALSA \(speaker.device) (\(speaker.rate) Hz, period \(speaker.period)) on its own thread: "
                                    + (playback.status.problem.map { "\($0); retrying" } ?? "open"))
            }
        } catch let failure as CommandFailure {
            throw failure
        } catch {
            throw CommandFailure("\(error) (board \(board.source), audio.output)")
        }
        if let input = board.audioInput, input.driver == .alsa {
            microphoneOpener = { () throws(AudioDeviceError) -> AudioInput in
                try ALSACapture(device: input.device, sampleRate: input.rate, periodFrames: input.period)
            }
        }

        // The radio: the same recovery over either controller.
        let bluetooth = board.bluetooth
        let radio: RecoveringAdvertiser
        switch bluetooth.driver {
        case .sim:
            let path = state.file(purpose.bluetoothLog)
            let controllerLog: SimulatedLogFile
            do { controllerLog = try SimulatedLogFile(path: path) } catch { throw CommandFailure("\(path): \(error)") }
            let switches = faults ?? SimulatedFaults()
            radio = RecoveringAdvertiser(intervalMilliseconds: 100, log: log) { () throws(BluetoothError) -> any BLEDevice in
                try SimulatedBLEController(log: controllerLog, setCount: bluetooth.advertisingSets, clock: clock, faults: switches)
            }
            descriptions.append("bluetooth: simulated controller, \(bluetooth.advertisingSets) advertising set"
                                + (bluetooth.advertisingSets == 1 ? " (legacy)" : "s") + "; advertising recorded in \(path)")
        case .hci, .h4:
            radio = RecoveringAdvertiser(intervalMilliseconds: 100, log: log) { () throws(BluetoothError) -> any BLEDevice in
                try openController(bluetooth) { line in
                    notes.found = line
                    log(line)
                }
            }
        }

        // The LEDs.
        var leds: StatusLEDOutput?
        var ledsProblem: CommandFailure?
        do {
            let (opened, description) = try openLEDs(board, state: state, clock: clock)
            leds = opened
            descriptions.append("leds: \(description)")
        } catch {
            ledsProblem = error
        }
        return Devices(board: board, output: output, radio: radio, leds: leds, ledsProblem: ledsProblem, clock: clock,
                       faults: faults, descriptions: descriptions, microphoneOpener: microphoneOpener, notes: notes)
    }

    /// A real controller (`hci`: the BlueZ raw socket; `h4`: a UART), set up and probed.
    private static func openController(_ bluetooth: Board.Bluetooth, log: (String) -> Void) throws(BluetoothError) -> HCIAdvertiser {
        let transport: HCITransport
        if bluetooth.driver == .h4 {
            transport = try H4SerialTransport(path: bluetooth.device ?? "", baud: bluetooth.baud ?? 115_200,
                                              flowControl: bluetooth.flowControl)
        } else {
            transport = try HCISocketTransport(index: bluetooth.index ?? 0)
        }
        return try HCIAdvertiser(controller: HCIController(transport: transport), intervalMilliseconds: 100, log: log)
    }

    /// The status LEDs: simulated (changes recorded in `<state>/leds.log`, on `clock`) when the
    /// board's GPIO driver is `sim`, libgpiod otherwise. Errors name the board file's entry.
    static func openLEDs(_ board: Board, state: StateDirectory, clock: StreamClock) throws(CommandFailure) -> (StatusLEDOutput, String) {
        switch board.gpio.driver {
        case .sim:
            let path = state.file("leds.log")
            do {
                return (try SimulatedStatusLEDs(path: path, clock: clock), "simulated GPIO, changes recorded in \(path)")
            } catch {
                throw CommandFailure("\(path): \(error)")
            }
        case .gpiod:
            let lines = StatusLED.allCases.compactMap { led in
                board.leds[led].map { GPIOStatusLEDs.Line(led: led, offset: $0.line, activeLow: $0.activeLow) }
            }
            do {
                let leds = try GPIOStatusLEDs(chip: board.gpio.chip, lines: lines)
                return (leds, "GPIO chip \(board.gpio.chip), lines "
                        + lines.map { "\($0.led.rawValue)=\($0.offset)\($0.activeLow ? " (active low)" : "")" }.joined(separator: " "))
            } catch {
                let entry = error.subject == board.gpio.chip ? "gpio.chip" : "leds"
                throw CommandFailure("\(board.source): \(entry): \(error)")
            }
        }
    }
}

/// What the controller told the driver when it was opened (kept for `selftest`'s report).
private final class ControllerNotes {
    var found: String?
}
