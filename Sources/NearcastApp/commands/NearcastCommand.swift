import ArgumentParser
import NearcastCore

/// The `nearcast` command line: the daemon and the tools around it.
public struct NearcastCommand: ParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "nearcast",
        abstract: "Broadcasts rotating event tokens over near-ultrasonic audio and BLE.",
        discussion: """
            Start with the simulated board, which needs no hardware:
              nearcast run --board sim --duration 10
              nearcast decode sim-state/audio.wav
            """,
        version: BuildInfo.versionLine,
        subcommands: [RunCommand.self, ConsoleCommand.self, EncodeCommand.self, DecodeCommand.self, EIDCommand.self, BLEFrameCommand.self,
                      BoardsCommand.self, LEDsCommand.self, SelftestCommand.self, BenchCommand.self, VersionCommand.self])

    public init() {}
}

/// A command that could not do its job: one line for the user, exit status 1.
public struct CommandFailure: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

extension TokenKind: ExpressibleByArgument {}
