/// A command that does something once its arguments are parsed.
protocol RunnableCommand {
    func run() throws
}

/// A node of the command tree: a command that runs, or a group of subcommands (`bench modem`,
/// `boards list`). The tree is the whole command line's definition: the parser walks it, and
/// the help is written from it.
struct CommandNode: Sendable {
    let name: String
    /// One line: what the command does.
    let abstract: String
    /// More paragraphs for `--help`.
    let discussion: String
    let arguments: [ArgumentSpec]
    let subcommands: [CommandNode]
    /// The subcommand run when a group is named alone (`boards` = `boards list`).
    let defaultSubcommand: String?
    /// Builds the command from its parsed arguments; it throws `UsageError` for values that
    /// parse but make no sense (`--interval 0.1`). Nil for a group.
    let make: (@Sendable (ParsedArguments) throws -> any RunnableCommand)?

    /// A command that runs.
    static func command(_ name: String, abstract: String, discussion: String = "", arguments: [ArgumentSpec] = [],
                        make: @escaping @Sendable (ParsedArguments) throws -> any RunnableCommand) -> CommandNode {
        CommandNode(name: name, abstract: abstract, discussion: discussion, arguments: arguments, subcommands: [],
                    defaultSubcommand: nil, make: make)
    }

    /// A group of subcommands.
    static func group(_ name: String, abstract: String, discussion: String = "", subcommands: [CommandNode],
                      default defaultSubcommand: String? = nil) -> CommandNode {
        CommandNode(name: name, abstract: abstract, discussion: discussion, arguments: [], subcommands: subcommands,
                    defaultSubcommand: defaultSubcommand, make: nil)
    }

    func subcommand(named name: String) -> CommandNode? { subcommands.first { $0.name == name } }

    func argument(named name: String) -> ArgumentSpec? { arguments.first { $0.name == name && $0.kind != .positional } }
}
