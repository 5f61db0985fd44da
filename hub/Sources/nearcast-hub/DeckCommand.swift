import ArgumentParser
import Foundation
import NearcastHub
import NearcastHubStorage

/// `nearcast-hub deck add|list|remove`.
struct DeckCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "deck", abstract: "Add, list and remove a project's decks (PDF slides for Present).",
        subcommands: [Add.self, List.self, Remove.self])

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Render a PDF's pages and store it as a deck; prints {\"deck\": \"ID\", \"pages\": N}.",
            discussion: "Limits: 50 MB, 300 pages, 120 s of rendering and 200 MB of page images a project "
                + "(the config file's decks object sets the last two); an encrypted PDF is refused.")

        @Argument(help: "The PDF file.")
        var file: String

        @Option(name: .long, help: "The project the deck belongs to.")
        var project: String

        @Option(name: .long, help: "The deck's title (default: the file's name).")
        var title: String?

        @OptionGroup var options: DatabaseOptions

        func run() async throws {
            let created = try await options.withDatabase(context: "deck add \(file): ") {
                try await DeckLibrary(database: $0, limits: options.configFile().decks ?? DeckLimits())
                    .add(file: file, project: project, title: title)
            }
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            print(String(decoding: try encoder.encode(created), as: UTF8.self))
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List a project's decks as JSON ({\"decks\": [...]}, newest first).")

        @Option(name: .long, help: "The project.")
        var project: String

        @OptionGroup var options: DatabaseOptions

        func run() async throws {
            print(try await options.withDatabase { try await DeckLibrary(database: $0).listJSON(project: project) })
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove a deck (and end any show of it).")

        @Argument(help: "The deck's id.")
        var deck: String

        @Option(name: .long, help: "The project.")
        var project: String

        @OptionGroup var options: DatabaseOptions

        func run() async throws {
            try await options.withDatabase { try await DeckLibrary(database: $0).remove(deckID: deck, project: project) }
        }
    }
}
