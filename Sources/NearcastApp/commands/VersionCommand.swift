import NearcastDrivers

/// `nearcast version`: the version and build ID, as the console's `version` prints them.
struct VersionCommand: RunnableCommand {
    static let node = CommandNode.command(
        "version", abstract: "Print the version (stamped by tools/package/release) and the binary's build ID.") { _ in VersionCommand() }

    func run() throws {
        StandardStreams.line(BuildInfo.versionLine)
    }
}
