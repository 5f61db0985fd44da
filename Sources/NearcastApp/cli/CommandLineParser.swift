/// Turns `argv` into the command to run, against a `CommandNode` tree.
///
/// The rules, which are those of most GNU and Swift tools: `--name value` or `--name=value`;
/// an option's value is the next argument whatever it looks like, except another `--option`
/// (so `--tx-power -12` works); flags take no value; `--` ends the options; `-h`/`--help`
/// anywhere asks for the help of the command named so far; `help [COMMAND...]` too; `--version`
/// at the top. Misspelt names get a suggestion.
struct CommandLineParser {
    /// What the command line asks for.
    enum Request {
        /// Run this command.
        case run(ParsedArguments, path: [CommandNode])
        /// Print the help of the node at this path.
        case help(path: [CommandNode])
        /// Print the version.
        case version
    }

    /// A `UsageError` with the path of the command it belongs to, so its usage can be shown.
    struct Failure: Error {
        let error: UsageError
        let path: [CommandNode]
    }

    let root: CommandNode

    func parse(_ arguments: [String]) throws(Failure) -> Request {
        var path = [root]
        var remaining = arguments[...]

        // Walk down the groups: each argument names a subcommand until a command is reached.
        if remaining.first == "help" {
            remaining.removeFirst()
            for name in remaining {
                guard let next = path.last!.subcommand(named: name) else {
                    throw Failure(error: unknownCommand(name, in: path.last!), path: path)
                }
                path.append(next)
            }
            return .help(path: path)
        }
        while !path.last!.subcommands.isEmpty {
            let group = path.last!
            guard let first = remaining.first else {
                if let name = group.defaultSubcommand, let next = group.subcommand(named: name) {
                    path.append(next)
                    break
                }
                return .help(path: path)
            }
            if first == "-h" || first == "--help" { return .help(path: path) }
            if first == "--version" && path.count == 1 { return .version }
            if let next = group.subcommand(named: first) {
                remaining.removeFirst()
                path.append(next)
            } else if first.hasPrefix("-"), let name = group.defaultSubcommand, let next = group.subcommand(named: name) {
                path.append(next)   // `boards --something` belongs to the default subcommand
            } else {
                throw Failure(error: first.hasPrefix("-") ? UsageError("unknown option '\(first)'") : unknownCommand(first, in: group),
                              path: path)
            }
        }

        let node = path.last!
        var parsed = ParsedArguments(commandPath: Self.commandPath(path), accepted: node.arguments)
        var positionals: [String] = []
        var optionsEnded = false
        while let argument = remaining.popFirst() {
            if optionsEnded || !argument.hasPrefix("-") || argument == "-" || Double(argument) != nil {
                positionals.append(argument)
                continue
            }
            if argument == "--" { optionsEnded = true; continue }
            if argument == "-h" || argument == "--help" { return .help(path: path) }
            guard argument.hasPrefix("--") else {
                throw Failure(error: UsageError("unknown option '\(argument)' (options are written --name)"), path: path)
            }
            let body = argument.dropFirst(2)
            let name: String, inlineValue: String?
            if let equals = body.firstIndex(of: "=") {
                name = String(body[..<equals])
                inlineValue = String(body[body.index(after: equals)...])
            } else {
                name = String(body)
                inlineValue = nil
            }
            guard let spec = node.argument(named: name) else {
                throw Failure(error: unknownOption(name, in: node), path: path)
            }
            switch spec.kind {
            case .flag:
                if inlineValue != nil { throw Failure(error: UsageError("--\(name) is a flag and takes no value"), path: path) }
                parsed.flags.insert(name)
            case .option, .repeatedOption:
                let value: String
                if let inlineValue {
                    value = inlineValue
                } else if let next = remaining.first, !next.hasPrefix("--") {
                    value = next
                    remaining.removeFirst()
                } else {
                    throw Failure(error: UsageError("--\(name) needs a value (\(spec.synopsis))"), path: path)
                }
                if spec.kind == .option && parsed.values[name] != nil {
                    throw Failure(error: UsageError("--\(name) given more than once"), path: path)
                }
                parsed.values[name, default: []].append(value)
            case .positional:
                preconditionFailure("argument(named:) returns options only")
            }
        }

        let expected = node.arguments.filter { $0.kind == .positional }
        if positionals.count > expected.count {
            let extra = positionals[expected.count]
            throw Failure(error: UsageError(expected.isEmpty ? "unexpected argument '\(extra)' (\(Self.commandPath(path)) takes none)"
                                                             : "unexpected argument '\(extra)'"), path: path)
        }
        for (spec, value) in zip(expected, positionals) { parsed.values[spec.name] = [value] }
        for spec in node.arguments where spec.isRequired && parsed.values[spec.name] == nil {
            throw Failure(error: UsageError("missing \(spec.synopsis): \(spec.help)"), path: path)
        }
        return .run(parsed, path: path)
    }

    static func commandPath(_ path: [CommandNode]) -> String { path.map(\.name).joined(separator: " ") }

    private func unknownCommand(_ name: String, in group: CommandNode) -> UsageError {
        let names = group.subcommands.map(\.name)
        let hint = Self.closest(to: name, among: names).map { " (did you mean '\($0)'?)" } ?? ""
        return UsageError("unknown command '\(name)'\(hint); commands: \(names.joined(separator: ", "))")
    }

    private func unknownOption(_ name: String, in node: CommandNode) -> UsageError {
        let names = node.arguments.filter { $0.kind != .positional }.map(\.name)
        let hint = Self.closest(to: name, among: names).map { " (did you mean '--\($0)'?)" } ?? ""
        return UsageError("unknown option '--\(name)'\(hint)")
    }

    /// The candidate within two edits of `name` (Levenshtein), if there is one.
    static func closest(to name: String, among candidates: [String]) -> String? {
        let target = Array(name.utf8)
        var best: (name: String, distance: Int)?
        for candidate in candidates {
            let distance = editDistance(target, Array(candidate.utf8))
            if distance <= 2 && distance < (best?.distance ?? .max) { best = (candidate, distance) }
        }
        return best?.name
    }

    private static func editDistance(_ a: [UInt8], _ b: [UInt8]) -> Int {
        var previous = Array(0...b.count)
        for (i, x) in a.enumerated() {
            var current = [i + 1] + Array(repeating: 0, count: b.count)
            for (j, y) in b.enumerated() {
                current[j + 1] = min(previous[j + 1] + 1, current[j] + 1, previous[j] + (x == y ? 0 : 1))
            }
            previous = current
        }
        return previous[b.count]
    }
}
