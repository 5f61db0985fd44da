import NearcastCore
import NearcastDrivers
import NearcastNearby

/// Reading the box: `help`, `status`, `leds`, `log`, `board`, `version`.
enum StatusCommands {
    static let all: [ConsoleCommandDescriptor] = [
        ConsoleCommandDescriptor("help", usage: "help [COMMAND]", summary: "list the commands, or explain one", arguments: 0...1) { call throws(ConsoleFailure) in
            if let topic = call.first {
                guard let command = ConsoleInterpreter.command(named: topic) else { throw ConsoleFailure("no command '\(topic)'") }
                return ["usage: \(command.usage)", "  \(command.summary)"]
            }
            return ConsoleInterpreter.commands.map { Formatting.padRight($0.nameText, 14) + $0.summary }
                + ["Tab completes; up/down recall; Ctrl-A/E/K/U/W edit; COMMAND -h explains one."]
        },
        ConsoleCommandDescriptor("status", completions: ["--json"], usage: "status [--json]",
                                 summary: "mediums, mode, consent, publications, tokens, beacon time, drivers, problems, LEDs, uptime",
                                 arguments: 0...1) { call throws(ConsoleFailure) in
            if call.arguments == ["--json"] { return [StatusReport.json(call.state)] }
            if let word = call.first { throw ConsoleFailure("unexpected '\(word)'") }
            return StatusReport.lines(call.state)
        },
        ConsoleCommandDescriptor("leds", completions: ["test"], usage: "leds [test]", summary: "show each LED's pattern; walk them",
                                 arguments: 0...1, changesState: { $0.first == "test" }) { call throws(ConsoleFailure) in
            let c = call.state
            if call.arguments == ["test"] {
                c.panel.startWalk(atMilliseconds: c.nowMilliseconds)
                return ["leds test: " + StatusLED.allCases.map { $0.rawValue }.joined(separator: ", ")
                        + " each alone on for 1 s, then back to their patterns"
                        + (c.board.gpio.driver == .sim ? " (simulated GPIO: see leds.log in the state directory)" : "")]
            }
            if let word = call.first { throw ConsoleFailure("unexpected '\(word)'") }
            return c.ledPatterns.map { "\(Formatting.padRight($0.0, 8)) \($0.1)" }
        },
        ConsoleCommandDescriptor("log", usage: "log [N]", summary: "the last N log lines (default 20)", arguments: 0...1) { call throws(ConsoleFailure) in
            var count = 20
            if let first = call.first {
                guard let n = Int(first), n > 0 else { throw ConsoleFailure("N must be a positive number") }
                count = min(n, call.state.logRing.capacity)
            }
            return call.state.logRing.last(count)
        },
        ConsoleCommandDescriptor("board", usage: "board", summary: "the board file in use") { call throws(ConsoleFailure) in
            let b = call.state.board
            return ["\(b.name): \(b.description) (\(b.source))",
                    "audio out \(b.audioOutput.driver) \(b.audioOutput.device) \(b.audioOutput.rate) Hz period \(b.audioOutput.period)",
                    "bluetooth \(b.bluetooth.driver)" + (b.bluetooth.index.map { " hci\($0)" } ?? ""),
                    "gpio \(b.gpio.driver) chip \(b.gpio.chip), console \(b.console.tty) \(b.console.baud) baud"]
        },
        ConsoleCommandDescriptor("version", usage: "version", summary: "the build") { _ throws(ConsoleFailure) in
            [BuildInfo.versionLine]
        },
    ]
}
