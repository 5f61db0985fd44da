import XCTest
@testable import NearcastApp
import NearcastCore

/// The command-line parser against a small tree of its own, and the real tree's help.
final class CommandLineParserTests: XCTestCase {
    private struct Noop: RunnableCommand { func run() throws {} }

    private let tree = CommandNode.group("tool", abstract: "A test tool.", subcommands: [
        .command("go", abstract: "Go somewhere.", arguments: [
            .option("board", help: "Board."),
            .option("power", help: "Power, dBm."),
            .option("count", required: true, help: "How many."),
            .repeated("publish", value: "spec", help: "A publication."),
            .flag("json", help: "JSON."),
            .positional("file", help: "The file."),
        ]) { _ in Noop() },
        .group("boards", abstract: "Boards.", subcommands: [
            .command("list", abstract: "List.") { _ in Noop() },
            .command("check", abstract: "Check.", arguments: [.positional("file", help: "File.")]) { _ in Noop() },
        ], default: "list"),
    ])

    private func parsed(_ arguments: [String]) throws -> ParsedArguments {
        guard case .run(let parsed, _) = try CommandLineParser(root: tree).parse(arguments) else {
            XCTFail("\(arguments) did not parse to a command")
            throw UsageError("not a command")
        }
        return parsed
    }

    private func failure(_ arguments: [String]) -> String {
        do {
            _ = try CommandLineParser(root: tree).parse(arguments)
            XCTFail("\(arguments) parsed")
            return ""
        } catch {
            return error.error.description
        }
    }

    func testOptionsFlagsRepeatsAndPositionals() throws {
        let p = try parsed(["go", "--board=rpi4b", "--power", "-12", "--count", "3", "--publish", "a", "in.wav", "--publish=b", "--json"])
        XCTAssertEqual(p.commandPath, "tool go")
        XCTAssertEqual(try p.value("board", as: String.self), "rpi4b")
        XCTAssertEqual(try p.value("power", as: Int.self), -12, "a negative number is a value, not an option")
        XCTAssertEqual(try p.required("count", as: Int.self), 3)
        XCTAssertEqual(try p.values("publish", as: String.self), ["a", "b"])
        XCTAssertEqual(try p.required("file", as: String.self), "in.wav")
        XCTAssertTrue(p.flag("json"))
        XCTAssertNil(try parsed(["go", "x", "--count", "1"]).value("board", as: String.self))
    }

    func testDoubleDashEndsTheOptionsAndDefaultsApply() throws {
        let p = try parsed(["go", "--count", "1", "--", "--json"])
        XCTAssertEqual(try p.required("file", as: String.self), "--json")
        XCTAssertFalse(p.flag("json"))
        XCTAssertEqual(try p.value("board", default: "sim"), "sim")
        XCTAssertEqual(try p.values("publish", as: String.self), [])
    }

    func testEachMistakeIsNamed() {
        XCTAssertEqual(failure(["go", "--bord", "x"]), "unknown option '--bord' (did you mean '--board'?)")
        XCTAssertEqual(failure(["go", "--zzzzzz"]), "unknown option '--zzzzzz'")
        XCTAssertEqual(failure(["go", "f", "--count"]), "--count needs a value (--count <count>)")
        XCTAssertEqual(failure(["go", "f", "--count", "--json"]), "--count needs a value (--count <count>)")
        XCTAssertEqual(failure(["go", "f", "--count", "1", "--count", "2"]), "--count given more than once")
        XCTAssertEqual(failure(["go", "f", "--count", "1", "--json=yes"]), "--json is a flag and takes no value")
        XCTAssertEqual(failure(["go", "f", "g", "--count", "1"]), "unexpected argument 'g'")
        XCTAssertEqual(failure(["go", "f"]), "missing --count <count>: How many.")
        XCTAssertEqual(failure(["go", "--count", "1"]), "missing <file>: The file.")
        XCTAssertEqual(failure(["go", "-x"]), "unknown option '-x' (options are written --name)")
        XCTAssertEqual(failure(["og"]), "unknown command 'og' (did you mean 'go'?); commands: go, boards")
        XCTAssertEqual(failure(["boards", "list", "extra"]), "unexpected argument 'extra' (tool boards list takes none)")
        XCTAssertEqual(failure(["help", "boards", "chek"]), "unknown command 'chek' (did you mean 'check'?); commands: list, check")
    }

    func testValuesThatDoNotConvertNameTheOptionAndTheText() throws {
        let p = try parsed(["go", "f", "--count", "three"])
        XCTAssertThrowsError(try p.required("count", as: Int.self)) { error in
            XCTAssertEqual(error as? UsageError, UsageError("--count 'three': expected an integer"))
        }
        let kind = try parsed(["go", "f", "--count", "1", "--board", "radio"])
        XCTAssertThrowsError(try kind.value("board", as: TokenKind.self)) { error in
            XCTAssertEqual(error as? UsageError, UsageError("--board 'radio': expected direct or eid"))
        }
    }

    func testGroupsHelpAndVersion() throws {
        XCTAssertEqual(try parsed(["boards"]).commandPath, "tool boards list", "a group's default subcommand")
        XCTAssertEqual(try parsed(["boards", "check", "x.json5"]).commandPath, "tool boards check")
        let parser = CommandLineParser(root: tree)
        guard case .help(let path) = try parser.parse(["go", "--count", "1", "--help"]) else { return XCTFail("no help") }
        XCTAssertEqual(path.map(\.name), ["tool", "go"])
        guard case .help(let helpPath) = try parser.parse(["help", "boards", "check"]) else { return XCTFail("no help") }
        XCTAssertEqual(helpPath.map(\.name), ["tool", "boards", "check"])
        guard case .help(let bare) = try parser.parse([]) else { return XCTFail("a bare group shows its help") }
        XCTAssertEqual(bare.map(\.name), ["tool"])
        guard case .version = try parser.parse(["--version"]) else { return XCTFail("no version") }
    }

    /// Every option of every real command appears in its help, and no line of any help is
    /// wider than 80 columns, so the help a technician reads on a serial terminal stays whole.
    func testTheRealTreesHelpNamesEveryOptionWithin80Columns() {
        func visit(_ path: [CommandNode]) {
            let node = path.last!
            let help = HelpText.help(for: path)
            for spec in node.arguments { XCTAssertTrue(help.contains(spec.synopsis), "\(spec.synopsis) missing from help of \(path.map(\.name))") }
            for sub in node.subcommands {
                XCTAssertTrue(help.contains("  " + sub.name), "\(sub.name) missing")
                visit(path + [sub])
            }
            for line in help.split(separator: "\n") where line.count > 80 && !line.hasPrefix("  nearcast ") {
                XCTFail("\(path.map(\.name)): help line of \(line.count) columns: \(line)")
            }
        }
        visit([NearcastCommand.tree])
    }

    func testExitStatusOfTheRealCommandLine() {
        XCTAssertEqual(NearcastCommand.run(["run", "--interval", "0.1"]), 64, "a value out of range is a usage error")
        XCTAssertEqual(NearcastCommand.run(["frobnicate"]), 64)
        XCTAssertEqual(NearcastCommand.run(["eid", "--key", "00", "--exponent", "1", "--time", "1"]), 1, "a key of the wrong size is a failure")
        XCTAssertEqual(NearcastCommand.run(["eid", "--key", "a2c873f26ebae374d9f7efbcd922ca1c", "--exponent", "9", "--time", "1"]), 0)
    }
}
