import ArgumentParser
import CHubBuildStamp

/// `nearcast-hub`: serve the API, or manage projects, against one database.
@main
struct HubCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "nearcast-hub",
        abstract: "The Nearcast hub: turns heard tokens into the messages a box publishes.",
        discussion: "SQLite by default (nearcast-hub.sqlite in the working directory, made on first start); "
            + "PostgreSQL with --db postgres://USER@HOST/DATABASE for several instances.",
        version: String(cString: nearcast_hub_build_version()),
        subcommands: [Serve.self, ProjectCommand.self, DeckCommand.self, ReactionsCommand.self, ScheduleCommand.self])
}
