import NearcastCore
import NearcastDrivers

/// The devices' tunables and the simulated board's faults: `audio`, `ble`, `sim`.
enum DeviceCommands {
    static let all: [ConsoleCommandDescriptor] = [
        ConsoleCommandDescriptor("audio", completions: ["test", "level"], usage: "audio test | audio level [0-100]",
                                 summary: "play one calibration burst; show or set the burst level", arguments: 1...2,
                                 changesState: { $0.first == "test" || $0.count > 1 }, persists: { $0.count > 1 }) { call throws(ConsoleFailure) in
            let c = call.state
            switch call[0] {
            case "test":
                guard call.count == 1 else { throw ConsoleFailure("unexpected '\(call[1])'") }
                c.testBurstRequested = true
                return ["audio test: one calibration burst (direct token \(ActionPerformer.testToken.hex), \"test\") at level \(level(c))"]
            case "level":
                if call.count == 2 {
                    guard let level = Int(call[1]), (0...100).contains(level) else { throw ConsoleFailure("level must be 0 to 100") }
                    c.encoder.amplitude = Float(level) / 100
                }
                return ["audio level \(level(c)) (peak amplitude of the bursts, % of full scale)"]
            default:
                throw ConsoleFailure("test or level")
            }
        },
        ConsoleCommandDescriptor("ble", completions: ["interval", "txpower"], usage: "ble interval [MS] | ble txpower [DBM]",
                                 summary: "show or set the advertising interval (20-10240 ms) and calibrated TX power (-100..20 dBm)",
                                 arguments: 1...2, changesState: { $0.count > 1 }, persists: { $0.count > 1 }) { call throws(ConsoleFailure) in
            let c = call.state
            switch call[0] {
            case "interval":
                if call.count == 2 {
                    guard let ms = Int(call[1]), (20...10_240).contains(ms) else { throw ConsoleFailure("interval must be 20 to 10240 ms") }
                    c.bleIntervalMilliseconds = ms
                }
                return ["ble interval \(c.bleIntervalMilliseconds) ms"]
            case "txpower":
                if call.count == 2 {
                    guard let dbm = Int(call[1]), (-100...20).contains(dbm) else { throw ConsoleFailure("txpower must be -100 to 20 dBm") }
                    c.txPower = Int8(dbm)
                }
                return ["ble txpower \(c.txPower) dBm (written into the frames from the next advertising change)"]
            default:
                throw ConsoleFailure("interval or txpower")
            }
        },
        ConsoleCommandDescriptor("sim", completions: ["fault"], usage: "sim fault [NAME on|off]",
                                 summary: "simulated board: make a driver fail as real hardware does (list the faults without arguments)",
                                 arguments: 1...3, changesState: { $0.count > 1 }, handler: simFault),
    ]

    private static func level(_ c: DaemonState) -> Int { Int((c.encoder.amplitude * 100).rounded()) }

    /// `sim fault NAME on|off`: switches a simulated driver's fault (sim board only). The
    /// driver fails at its next call, the way its real twin would; the loop then reports it.
    private static func simFault(_ call: ConsoleInvocation) throws(ConsoleFailure) -> [String] {
        let c = call.state
        guard call[0] == "fault" else { throw ConsoleFailure("fault, not '\(call[0])'") }
        guard let faults = c.faults else {
            throw ConsoleFailure("board \(c.board.name) is not the simulated board: faults are injected on --board sim only")
        }
        let names = SimulatedFault.allCases.map { $0.rawValue }.joined(separator: ", ")
        if call.count == 1 {
            let on = SimulatedFault.allCases.filter { faults.contains($0) }
            return ["faults on: " + (on.isEmpty ? "none" : on.map { $0.rawValue }.joined(separator: ", ")), "faults: \(names)"]
        }
        guard call.count == 3, call[2] == "on" || call[2] == "off" else { throw ConsoleFailure("sim fault NAME on|off") }
        guard let fault = SimulatedFault(rawValue: call[1]) else { throw ConsoleFailure("no fault '\(call[1])'; the faults: \(names)") }
        let changed = faults.set(fault, on: call[2] == "on")
        if changed { c.log("console: simulated fault \(fault) switched \(call[2])") }
        return ["sim fault \(fault) \(call[2])" + (changed ? "" : " (it already was)")]
    }
}
