import ArgumentParser
import NearcastDrivers

/// `nearcast version`: the version and build ID, as the console's `version` prints them.
struct VersionCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "version",
        abstract: "Print the version (stamped by tools/release) and the binary's build ID.")

    func run() throws {
        StandardStreams.line(BuildInfo.versionLine)
    }
}
