import NearcastCore
import NearcastDrivers

/// `nearcast leds test`: walks a board's status LEDs so a hardware tester can see each one.
enum LEDsCommand {
    static let node = CommandNode.group("leds", abstract: "Check a board's status LEDs.", subcommands: [Test.node])

    struct Test: RunnableCommand {
        static let node = CommandNode.command(
            "test",
            abstract: "Light each status LED alone, in table order (status, audio, ble, consent).",
            discussion: "Stop the daemon first: a GPIO line has one owner, and a held line gives 'Device or resource busy'.",
            arguments: [
                .option("board", value: "name-or-file", help: "Board name or board file path (default: sim)."),
                .option("step", value: "seconds", help: "Seconds each LED stays lit (default 1)."),
                .option("state-dir", value: "dir", help: "State directory (the sim board records the LEDs in leds.log there; default ./sim-state)."),
            ],
            make: Test.init)

        let board: String
        let step: Double
        let stateDir: String

        init(_ arguments: ParsedArguments) throws(UsageError) {
            board = try arguments.value("board", default: "sim")
            step = try arguments.value("step", default: 1)
            stateDir = try arguments.value("state-dir", default: "sim-state")
            guard step.isFinite && step >= 0.05 && step <= 60 else {
                throw UsageError("--step \(step): use 0.05 to 60 seconds")
            }
        }

        func run() throws {
            let loaded: Board
            do { loaded = try BoardLoader.load(board) } catch { throw CommandFailure("\(error)") }
            let clock = StreamClock()
            let (leds, description) = try Devices.openLEDs(loaded, state: try StateDirectory(path: stateDir), clock: clock)
            defer { leds.release() }
            StandardStreams.line("leds on \(loaded.name): \(description)")
            do {
                try LEDWalk.run(leds, step: step, clock: clock) { led in
                    StandardStreams.line("\(Formatting.padRight(led.rawValue, 8)) on" + (loaded.leds[led].map { " (line \($0.line))" } ?? ""))
                }
            } catch {
                throw CommandFailure("\(loaded.source): leds.\(error.led.rawValue): \(error.error)")
            }
            StandardStreams.line("all \(StatusLED.count) LEDs walked; each should have lit alone for \(Formatting.fixed(step, decimals: 2)) s")
        }
    }
}
