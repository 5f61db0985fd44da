import ArgumentParser
import Foundation
import NearcastHub
import NearcastHubStorage

/// `nearcast-hub project create|list|rotate-keys`.
struct ProjectCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "project", abstract: "Create and list projects, and rotate their keys.",
        subcommands: [Create.self, List.self, RotateKeys.self])

    struct RotateKeys: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "rotate-keys",
            abstract: "Replace a project's keys; prints {\"project\", \"apiKey\", \"secretKey\"} (the new ones, shown only now).",
            discussion: """
                The old keys are refused from then on: at once by every hub on a PostgreSQL database, within a \
                second by a hub on the same SQLite file. Use it when a key leaked (the public key is in every \
                audience address), and give the venue's pages and boxes the new one.
                """)

        @Argument(help: "The project.")
        var name: String

        @Option(name: .long, help: "Which keys: both (default), public or secret.")
        var only: ProjectKeys.Rotation = .both

        @OptionGroup var options: DatabaseOptions

        func run() async throws {
            let rotated = try await options.withDatabase(context: "project rotate-keys \(name): ") {
                try await ProjectStore(database: $0).rotate(name: name, only)
            }
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            print(String(decoding: try encoder.encode(rotated), as: UTF8.self))
        }
    }

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Create a project; prints {\"project\", \"apiKey\", \"secretKey\"} (the keys are shown only now).")

        @Argument(help: "The project's name: its namespace in NAME/TYPE (lowercase letters, digits, dashes).")
        var name: String

        @OptionGroup var options: DatabaseOptions

        func run() async throws {
            let created = try await options.withDatabase { try await ProjectStore(database: $0).create(name: name) }
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            print(String(decoding: try encoder.encode(created), as: UTF8.self))
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the projects' names.")

        @OptionGroup var options: DatabaseOptions

        func run() async throws {
            let database = try await options.open()
            let names = try await ProjectStore(database: database).names()
            await database.close()
            for name in names { print(name) }
        }
    }
}

extension ProjectKeys.Rotation: ExpressibleByArgument {}
