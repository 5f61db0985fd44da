import NearcastCore
import NearcastDrivers

/// Who may change the box: `login`, `logout`, `pin`, and `exit` for a `nearcast console` client.
enum AccessCommands {
    static func commands(_ pin: TechnicianPIN, progress: LoopProgress, log: LogSink) -> [ConsoleCommandDescriptor] { [

        ConsoleCommandDescriptor("login", usage: "login", summary: "give the technician PIN (asked for, not echoed)") { call throws(ConsoleFailure) in
            try login(pin, progress, call.session)
        },
        ConsoleCommandDescriptor("logout", usage: "logout", summary: "forget this session's PIN") { call throws(ConsoleFailure) in
            call.session.loggedIn = false
            return [pin.isSet ? "logged out" : "no technician PIN is set: every command is open"]
        },
        ConsoleCommandDescriptor("pin", completions: ["show", "set", "clear"], usage: "pin show|set|clear",
                                 summary: "the technician PIN that guards the commands that change the box", arguments: 0...2,
                                 changesState: { $0.first == "set" || $0.first == "clear" }) { call throws(ConsoleFailure) in
            try pinCommand(call.arguments, pin, progress, log, call.session)
        },
        ConsoleCommandDescriptor("exit", usage: "exit", summary: "leave the console (the daemon keeps running)") { call throws(ConsoleFailure) in
            guard call.session.canClose else { return ["this console stays open while the daemon runs (exit leaves nearcast console)"] }
            call.session.wantsToClose = true
            return ["bye"]
        },
    ] }

    private static func login(_ pin: TechnicianPIN, _ progress: LoopProgress, _ session: ConsoleSession) throws(ConsoleFailure) -> [String] {
        guard pin.isSet else { return ["no technician PIN is set: every command is open (pin set makes one)"] }
        if session.loggedIn { return ["already logged in"] }
        let wait = pin.waitRemaining(at: progress.nowMilliseconds)
        if wait > 0 { throw ConsoleFailure(saying: [tooManyWrongPINs(wait)]) }
        session.askSecret("PIN: ") { typed, session throws(ConsoleFailure) in
            switch pin.check(typed, at: progress.nowMilliseconds) {
            case .accepted:
                session.loggedIn = true
                session.lastCommandAt = progress.nowMilliseconds
                return ["logged in (logout ends it; \(ConsoleSession.idleLogout / 60_000) minutes idle end it too)"]
            case .wrong(let remaining, let nextWait):
                throw ConsoleFailure(saying: ["wrong PIN" + (nextWait > 0 ? "; " + tooManyWrongPINs(nextWait) : remaining == 1
                    ? "; one more wrong PIN starts a delay" : "")])
            case .wait(let milliseconds):
                throw ConsoleFailure(saying: [tooManyWrongPINs(milliseconds)])
            case .unusable(let why):
                throw ConsoleFailure("\(why)")
            }
        }
        return []
    }

    private static func tooManyWrongPINs(_ milliseconds: Int64) -> String {
        "too many wrong PINs: the next try is checked in \((milliseconds + 999) / 1000) s"
    }

    private static func pinCommand(_ args: [String], _ pin: TechnicianPIN, _ progress: LoopProgress, _ log: LogSink,
                                   _ session: ConsoleSession) throws(ConsoleFailure) -> [String] {
        switch args.first ?? "show" {
        case "show":
            guard args.count <= 1 else { throw ConsoleFailure("unexpected '\(args[1])'") }
            guard pin.isSet else { return ["technician PIN: not set; every command is open"] }
            var lines = ["technician PIN: set (salted PBKDF2-SHA256 hash in \(pin.path)); this session is "
                         + (session.loggedIn ? "logged in" : "not logged in")]
            if let problem = pin.problem { lines.append("error: \(problem)") }
            if pin.failures > 0 { lines.append("wrong PINs since the last right one: \(pin.failures)") }
            return lines
        case "set":
            guard args.count == 1 else {
                throw ConsoleFailure("type the new PIN at the prompt, not on the line (lines are kept in the history)")
            }
            session.askSecret("new PIN (4-12 digits): ") { first, session throws(ConsoleFailure) in
                if let problem = TechnicianPIN.problem(withNew: first) { throw ConsoleFailure("\(problem); PIN not changed") }
                session.askSecret("new PIN again: ") { second, session throws(ConsoleFailure) in
                    guard second == first else { throw ConsoleFailure("the two PINs differ; PIN not changed") }
                    do { try pin.set(first) } catch { throw ConsoleFailure("\(error)") }
                    session.loggedIn = true
                    session.lastCommandAt = progress.nowMilliseconds
                    log("console: technician PIN set on \(session.port.name)")
                    return ["technician PIN set; commands that change the box now need it (this session is logged in)"]
                }
                return []
            }
            return []
        case "clear":
            guard args.count == 1 else { throw ConsoleFailure("unexpected '\(args[1])'") }
            guard pin.isSet else { return ["no technician PIN is set"] }
            do { try pin.clear() } catch { throw ConsoleFailure("\(error)") }
            log("console: technician PIN removed on \(session.port.name)")
            return ["technician PIN removed: every command is open"]
        default:
            throw ConsoleFailure("show, set or clear, not '\(args[0])'")
        }
    }
}
