import NearcastDrivers

/// `nearcast console`: attaches this terminal to the running daemon's console.
struct ConsoleCommand: RunnableCommand {
    static let node = CommandNode.command(
        "console",
        abstract: "Attach to the running daemon's technician console (on the box itself).",
        discussion: """
            Connects to <state-dir>/console.sock. Type exit or press Ctrl-D to leave; the daemon keeps running.

            With standard input not a terminal (a pipe, a file), each input line is one command and only the replies are printed, a failed line's on standard error after 'line N: '; the exit status is 1 if any line failed.
            """,
        arguments: [
            .option("state-dir", value: "dir",
                    help: "The daemon's state directory. Default: $STATE_DIRECTORY, else ./sim-state if it exists, else /var/lib/nearcast."),
        ]) { arguments throws(UsageError) in ConsoleCommand(stateDir: try arguments.value("state-dir")) }

    let stateDir: String?

    func run() throws {
        let directory = stateDir ?? FileSystem.environment("STATE_DIRECTORY")
            ?? (FileSystem.isDirectory("sim-state") ? "sim-state" : "/var/lib/nearcast")
        let path = "\(directory)/console.sock"
        let socket: Int32
        do { socket = try ConsoleSocketServer.connect(path: path) } catch {
            throw CommandFailure("\(path): cannot attach: \(error.message) (is the daemon running with this state directory?)")
        }
        guard !TerminalPort.standardInputIsTerminal else {
            do { try ConsoleRelay.run(socket: socket) } catch {
                throw CommandFailure("console: \(error)")
            }
            return
        }
        // A script: the replies only, a failed line's on stderr, and the exit status says
        // whether every line succeeded.
        let outcome: ConsoleScriptClient.Outcome
        do { outcome = try ConsoleScriptClient.run(socket: socket) } catch {
            throw CommandFailure("console: \(error)")
        }
        if let reason = outcome.cutShort { throw CommandFailure("console: \(reason)") }
        if outcome.failed > 0 { throw ExitStatus(code: 1) }
    }
}
