import NearcastCore
import NearcastDrivers
import NearcastNearby

/// The daemon's consoles and where its log lines go: the log terminal (stdout, or the stdio
/// console drawn above the prompt), the in-memory ring for `log`, and the other consoles
/// (event lines such as bursts only while debug logging is on, so a technician can type).
final class Consoles {
    let context: DaemonState
    let plainLog: (String) -> Void
    var server: ConsoleSocketServer?
    private var sessions: [(session: ConsoleSession, isLogTerminal: Bool)] = []

    init(context: DaemonState, plainLog: @escaping (String) -> Void) {
        self.context = context
        self.plainLog = plainLog
    }

    func attach(_ port: TerminalPort, colour: Bool, isLogTerminal: Bool) {
        let context = self.context
        let session = ConsoleSession(port: port, table: ConsoleCommands.table, colour: colour) { line, session in
            ConsoleCommands.run(line, context, session: session)
        }
        sessions.append((session, isLogTerminal))
    }

    func log(_ line: String) {
        context.logRing.append(line)
        if !sessions.contains(where: { $0.isLogTerminal }) { plainLog(line) }
        let isEvent = line.hasPrefix("[")
        for entry in sessions where entry.isLogTerminal || !isEvent || context.manager.debugLogging {
            entry.session.logLine(line)
        }
    }

    func service() {
        if let client = server?.accept() { attach(client, colour: false, isLogTerminal: false) }
        for entry in sessions { entry.session.service() }
        for entry in sessions where entry.session.isClosed && !entry.isLogTerminal {
            let reason = entry.session.port.isClosed ? entry.session.port.closeReason : "exit"
            plainLog("console \(entry.session.port.name) closed (\(reason))")
        }
        sessions.removeAll { $0.session.isClosed && !$0.isLogTerminal }
    }
}
