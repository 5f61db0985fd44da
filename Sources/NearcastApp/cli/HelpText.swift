/// The help and usage text, written from the command tree so it cannot drift from what the
/// parser accepts.
enum HelpText {
    static let width = 80

    /// `--help` for the node at the end of `path`.
    static func help(for path: [CommandNode]) -> String {
        let node = path.last!
        var lines: [String] = []
        lines.append(contentsOf: wrap("OVERVIEW: " + node.abstract, indent: 0, hanging: 2))
        if !node.discussion.isEmpty {
            lines.append("")
            for paragraph in node.discussion.split(separator: "\n", omittingEmptySubsequences: false) {
                // Lines that start with spaces are examples: keep them as written.
                if paragraph.hasPrefix(" ") { lines.append(String(paragraph)) } else { lines += wrap(String(paragraph), indent: 0, hanging: 0) }
            }
        }
        lines.append("")
        lines.append("USAGE: " + usage(for: path))
        if !node.subcommands.isEmpty {
            lines.append("")
            lines.append("COMMANDS:")
            for sub in node.subcommands {
                let name = sub.name + (sub.name == node.defaultSubcommand ? " (default)" : "")
                lines += column(name, sub.abstract)
            }
            lines.append("")
            let below = path.dropFirst().map(\.name).joined(separator: " ")
            lines.append("  See '\(path[0].name) help \(below.isEmpty ? "" : below + " ")<command>' for one command's options.")
        }
        let positionals = node.arguments.filter { $0.kind == .positional }
        if !positionals.isEmpty {
            lines.append("")
            lines.append("ARGUMENTS:")
            for spec in positionals { lines += column(spec.synopsis, spec.help) }
        }
        lines.append("")
        lines.append("OPTIONS:")
        for spec in node.arguments where spec.kind != .positional {
            let suffix = spec.kind == .repeatedOption ? " (repeatable)" : spec.isRequired ? " (required)" : ""
            lines += column(spec.synopsis, spec.help + suffix)
        }
        if path.count == 1 { lines += column("--version", "Show the version and build ID.") }
        lines += column("-h, --help", "Show this help.")
        return lines.joined(separator: "\n")
    }

    /// The one-line synopsis: `nearcast run [--board <board>] ...` for a command,
    /// `nearcast bench <command>` for a group.
    static func usage(for path: [CommandNode]) -> String {
        let node = path.last!
        var words = [CommandLineParser.commandPath(path)]
        if !node.subcommands.isEmpty {
            words.append(node.defaultSubcommand == nil ? "<command>" : "[<command>]")
        }
        for spec in node.arguments {
            switch spec.kind {
            case .positional: words.append(spec.synopsis)
            case .repeatedOption: words.append("[\(spec.synopsis) ...]")
            case .option where spec.isRequired: words.append(spec.synopsis)
            case .option, .flag: words.append("[\(spec.synopsis)]")
            }
        }
        // Wrapped as if "USAGE: " (7 columns) stood before the first line, as it does in help.
        let lines = wrap(words, indent: 7, hanging: 7)
        return ([String(lines[0].dropFirst(7))] + lines.dropFirst()).joined(separator: "\n")
    }

    /// Two columns: the name, then its text wrapped at `width`.
    private static func column(_ name: String, _ text: String) -> [String] {
        let textColumn = 28
        let head = "  " + name
        let body = wrap(text, indent: textColumn, hanging: textColumn)
        if head.count + 2 <= textColumn {
            var first = body[0]
            first.replaceSubrange(first.startIndex..<first.index(first.startIndex, offsetBy: head.count), with: head)
            return [first] + body.dropFirst()
        }
        return [head] + body
    }

    /// Words of `text` in lines of at most `width` characters; the first line indented by
    /// `indent` spaces, the rest by `hanging`.
    static func wrap(_ text: String, indent: Int, hanging: Int) -> [String] {
        wrap(text.split(separator: " ").map(String.init), indent: indent, hanging: hanging)
    }

    /// Units (words, or a whole `[--option <value>]` that must not break) in lines of at most
    /// `width` characters.
    static func wrap(_ units: [String], indent: Int, hanging: Int) -> [String] {
        var lines: [String] = []
        var line = String(repeating: " ", count: indent)
        var lineHasWord = false
        for word in units {
            if lineHasWord && line.count + 1 + word.count > width {
                lines.append(line)
                line = String(repeating: " ", count: hanging)
                lineHasWord = false
            }
            line += (lineHasWord ? " " : "") + word
            lineHasWord = true
        }
        lines.append(line)
        return lines
    }
}
