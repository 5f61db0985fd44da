import NearcastCore
import NearcastDrivers

/// The `nearcast` command line: the daemon and the tools around it.
public enum NearcastCommand {
    /// Every command, as the parser and the help see them.
    static let tree = CommandNode.group(
        "nearcast",
        abstract: "Broadcasts rotating event tokens over near-ultrasonic audio and BLE.",
        discussion: """
            Start with the simulated board, which needs no hardware:
              nearcast run --board sim --duration 10
              nearcast decode sim-state/audio.wav
            """,
        subcommands: [RunCommand.node, ConsoleCommand.node, EncodeCommand.node, DecodeCommand.node, CheckCommand.node, EIDCommand.node, HubIdentityCommand.node,
                      BLEFrameCommand.node, BoardsCommand.node, LEDsCommand.node, SelftestCommand.node, BenchCommand.node,
                      VersionCommand.node])

    /// Parses `CommandLine.arguments`, runs the command and exits: 0 on success, 1 when the
    /// command failed, 64 (EX_USAGE) when the command line was wrong.
    public static func main() -> Never {
        CurrentProcess.exit(status: run(Array(CommandLine.arguments.dropFirst())))
    }

    /// Runs one command line and returns the exit status.
    static func run(_ arguments: [String]) -> Int32 {
        let request: CommandLineParser.Request
        do {
            request = try CommandLineParser(root: tree).parse(arguments)
        } catch {
            return usageFailure(error.error, path: error.path)
        }
        switch request {
        case .help(let path):
            StandardStreams.line(HelpText.help(for: path))
            return 0
        case .version:
            StandardStreams.line(BuildInfo.versionLine)
            return 0
        case .run(let parsed, let path):
            guard let make = path.last?.make else { return usageFailure(UsageError("a command is needed"), path: path) }
            do {
                try make(parsed).run()
                return 0
            } catch let error as UsageError {
                return usageFailure(error, path: path)
            } catch let status as ExitStatus {
                return status.code
            } catch {
                StandardStreams.error("error: \(error)")
                return 1
            }
        }
    }

    private static func usageFailure(_ error: UsageError, path: [CommandNode]) -> Int32 {
        let command = CommandLineParser.commandPath(path)
        StandardStreams.error("\(command): error: \(error)")
        StandardStreams.error("See '\(command) --help' for the options.")
        return 64
    }
}
