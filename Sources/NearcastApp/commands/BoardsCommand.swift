import NearcastCore
import NearcastDrivers

/// `nearcast boards`: list the known boards, or check one board file.
enum BoardsCommand {
    static let node = CommandNode.group("boards", abstract: "List the known boards, or check a board file.",
                                        subcommands: [List.node, Check.node], default: "list")

    struct List: RunnableCommand {
        static let node = CommandNode.command("list", abstract: "List the known boards.") { _ in List() }

        func run() throws {
            var seen: Set<String> = []
            var invalid = 0
            for directory in BoardLoader.searchPath() {
                for name in BoardLoader.boardNames(in: directory) where seen.insert(name).inserted {
                    do {
                        let board = try BoardLoader.load("\(directory)/\(name).json5")
                        StandardStreams.line("\(Formatting.padRight(board.name, 8))  \(board.description)  (\(board.source))")
                    } catch {
                        invalid += 1
                        StandardStreams.line("\(Formatting.padRight(name, 8))  INVALID: \(error)")
                    }
                }
            }
            if seen.isEmpty { throw CommandFailure("no board files found (searched \(BoardLoader.searchPath()))") }
            if invalid > 0 { throw CommandFailure("\(invalid) board file\(invalid == 1 ? " is" : "s are") invalid") }
        }
    }

    struct Check: RunnableCommand {
        static let node = CommandNode.command(
            "check", abstract: "Validate a board file.",
            arguments: [.positional("file", help: "The board file (or a board name).")]) { arguments throws(UsageError) in
                Check(file: try arguments.required("file"))
            }

        let file: String

        func run() throws {
            do {
                let board = try BoardLoader.load(file)
                StandardStreams.line("\(board.source): ok (\(board.name): \(board.description))")
            } catch {
                throw CommandFailure("\(error)")
            }
        }
    }
}
