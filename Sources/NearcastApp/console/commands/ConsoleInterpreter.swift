import NearcastCore

/// Runs console lines: finds the command, answers `-h`, logs an idle session out, asks for the
/// technician PIN before a line that changes the box, checks the argument count, runs the
/// handler, and saves the settings after a line that changed them.
final class ConsoleInterpreter {
    /// Every command, in the order `help` lists them.
    let commands: [ConsoleCommandDescriptor]
    /// The completion table for the line editor.
    let table: CommandTable
    private let pin: TechnicianPIN
    private let progress: LoopProgress
    private let settings: SettingsKeeper

    init(commands: [ConsoleCommandDescriptor], pin: TechnicianPIN, progress: LoopProgress, settings: SettingsKeeper) {
        self.commands = commands
        table = CommandTable(commands.map { CommandTable.Entry($0.name, $0.completions) })
        self.pin = pin
        self.progress = progress
        self.settings = settings
    }

    /// The box's console: every subsystem's commands over `box`'s parts.
    convenience init(box: Box) {
        self.init(commands: ConsoleCommands.all(for: box), pin: box.pin, progress: box.progress, settings: box.settings)
    }

    func command(named name: String) -> ConsoleCommandDescriptor? {
        commands.first { $0.nameText == name }
    }

    /// Runs one line; returns what to print and whether the line failed.
    func run(_ line: String, session: ConsoleSession) -> ConsoleReply {
        let words = line.split(separator: " ").map(String.init)
        guard let name = words.first else { return ConsoleReply([]) }
        guard let command = command(named: name) else {
            return ConsoleReply(failed: ["error: unknown command '\(name)'; type help"])
        }
        let arguments = Array(words.dropFirst())
        if arguments.contains("-h") || arguments.contains("--help") {
            return ConsoleReply(["usage: \(command.usage)", "  \(command.summary)"])
        }
        var notes: [String] = []
        let now = progress.nowMilliseconds
        if session.loggedIn && now - session.lastCommandAt > ConsoleSession.idleLogout {
            session.loggedIn = false
            notes.append("logged out: \(ConsoleSession.idleLogout / 60_000) minutes without a command")
        }
        session.lastCommandAt = now
        if pin.isSet && !session.loggedIn && command.changesState(arguments) {
            return ConsoleReply(failed: notes + ["error: '\(name)' changes the box and needs the technician PIN: type login"])
        }
        guard command.arguments.contains(arguments.count) else {
            let extra = arguments.count > command.arguments.upperBound ? "unexpected '\(arguments[command.arguments.upperBound])'"
                : "missing arguments"
            return ConsoleReply(failed: notes + ["error: \(extra)", "usage: \(command.usage)"])
        }
        do {
            let reply = try command.handler(ConsoleInvocation(arguments: arguments, session: session, commands: commands))
            // What a technician changes survives a power cut: the settings are saved at once.
            if command.persists(arguments), let warning = settings.persist() { notes.append(warning) }
            return ConsoleReply(notes + reply)
        } catch {
            return ConsoleReply(failed: notes + (error.lines ?? ["error: \(error.message)", "usage: \(command.usage)"]))
        }
    }
}
