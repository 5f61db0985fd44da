import NearcastCore
import NearcastDrivers

/// The devices' tunables and the simulated board's faults: `audio`, `ble`, `sim`.
enum DeviceCommands {
    static func commands(_ encoder: MultiBandEncoder, _ advertising: AdvertisingSettings, requests: LoopRequests,
                         faults: SimulatedFaults?, board: Board, log: LogSink) -> [ConsoleCommandDescriptor] { [

        ConsoleCommandDescriptor("audio", completions: ["test", "sweep", "level", "band"],
                                 usage: "audio test | audio sweep [every SECONDS|off] | audio level [0-100] | audio band [high|low|both]",
                                 summary: "play one calibration burst or the field check's sweep; show or set the burst level or band",
                                 arguments: 1...3,
                                 changesState: { $0.first == "test" || $0.first == "sweep" || $0.count > 1 },
                                 persists: { $0.first != "sweep" && $0.count > 1 }) { call throws(ConsoleFailure) in
            switch call[0] {
            case "test":
                guard call.count == 1 else { throw ConsoleFailure("unexpected '\(call[1])'") }
                requests.post(.testBurst)
                return ["audio test: one calibration burst (direct token \(ActionPerformer.testToken.hex), \"test\") at level \(level(encoder))"]
            case "sweep":
                return try sweep(call, encoder, requests)
            case "level":
                guard call.count <= 2 else { throw ConsoleFailure("unexpected '\(call[2])'") }
                if call.count == 2 {
                    guard let level = Int(call[1]), (0...100).contains(level) else { throw ConsoleFailure("level must be 0 to 100") }
                    encoder.amplitude = Float(level) / 100
                }
                return ["audio level \(level(encoder)) (peak amplitude of the bursts, % of full scale)"]
            case "band":
                guard call.count <= 2 else { throw ConsoleFailure("unexpected '\(call[2])'") }
                if call.count == 2 {
                    guard let band = BandSelection(name: call[1]) else { throw ConsoleFailure("band must be high, low or both") }
                    encoder.selection = band
                }
                return ["audio band \(encoder.selection.name) (\(describe(encoder.selection)); from the next burst)"]
            default:
                throw ConsoleFailure("test, sweep, level or band")
            }
        },
        ConsoleCommandDescriptor("ble", completions: ["interval", "txpower"], usage: "ble interval [MS] | ble txpower [DBM]",
                                 summary: "show or set the advertising interval (20-10240 ms) and calibrated TX power (-100..20 dBm)",
                                 arguments: 1...2, changesState: { $0.count > 1 }, persists: { $0.count > 1 }) { call throws(ConsoleFailure) in
            switch call[0] {
            case "interval":
                if call.count == 2 {
                    guard let ms = Int(call[1]), (20...10_240).contains(ms) else { throw ConsoleFailure("interval must be 20 to 10240 ms") }
                    advertising.intervalMilliseconds = ms
                }
                return ["ble interval \(advertising.intervalMilliseconds) ms"]
            case "txpower":
                if call.count == 2 {
                    guard let dbm = Int(call[1]), (-100...20).contains(dbm) else { throw ConsoleFailure("txpower must be -100 to 20 dBm") }
                    advertising.txPower = Int8(dbm)
                }
                return ["ble txpower \(advertising.txPower) dBm (written into the frames from the next advertising change)"]
            default:
                throw ConsoleFailure("interval or txpower")
            }
        },
        ConsoleCommandDescriptor("sim", completions: ["fault"], usage: "sim fault [NAME on|off]",
                                 summary: "simulated board: make a driver fail as real hardware does (list the faults without arguments)",
                                 arguments: 1...3, changesState: { $0.count > 1 }) { call throws(ConsoleFailure) in
            try simFault(call, faults, board: board, log: log)
        },
    ] }

    /// `audio sweep`, `audio sweep every SECONDS`, `audio sweep off`: the field check's sequence
    /// (not saved by `config save`: a box left sweeping after a restart would sweep all talk long).
    private static func sweep(_ call: ConsoleInvocation, _ encoder: MultiBandEncoder,
                              _ requests: LoopRequests) throws(ConsoleFailure) -> [String] {
        let seconds = Formatting.fixed(Double(FieldCheckSignal.totalSamples(rate: encoder.rate)) / Double(encoder.rate.sampleRate), decimals: 1)
        let what = "the field check's sequence (\(FieldCheckSignal.toneCount) tones from \(FieldCheckSignal.toneHz(0)) to "
            + "\(FieldCheckSignal.toneHz(FieldCheckSignal.toneCount - 1)) Hz, then a test burst in the high and in the low band; "
            + "\(seconds) s at level \(level(encoder)))"
        switch call.count {
        case 1:
            requests.post(.sweep)
            return ["audio sweep: \(what), from the end of the burst under way",
                    "phones at the hub's /check?key=API_KEY page measure it"]
        case 2 where call[1] == "off":
            requests.post(.sweepEvery(seconds: nil))
            return ["audio sweep off: no more repeated sweeps"]
        case 3 where call[1] == "every":
            let range = SettingsDefaults.sweepIntervals
            guard let interval = Int(call[2]), range.contains(interval) else {
                throw ConsoleFailure("every takes \(range.lowerBound) to \(range.upperBound) seconds, not '\(call[2])'")
            }
            requests.post(.sweepEvery(seconds: interval))
            return ["audio sweep every \(interval) s: \(what), the first now; the bursts due while it plays are left out",
                    "'audio sweep off' stops it; a restart stops it too (it is not saved)"]
        default:
            throw ConsoleFailure("audio sweep [every SECONDS|off]")
        }
    }

    private static func level(_ encoder: MultiBandEncoder) -> Int { Int((encoder.amplitude * 100).rounded()) }

    /// `high (18500-20000 Hz)`, `both (alternating high and low)`.
    static func describe(_ selection: BandSelection) -> String {
        let ranges = selection.bands.map { "\($0.firstToneHz)-\($0.lastToneHz) Hz" }
        return ranges.count == 1 ? ranges[0] : "alternating " + ranges.joined(separator: " and ") + " burst by burst"
    }

    /// `sim fault NAME on|off`: switches a simulated driver's fault (sim board only). The
    /// driver fails at its next call, the way its real twin would; the loop then reports it.
    private static func simFault(_ call: ConsoleInvocation, _ faults: SimulatedFaults?, board: Board,
                                 log: LogSink) throws(ConsoleFailure) -> [String] {
        guard call[0] == "fault" else { throw ConsoleFailure("fault, not '\(call[0])'") }
        guard let faults else {
            throw ConsoleFailure("board \(board.name) is not the simulated board: faults are injected on --board sim only")
        }
        let names = SimulatedFault.allCases.map { $0.rawValue }.joined(separator: ", ")
        if call.count == 1 {
            let on = SimulatedFault.allCases.filter { faults.contains($0) }
            return ["faults on: " + (on.isEmpty ? "none" : on.map { $0.rawValue }.joined(separator: ", ")), "faults:"]
                + SimulatedFault.allCases.map { "  \(Formatting.padRight($0.rawValue, 22)) \($0.simulation)" }
        }
        guard call.count == 3, call[2] == "on" || call[2] == "off" else { throw ConsoleFailure("sim fault NAME on|off") }
        guard let fault = SimulatedFault(rawValue: call[1]) else { throw ConsoleFailure("no fault '\(call[1])'; the faults: \(names)") }
        let changed = faults.set(fault, on: call[2] == "on")
        if changed { log("console: simulated fault \(fault.identifier) switched \(call[2])") }
        return ["sim fault \(fault.identifier) \(call[2])" + (changed ? "" : " (it already was)")]
    }
}
