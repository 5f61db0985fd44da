import NearcastCore
import NearcastDrivers
import NearcastNearby

/// The daemon's consoles and where its log lines go: the log terminal (stdout, or the stdio
/// console drawn above the prompt), the in-memory ring for `log`, and the other consoles
/// (event lines such as bursts only while debug logging is on, so a technician can type).
final class Consoles {
    let interpreter: ConsoleInterpreter
    private let logRing: LogRing
    private let manager: MessageManager
    let plainLog: (String) -> Void
    var server: ConsoleSocketServer?
    private var sessions: [(session: ConsoleSession, isLogTerminal: Bool)] = []

    init(box: Box, plainLog: @escaping (String) -> Void) {
        interpreter = ConsoleInterpreter(box: box)
        logRing = box.logRing
        manager = box.manager
        self.plainLog = plainLog
    }

    func attach(_ port: any ConsoleTransport, colour: Bool, isLogTerminal: Bool, canClose: Bool = false) {
        let interpreter = self.interpreter
        let session = ConsoleSession(port: port, table: interpreter.table, colour: colour, canClose: canClose) { line, session in
            interpreter.run(line, session: session)
        }
        sessions.append((session, isLogTerminal))
    }

    func log(_ line: String) {
        logRing.append(line)
        if !sessions.contains(where: { $0.isLogTerminal }) { plainLog(line) }
        let isEvent = line.hasPrefix("[")
        for entry in sessions where entry.isLogTerminal || !isEvent || manager.debugLogging {
            entry.session.logLine(line)
        }
    }

    func service() {
        if let client = server?.accept() { attach(client, colour: false, isLogTerminal: false, canClose: true) }
        for entry in sessions { entry.session.service() }
        for entry in sessions where entry.session.isClosed && !entry.isLogTerminal {
            let reason = entry.session.port.isClosed ? entry.session.port.closeReason : "exit"
            plainLog("console \(entry.session.port.name) closed (\(reason))")
        }
        sessions.removeAll { $0.session.isClosed && !$0.isLogTerminal }
    }

    /// The consoles: the terminal given by `--console` (stdio only when it is a terminal; with
    /// pipes the daemon just logs) and `<state-dir>/console.sock` for `nearcast console`.
    static func open(_ settings: DaemonSettings, console: String, box: Box,
                     log: @escaping (String) -> Void) throws(CommandFailure) -> Consoles {
        let consoles = Consoles(box: box, plainLog: log)
        box.log.handler = { [unowned consoles] line in consoles.log(line) }
        switch console {
        case "none":
            break
        case "stdio":
            if TerminalPort.standardInputIsTerminal {
                do { consoles.attach(try TerminalPort.standardStreams(), colour: true, isLogTerminal: true) } catch {
                    throw CommandFailure("console stdio: \(error)")
                }
            }
        default:
            // A serial console that cannot be opened (a UART disabled in the firmware, a USB
            // adapter unplugged) must not keep an unattended box off the air: the broadcast
            // goes on and the socket console below still works.
            do {
                consoles.attach(try TerminalPort.serial(path: console, baud: settings.board.console.baud),
                                colour: false, isLogTerminal: false)
                log("console on \(console) at \(settings.board.console.baud) baud")
            } catch {
                if settings.consoleIsRequired { throw CommandFailure("--console \(console): \(error)") }
                log("error: console \(console): \(error); running without it (nearcast console still attaches)")
            }
        }
        let path = settings.state.file("console.sock")
        do {
            consoles.server = try ConsoleSocketServer(path: path)
            log("console socket \(path): attach with nearcast console --state-dir \(settings.state.path)")
        } catch {
            log("warning: console socket \(path) not available: \(error)")
        }
        return consoles
    }
}
