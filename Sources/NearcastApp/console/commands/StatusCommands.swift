import NearcastCore
import NearcastDrivers
import NearcastNearby

/// Reading the box: `help`, `status`, `leds`, `log`, `board`, `version`. `status` is the one
/// view of every part of the box.
enum StatusCommands {
    static func commands(_ box: Box) -> [ConsoleCommandDescriptor] { [
        ConsoleCommandDescriptor("help", usage: "help [COMMAND]", summary: "list the commands, or explain one", arguments: 0...1) { call throws(ConsoleFailure) in
            if let topic = call.first {
                guard let command = call.commands.first(where: { $0.nameText == topic }) else { throw ConsoleFailure("no command '\(topic)'") }
                return ["usage: \(command.usage)", "  \(command.summary)"]
            }
            return call.commands.map { Formatting.padRight($0.nameText, 14) + $0.summary }
                + ["Tab completes; up/down recall; Ctrl-A/E/K/U/W edit; COMMAND -h explains one."]
        },
        ConsoleCommandDescriptor("status", completions: ["--json"], usage: "status [--json]",
                                 summary: "mediums, mode, consent, publications, tokens, beacon time, drivers, problems, LEDs, uptime",
                                 arguments: 0...1) { call throws(ConsoleFailure) in
            if call.arguments == ["--json"] { return [StatusReport.json(box)] }
            if let word = call.first { throw ConsoleFailure("unexpected '\(word)'") }
            return StatusReport.lines(box)
        },
        ConsoleCommandDescriptor("leds", completions: ["test"], usage: "leds [test]", summary: "show each LED's pattern; walk them",
                                 arguments: 0...1, changesState: { $0.first == "test" }) { call throws(ConsoleFailure) in
            if call.arguments == ["test"] {
                box.lights.startWalk(atMilliseconds: box.progress.nowMilliseconds)
                return ["leds test: " + StatusLED.allCases.map { $0.rawValue }.joined(separator: ", ")
                        + " each alone on for 1 s, then back to their patterns"
                        + (box.board.gpio.driver == .sim ? " (simulated GPIO: see leds.log in the state directory)" : "")]
            }
            if let word = call.first { throw ConsoleFailure("unexpected '\(word)'") }
            return box.lights.patterns.map { "\(Formatting.padRight($0.0, 8)) \($0.1)" }
        },
        ConsoleCommandDescriptor("log", usage: "log [N]", summary: "the last N log lines (default 20)", arguments: 0...1) { call throws(ConsoleFailure) in
            var count = 20
            if let first = call.first {
                guard let n = Int(first), n > 0 else { throw ConsoleFailure("N must be a positive number") }
                count = min(n, box.logRing.capacity)
            }
            return box.logRing.last(count)
        },
        ConsoleCommandDescriptor("board", usage: "board", summary: "the board file in use") { call throws(ConsoleFailure) in
            let b = box.board
            return ["\(b.name): \(b.description) (\(b.source))",
                    "audio out \(b.audioOutput.driver) \(b.audioOutput.device) \(b.audioOutput.rate) Hz period \(b.audioOutput.period)",
                    "bluetooth \(b.bluetooth.driver)" + (b.bluetooth.index.map { " hci\($0)" } ?? ""),
                    "gpio \(b.gpio.driver) chip \(b.gpio.chip), console \(b.console.tty) \(b.console.baud) baud"]
        },
        ConsoleCommandDescriptor("version", usage: "version", summary: "the build") { _ throws(ConsoleFailure) in
            [BuildInfo.versionLine]
        },
    ] }
}
