import NearcastCore

/// One console command as data: its name and the words Tab completes after it, its usage and
/// summary (for `help` and `-h`), how many arguments it takes (checked before it runs), whether
/// a line of it changes the box (and so needs the technician PIN) or changes the saved settings
/// (and so is saved straight after), and its handler. Each subsystem's commands live in a file
/// of their own, made with the box's parts they act on (``ConsoleCommands``); a
/// ``ConsoleInterpreter`` runs them.
struct ConsoleCommandDescriptor {
    let name: StaticString
    let completions: [StaticString]
    let usage: String
    let summary: String
    let arguments: ClosedRange<Int>
    let changesState: @Sendable ([String]) -> Bool
    let persists: @Sendable ([String]) -> Bool
    let handler: (ConsoleInvocation) throws(ConsoleFailure) -> [String]

    init(_ name: StaticString, completions: [StaticString] = [], usage: String, summary: String, arguments: ClosedRange<Int> = 0...0,
         changesState: @escaping @Sendable ([String]) -> Bool = { _ in false },
         persists: @escaping @Sendable ([String]) -> Bool = { _ in false },
         handler: @escaping (ConsoleInvocation) throws(ConsoleFailure) -> [String]) {
        self.name = name
        self.completions = completions
        self.usage = usage
        self.summary = summary
        self.arguments = arguments
        self.changesState = changesState
        self.persists = persists
        self.handler = handler
    }

    var nameText: String { "\(name)" }
}

/// What a handler gets: the words after the command's name and the session that typed the line
/// (for `login`, `pin` and `exit`); the parts of the box it acts on it was made with.
struct ConsoleInvocation {
    let arguments: [String]
    let session: ConsoleSession
    /// Every command of the console (for `help`).
    let commands: [ConsoleCommandDescriptor]

    /// The first argument, or nil.
    var first: String? { arguments.first }
    var count: Int { arguments.count }
    subscript(index: Int) -> String { arguments[index] }
}
