import ArgumentParser
import Foundation
import NearcastHub
import NearcastHubStorage

/// `nearcast-hub reactions show|set`.
struct ReactionsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reactions", abstract: "Show or set the reactions a project's audience may send.",
        subcommands: [Show.self, Set.self])

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Print the project's reactions as JSON.")

        @Option(name: .long, help: "The project.")
        var project: String

        @OptionGroup var options: DatabaseOptions

        func run() async throws {
            print(try await options.withDatabase { try await ReactionLibrary(database: $0).showJSON(project: project) })
        }
    }

    struct Set: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Set the project's reactions; prints them as JSON.",
            discussion: "Up to 12 emoji and 6 PNG images of at most 32 KiB each. What is not given is kept.")

        @Option(name: .long, help: "The project.")
        var project: String

        @Option(name: .long, help: "The emoji offered, comma-separated (\"👏,❤️,😂\").")
        var emoji: String?

        @Option(name: .long, help: "An image choice, NAME=FILE.png (repeat for several; given at all, it replaces the images).")
        var image: [String] = []

        @Flag(name: .long, help: "Switch reactions off.")
        var off = false

        @Flag(name: .long, help: "Switch reactions on.")
        var on = false

        @OptionGroup var options: DatabaseOptions

        func validate() throws {
            if off && on { throw ValidationError("--on and --off together: give one") }
            for spec in image where !spec.contains("=") { throw ValidationError("--image \(spec): use NAME=FILE.png") }
        }

        func run() async throws {
            let images = image.isEmpty ? nil : image.map { spec -> (name: String, file: String) in
                let parts = spec.split(separator: "=", maxSplits: 1)
                return (String(parts[0]), String(parts[1]))
            }
            let emojiList = emoji.map { $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty } }
            print(try await options.withDatabase {
                try await ReactionLibrary(database: $0).set(project: project, enabled: off ? false : (on ? true : nil),
                                                            emoji: emojiList, images: images)
            })
        }
    }
}
