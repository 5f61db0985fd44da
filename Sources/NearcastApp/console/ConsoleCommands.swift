import NearcastCore
import NearcastDrivers
import NearcastNearby

/// The console's commands: one line in, lines of text out. Each takes `-h`.
enum ConsoleCommands {
    struct Command {
        let name: StaticString
        let arguments: [StaticString]
        let usage: String
        let summary: String
    }

    static let commands: [Command] = [
        Command(name: "help", arguments: [], usage: "help [COMMAND]", summary: "list the commands, or explain one"),
        Command(name: "status", arguments: ["--json"], usage: "status [--json]",
                summary: "mediums, mode, consent, publications, tokens, beacon time, drivers, LEDs, uptime"),
        Command(name: "publish", arguments: ["direct", "eid"], usage: "publish direct HEX [audio|ble|both] | publish eid [K] [audio|ble|both]",
                summary: "start broadcasting a token (up to 8 publications)"),
        Command(name: "unpublish", arguments: [], usage: "unpublish ID", summary: "stop a publication (ids from publications)"),
        Command(name: "publications", arguments: [], usage: "publications", summary: "list the publications"),
        Command(name: "strategy", arguments: ["mediums", "mode", "show"],
                usage: "strategy [mediums audio|ble|both] [mode broadcast|scan|both]",
                summary: "which mediums the box uses, and whether it broadcasts and scans"),
        Command(name: "consent", arguments: ["grant", "deny", "show"], usage: "consent grant|deny|show",
                summary: "the operator's permission to broadcast (remembered across restarts)"),
        Command(name: "token", arguments: [], usage: "token", summary: "each publication's current token and next rotation"),
        Command(name: "audio", arguments: ["test", "level"], usage: "audio test | audio level [0-100]",
                summary: "play one calibration burst; show or set the burst level"),
        Command(name: "ble", arguments: ["interval", "txpower"], usage: "ble interval [MS] | ble txpower [DBM]",
                summary: "show or set the advertising interval (20-10240 ms) and calibrated TX power (-100..20 dBm)"),
        Command(name: "leds", arguments: ["test"], usage: "leds [test]", summary: "show each LED's pattern; walk them"),
        Command(name: "log", arguments: [], usage: "log [N]", summary: "the last N log lines (default 20)"),
        Command(name: "debug", arguments: ["on", "off", "stall"], usage: "debug on|off | debug stall SECONDS",
                summary: "log every scheduling decision; stall the loop (watchdog test)"),
        Command(name: "board", arguments: [], usage: "board", summary: "the board file in use"),
        Command(name: "version", arguments: [], usage: "version", summary: "the build"),
        Command(name: "config", arguments: ["show", "save"], usage: "config show|save",
                summary: "the settings in effect; save them so the box starts with them"),
        Command(name: "restart", arguments: [], usage: "restart", summary: "stop cleanly and start again"),
        Command(name: "login", arguments: [], usage: "login", summary: "give the technician PIN (asked for, not echoed)"),
        Command(name: "logout", arguments: [], usage: "logout", summary: "forget this session's PIN"),
        Command(name: "pin", arguments: ["show", "set", "clear"], usage: "pin show|set|clear",
                summary: "the technician PIN that guards the commands that change the box"),
        Command(name: "sim", arguments: ["fault"], usage: "sim fault [NAME on|off]",
                summary: "simulated board: make a driver fail as real hardware does (list the faults without arguments)"),
        Command(name: "exit", arguments: [], usage: "exit", summary: "leave the console (the daemon keeps running)"),
    ]

    /// The completion table for the line editor.
    static let table = CommandTable(commands.map { CommandTable.Entry($0.name, $0.arguments) })

    /// Runs one line; returns what to print.
    static func run(_ line: String, _ context: DaemonState, session: ConsoleSession) -> [String] {
        let words = line.split(separator: " ").map(String.init)
        guard let name = words.first else { return [] }
        guard let command = commands.first(where: { "\($0.name)" == name }) else {
            return ["error: unknown command '\(name)'; type help"]
        }
        let arguments = Array(words.dropFirst())
        if arguments.contains("-h") || arguments.contains("--help") {
            return ["usage: \(command.usage)", "  \(command.summary)"]
        }
        var notes: [String] = []
        let now = context.nowMilliseconds
        if session.loggedIn && now - session.lastCommandAt > idleLogout {
            session.loggedIn = false
            notes.append("logged out: \(idleLogout / 60_000) minutes without a command")
        }
        session.lastCommandAt = now
        if context.pin.isSet && !session.loggedIn && changesState(name, arguments) {
            return notes + ["error: '\(name)' changes the box and needs the technician PIN: type login"]
        }
        do {
            let reply = try dispatch(name, arguments, context, session)
            // What a technician changes survives a power cut: the settings are saved at once.
            if persistsSettings(name, arguments), let warning = context.persistSettings() { notes.append(warning) }
            return notes + reply
        } catch {
            return notes + ["error: \(error.message)", "usage: \(command.usage)"]
        }
    }

    /// A logged-in session that runs no command for this long (milliseconds) is logged out,
    /// so a UART console left logged in does not stay open to the next person.
    static let idleLogout: Int64 = 10 * 60_000

    /// Whether a command line changes the box's state (and so needs the PIN when one is set).
    /// Reading is always allowed; no command ever shows the identity key or the PIN.
    static func changesState(_ name: String, _ args: [String]) -> Bool {
        switch name {
        case "publish", "unpublish", "restart", "debug": return true
        case "strategy": return args.contains { $0 != "show" }
        case "consent": return args.first == "grant" || args.first == "deny"
        case "audio": return args.first == "test" || args.count > 1
        case "ble": return args.count > 1
        case "leds": return args.first == "test"
        case "config": return args.first == "save"
        case "pin": return args.first == "set" || args.first == "clear"
        case "sim": return args.count > 1
        default: return false
        }
    }

    /// Whether a successful `name` changes what `settings.json5` holds (publications, strategy,
    /// the tunables), so it is saved straight after.
    static func persistsSettings(_ name: String, _ args: [String]) -> Bool {
        switch name {
        case "publish", "unpublish": return true
        case "debug": return args.first != "stall"
        case "strategy": return args.contains { $0 != "show" }
        case "audio", "ble": return args.count > 1
        default: return false
        }
    }

    struct Failure: Error {
        let message: String
        init(_ message: String) { self.message = message }
    }

    private static func dispatch(_ name: String, _ args: [String], _ c: DaemonState,
                                 _ session: ConsoleSession) throws(Failure) -> [String] {
        switch name {
        case "help":
            if let topic = args.first {
                guard let command = commands.first(where: { "\($0.name)" == topic }) else { throw Failure("no command '\(topic)'") }
                return ["usage: \(command.usage)", "  \(command.summary)"]
            }
            return commands.map { Formatting.padRight("\($0.name)", 14) + $0.summary }
                + ["Tab completes; up/down recall; Ctrl-A/E/K/U/W edit; COMMAND -h explains one."]
        case "status":
            if args == ["--json"] { return [statusJSON(c)] }
            try expectNone(args)
            return status(c)
        case "publish":
            return try publish(args, c)
        case "unpublish":
            guard args.count == 1, let id = Int(args[0]) else { throw Failure("give the publication's id") }
            guard c.unpublish(id) else { throw Failure("no publication \(id); see publications") }
            return ["unpublished \(id)"]
        case "publications":
            try expectNone(args)
            if c.publications.isEmpty { return ["no publications"] }
            return c.publications.map { describe($0, c) }
        case "strategy":
            return try strategy(args, c)
        case "consent":
            guard args.count == 1 else { throw Failure("grant, deny or show") }
            switch args[0] {
            case "show": break
            case "grant", "deny":
                do { try c.setConsent(args[0] == "grant") } catch { throw Failure("consent not saved: \(error)") }
            default: throw Failure("grant, deny or show, not '\(args[0])'")
            }
            return [c.consentGranted ? "consent granted: broadcasting" : "consent not granted: nothing is broadcast"]
        case "token":
            try expectNone(args)
            if c.publications.isEmpty { return ["no publications"] }
            return c.publications.map { entry in
                let status = c.manager.schedule.status(of: entry.publication.slot)
                let token = status?.token.map { "\($0)" } ?? "(EID being computed)"
                var line = "\(entry.id): \(token)"
                if let next = status?.nextSwitchAt {
                    line += "; next EID in \(Formatting.fixed(Double(next - Int64(c.position)) / Double(c.sampleRate), decimals: 1)) s"
                }
                return line
            }
        case "audio":
            return try audio(args, c)
        case "ble":
            return try ble(args, c)
        case "leds":
            if args == ["test"] {
                c.panel.startWalk(atMilliseconds: c.nowMilliseconds)
                return ["leds test: " + StatusLED.allCases.map(\.rawValue).joined(separator: ", ")
                        + " each alone on for 1 s, then back to their patterns"
                        + (c.board.gpio.driver == .sim ? " (simulated GPIO: see leds.log in the state directory)" : "")]
            }
            try expectNone(args)
            return c.ledPatterns.map { "\(Formatting.padRight($0.0, 8)) \($0.1)" }
        case "log":
            var count = 20
            if let first = args.first {
                guard let n = Int(first), n > 0, args.count == 1 else { throw Failure("N must be a positive number") }
                count = min(n, c.logRing.capacity)
            }
            return c.logRing.last(count)
        case "debug":
            if args.first == "stall" {
                guard args.count == 2, let seconds = Int(args[1]), (1...DaemonState.maximumStall).contains(seconds) else {
                    throw Failure("debug stall takes 1 to \(DaemonState.maximumStall) seconds")
                }
                c.stallRequested = seconds
                return ["stalling the daemon's loop for \(seconds) s: broadcasting pauses, and under systemd a stall longer "
                        + "than WatchdogSec (10 s) ends with the watchdog restarting the daemon"]
            }
            guard args.count == 1, args[0] == "on" || args[0] == "off" else { throw Failure("on or off") }
            c.manager.debugLogging = args[0] == "on"
            return ["debug logging \(args[0])"]
        case "board":
            try expectNone(args)
            let b = c.board
            return ["\(b.name): \(b.description) (\(b.source))",
                    "audio out \(b.audioOutput.driver) \(b.audioOutput.device) \(b.audioOutput.rate) Hz period \(b.audioOutput.period)",
                    "bluetooth \(b.bluetooth.driver)" + (b.bluetooth.index.map { " hci\($0)" } ?? ""),
                    "gpio \(b.gpio.driver) chip \(b.gpio.chip), console \(b.console.tty) \(b.console.baud) baud"]
        case "version":
            try expectNone(args)
            return [BuildInfo.versionLine]
        case "config":
            return try config(args, c)
        case "restart":
            try expectNone(args)
            c.restartRequested = true
            return ["restarting: broadcasting stops for a moment"]
        case "login":
            try expectNone(args)
            return login(c, session)
        case "logout":
            try expectNone(args)
            session.loggedIn = false
            return [c.pin.isSet ? "logged out" : "no technician PIN is set: every command is open"]
        case "pin":
            return try pin(args, c, session)
        case "sim":
            return try sim(args, c)
        case "exit":
            guard session.canClose else { return ["this console stays open while the daemon runs (exit leaves nearcast console)"] }
            session.wantsToClose = true
            return ["bye"]
        default:
            throw Failure("not implemented")
        }
    }

    private static func login(_ c: DaemonState, _ session: ConsoleSession) -> [String] {
        guard c.pin.isSet else { return ["no technician PIN is set: every command is open (pin set makes one)"] }
        if session.loggedIn { return ["already logged in"] }
        let wait = c.pin.waitRemaining(at: c.nowMilliseconds)
        if wait > 0 { return [tooManyWrongPINs(wait)] }
        session.askSecret("PIN: ") { typed, session in
            switch c.pin.check(typed, at: c.nowMilliseconds) {
            case .accepted:
                session.loggedIn = true
                session.lastCommandAt = c.nowMilliseconds
                return ["logged in (logout ends it; \(idleLogout / 60_000) minutes idle end it too)"]
            case .wrong(let remaining, let nextWait):
                return ["wrong PIN" + (nextWait > 0 ? "; " + tooManyWrongPINs(nextWait) : remaining == 1
                    ? "; one more wrong PIN starts a delay" : "")]
            case .wait(let milliseconds):
                return [tooManyWrongPINs(milliseconds)]
            case .unusable(let why):
                return ["error: \(why)"]
            }
        }
        return []
    }

    private static func tooManyWrongPINs(_ milliseconds: Int64) -> String {
        "too many wrong PINs: the next try is checked in \((milliseconds + 999) / 1000) s"
    }

    private static func pin(_ args: [String], _ c: DaemonState, _ session: ConsoleSession) throws(Failure) -> [String] {
        switch args.first ?? "show" {
        case "show":
            guard args.count <= 1 else { throw Failure("unexpected '\(args[1])'") }
            guard c.pin.isSet else { return ["technician PIN: not set; every command is open"] }
            var lines = ["technician PIN: set (salted PBKDF2-SHA256 hash in \(c.pin.path)); this session is "
                         + (session.loggedIn ? "logged in" : "not logged in")]
            if let problem = c.pin.problem { lines.append("error: \(problem)") }
            if c.pin.failures > 0 { lines.append("wrong PINs since the last right one: \(c.pin.failures)") }
            return lines
        case "set":
            guard args.count == 1 else {
                throw Failure("type the new PIN at the prompt, not on the line (lines are kept in the history)")
            }
            session.askSecret("new PIN (4-12 digits): ") { first, session in
                if let problem = TechnicianPIN.problem(withNew: first) { return ["error: \(problem); PIN not changed"] }
                session.askSecret("new PIN again: ") { second, session in
                    guard second == first else { return ["error: the two PINs differ; PIN not changed"] }
                    do { try c.pin.set(first) } catch { return ["error: \(error)"] }
                    session.loggedIn = true
                    session.lastCommandAt = c.nowMilliseconds
                    c.log("console: technician PIN set on \(session.port.name)")
                    return ["technician PIN set; commands that change the box now need it (this session is logged in)"]
                }
                return []
            }
            return []
        case "clear":
            guard args.count == 1 else { throw Failure("unexpected '\(args[1])'") }
            guard c.pin.isSet else { return ["no technician PIN is set"] }
            do { try c.pin.clear() } catch { throw Failure("\(error)") }
            c.log("console: technician PIN removed on \(session.port.name)")
            return ["technician PIN removed: every command is open"]
        default:
            throw Failure("show, set or clear, not '\(args[0])'")
        }
    }

    private static func config(_ args: [String], _ c: DaemonState) throws(Failure) -> [String] {
        let path = c.state.file(SavedSettings.fileName)
        let settings = c.settingsInEffect
        switch args {
        case ["show"]:
            let saved = SavedSettings.load(from: c.state, keepingDamagedAside: false, log: { _ in })
            return ["strategy \(settings.strategy)", "audio level \(settings.audioLevel)",
                    "ble interval \(settings.bleIntervalMilliseconds) ms, txpower \(settings.txPower) dBm",
                    "debug \(settings.debug ? "on" : "off")",
                    "publications: " + (settings.publications.isEmpty ? "none" : settings.publications.joined(separator: " ")),
                    saved == settings ? "saved in \(path): the box starts with these"
                        : saved != nil ? "changed since the last config save (\(path)): a restart goes back to the saved settings"
                        : "not saved: the box starts from the board's defaults (config save keeps these)"]
        case ["save"]:
            do { try settings.save(to: c.state, beaconTime: c.beaconTime) } catch { throw Failure("settings not saved: \(error)") }
            c.log("console: settings saved in \(path) (\(settings.publications.count) publications)")
            let count = settings.publications.count
            return ["saved in \(path): \(settings.strategy), \(count) publication\(count == 1 ? "" : "s"); the box starts with these"]
        default:
            throw Failure("show or save")
        }
    }

    /// `sim fault NAME on|off`: switches a simulated driver's fault (sim board only). The
    /// driver fails at its next call, the way its real twin would; the loop then reports it.
    private static func sim(_ args: [String], _ c: DaemonState) throws(Failure) -> [String] {
        guard args.first == "fault" else { throw Failure("fault") }
        guard let faults = c.faults else {
            throw Failure("board \(c.board.name) is not the simulated board: faults are injected on --board sim only")
        }
        let names = SimulatedFault.allCases.map { $0.rawValue }.joined(separator: ", ")
        if args.count == 1 {
            let on = SimulatedFault.allCases.filter { faults.contains($0) }
            return ["faults on: " + (on.isEmpty ? "none" : on.map { $0.rawValue }.joined(separator: ", ")), "faults: \(names)"]
        }
        guard args.count == 3, args[2] == "on" || args[2] == "off" else { throw Failure("sim fault NAME on|off") }
        guard let fault = SimulatedFault(rawValue: args[1]) else { throw Failure("no fault '\(args[1])'; the faults: \(names)") }
        let on = args[2] == "on"
        let changed = faults.set(fault, on: on)
        if changed { c.log("console: simulated fault \(fault) switched \(args[2])") }
        return ["sim fault \(fault) \(args[2])" + (changed ? "" : " (it already was)")]
    }

    private static func expectNone(_ args: [String]) throws(Failure) {
        if let extra = args.first { throw Failure("unexpected '\(extra)'") }
    }

    private static func mediums(_ text: String?) throws(Failure) -> DiscoveryMediums {
        guard let text else { return .both }
        guard let mediums = DiscoveryMediums(name: text) else { throw Failure("mediums '\(text)' must be audio, ble or both") }
        return mediums
    }

    private static func publish(_ args: [String], _ c: DaemonState) throws(Failure) -> [String] {
        guard let kind = args.first else { throw Failure("direct or eid") }
        let message: Message
        var mediumWord: String?
        switch kind {
        case "direct":
            guard args.count >= 2, args.count <= 3 else { throw Failure("publish direct HEX [audio|ble|both]") }
            do { message = .direct(try Token(kind: .direct, hex: args[1])) } catch { throw Failure("\(error)") }
            mediumWord = args.count == 3 ? args[2] : nil
        case "eid":
            guard args.count <= 3 else { throw Failure("publish eid [K] [audio|ble|both]") }
            var exponent = 10
            var rest = args.dropFirst()
            if let first = rest.first, let k = Int(first) {
                guard (0...EphemeralIdentifier.maximumExponent).contains(k) else { throw Failure("K must be 0 to 15") }
                exponent = k
                rest = rest.dropFirst()
            }
            mediumWord = rest.first
            let key: [UInt8]
            do { key = try c.state.identityKey(log: c.log) } catch { throw Failure("\(error)") }
            message = .eid(identityKey: key, exponent: exponent)
        default:
            throw Failure("direct or eid, not '\(kind)'")
        }
        let strategy = Strategy(mediums: try mediums(mediumWord), mode: .broadcast)
        do {
            let id = try c.publish(Daemon.PublicationRequest(message: message, strategy: strategy))
            return ["published \(id): \(message) over \(strategy.mediums)"]
        } catch {
            throw Failure("\(error)")
        }
    }

    private static func strategy(_ args: [String], _ c: DaemonState) throws(Failure) -> [String] {
        var strategy = c.strategy
        var index = 0
        while index < args.count {
            let word = args[index]
            if word == "show" { index += 1; continue }
            guard index + 1 < args.count else { throw Failure("'\(word)' needs a value") }
            switch word {
            case "mediums": strategy.mediums = try mediums(args[index + 1])
            case "mode":
                guard let mode = DiscoveryMode(name: args[index + 1]) else {
                    throw Failure("mode '\(args[index + 1])' must be broadcast, scan or both")
                }
                strategy.mode = mode
            default: throw Failure("mediums or mode, not '\(word)'")
            }
            index += 2
        }
        if strategy.mode.contains(.scan) && strategy.mediums.intersection(c.listenMediums).isEmpty {
            throw Failure("mode \(strategy.mode) listens, and this board can listen over \(c.listenMediums) only (listening over audio needs a microphone: audio.input in the board file)")
        }
        c.apply(strategy)
        return ["strategy: \(c.strategy)"]
    }

    private static func audio(_ args: [String], _ c: DaemonState) throws(Failure) -> [String] {
        switch args.first {
        case "test":
            c.testBurstRequested = true
            return ["audio test: one calibration burst (direct token 74657374, \"test\") at level \(Int((c.encoder.amplitude * 100).rounded()))"]
        case "level":
            if args.count == 2 {
                guard let level = Int(args[1]), (0...100).contains(level) else { throw Failure("level must be 0 to 100") }
                c.encoder.amplitude = Float(level) / 100
            } else if args.count > 2 {
                throw Failure("one level")
            }
            return ["audio level \(Int((c.encoder.amplitude * 100).rounded())) (peak amplitude of the bursts, % of full scale)"]
        default:
            throw Failure("test or level")
        }
    }

    private static func ble(_ args: [String], _ c: DaemonState) throws(Failure) -> [String] {
        switch args.first {
        case "interval":
            if args.count == 2 {
                guard let ms = Int(args[1]), (20...10_240).contains(ms) else { throw Failure("interval must be 20 to 10240 ms") }
                c.bleIntervalMilliseconds = ms
            }
            return ["ble interval \(c.bleIntervalMilliseconds) ms"]
        case "txpower":
            if args.count == 2 {
                guard let dbm = Int(args[1]), (-100...20).contains(dbm) else { throw Failure("txpower must be -100 to 20 dBm") }
                c.txPower = Int8(dbm)
            }
            return ["ble txpower \(c.txPower) dBm (written into the frames from the next advertising change)"]
        default:
            throw Failure("interval or txpower")
        }
    }

    private static func describe(_ entry: DaemonState.Entry, _ c: DaemonState) -> String {
        let status = c.manager.schedule.status(of: entry.publication.slot)
        let mediums = status?.strategy.mediums ?? []
        return "\(entry.id): \(entry.request.message) over \(mediums)" + (status?.token.map { ", now \($0.hex)" } ?? "")
    }

    private static func status(_ c: DaemonState) -> [String] {
        var lines = ["strategy: \(c.strategy)",
                     "consent: \(c.consentGranted ? "granted" : "not granted")",
                     "publications: \(c.publications.count)"]
        lines += c.publications.map { "  " + describe($0, c) }
        lines.append("beacon time \(c.beaconTime), uptime \(Formatting.fixed(c.uptime, decimals: 1)) s, \(c.bursts) bursts")
        let problems = c.manager.currentProblems
        lines.append("drivers: audio \(c.board.audioOutput.driver) \(c.audioProblem ?? "ok"), bluetooth \(c.board.bluetooth.driver) "
                     + (c.bluetoothProblem ?? "ok")
                     + (problems.isEmpty ? "" : "; problems: " + problems.identifiers.joined(separator: ", ")))
        if let faults = c.faults, !faults.active.isEmpty {
            lines.append("simulated faults on: " + faults.active.map { $0.rawValue }.sorted().joined(separator: ", "))
        }
        lines.append("leds: " + c.ledPatterns.map { "\($0.0)=\($0.1)" }.joined(separator: " "))
        if !c.present.isEmpty { lines.append("heard: " + c.present.map(\.description).joined(separator: ", ")) }
        return lines
    }

    static func statusJSON(_ c: DaemonState) -> String {
        func string(_ text: String) -> String { Formatting.jsonString(text) }
        let publications = c.publications.map { entry -> String in
            let status = c.manager.schedule.status(of: entry.publication.slot)
            var fields = ["\"id\":\(entry.id)"]
            switch entry.request.message {
            case .direct: fields.append("\"kind\":\"direct\"")
            case .eid(_, let k): fields.append("\"kind\":\"eid\""); fields.append("\"exponent\":\(k)")
            }
            fields.append("\"mediums\":\(string("\(status?.strategy.mediums ?? [])"))")
            fields.append("\"token\":" + (status?.token.map { string($0.hex) } ?? "null"))
            if let next = status?.nextSwitchAt {
                fields.append("\"next_rotation_s\":\(Formatting.fixed(Double(next - Int64(c.position)) / Double(c.sampleRate), decimals: 3))")
            }
            return "{" + fields.joined(separator: ",") + "}"
        }
        let leds = c.ledPatterns.map { "\(string($0.0)):\(string($0.1))" }.joined(separator: ",")
        let problems = c.manager.currentProblems.identifiers.map(string).joined(separator: ",")
        let details = "\"audio_detail\":" + (c.audioProblem.map(string) ?? "null")
            + ",\"bluetooth_detail\":" + (c.bluetoothProblem.map(string) ?? "null")
        let faults = c.faults.map { ",\"simulated_faults\":[" + $0.active.map { string($0.rawValue) }.sorted().joined(separator: ",") + "]" } ?? ""
        return "{\"mediums\":\(string("\(c.strategy.mediums)")),\"mode\":\(string("\(c.strategy.mode)")),"
            + "\"consent\":\(c.consentGranted),\"publications\":[\(publications.joined(separator: ","))],"
            + "\"beacon_time\":\(c.beaconTime),\"uptime_s\":\(Formatting.fixed(c.uptime, decimals: 3)),\"bursts\":\(c.bursts),"
            + "\"drivers\":{\"audio\":\(string(c.board.audioOutput.driver.rawValue)),\"bluetooth\":\(string(c.board.bluetooth.driver.rawValue)),\"problems\":[\(problems)],\(details)\(faults)},"
            + "\"leds\":{\(leds)},\"version\":\(string(BuildInfo.version)),\"build_id\":\(string(BuildInfo.buildID))}"
    }
}
