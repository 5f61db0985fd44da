import NearcastCore
import NearcastDrivers
import NearcastNearby

/// `nearcast run`: the daemon.
struct RunCommand: RunnableCommand {
    static let node = CommandNode.command(
        "run",
        abstract: "Run the broadcasting daemon.",
        discussion: """
            With --board sim no hardware is needed: the audio goes to <state-dir>/audio.wav, paced \
            like a sound card, and the LEDs and BLE are shown on the console.
            """,
        // The daemon's own options, then every setting's flags from the table of settings.
        arguments: [
            .option("config", value: "file", help: "Static config file (JSON5; /etc/nearcast/nearcast.json5 on an installed box), read again on SIGHUP."),
            .option("state-dir", value: "dir", help: "State directory. Default: $STATE_DIRECTORY, else ./NAME-state on a board without GPIO (sim-state, pc-state), else /var/lib/nearcast."),
            .option("duration", value: "seconds", help: "Stop after this many seconds (default: run until SIGINT or SIGTERM)."),
            .option("payload", value: "hex", help: "Payload to publish, in hex (default: 6e65617263617374, \"nearcast\")."),
            .option("kind", value: "direct|eid", help: "Token kind to publish: direct (the default) or eid."),
            .option("exponent", value: "K", help: "EID rotation exponent K (0-15): a new EID every 2^K seconds (default 10)."),
            .option("subscribe", value: "audio|ble|both", help: "Also listen on audio, ble or both and log found/lost tokens (ble through the board's controller; audio through the board's microphone)."),
            .option("lost-after", value: "seconds", help: "With --subscribe: seconds a token may go unheard before it is reported lost (default 10)."),
        ] + BoxSettings.flags,
        make: RunCommand.init)

    let config: String?
    let stateDir: String?
    let duration: Double?
    let payload: String?
    let kind: TokenKind?
    let exponent: Int
    let publish: [String]
    let subscribe: String?
    let lostAfter: Double
    /// What the command line says of the box's settings (every flag of ``BoxSettings`` but
    /// --publish, which is read with --payload, --kind and --exponent in ``run()``).
    let commandLine: SettingsLayer

    init(_ arguments: ParsedArguments) throws(UsageError) {
        config = try arguments.value("config")
        stateDir = try arguments.value("state-dir")
        duration = try arguments.value("duration")
        payload = try arguments.value("payload")
        kind = try arguments.value("kind")
        exponent = try arguments.value("exponent", default: SettingsDefaults.exponent)
        publish = try arguments.values("publish")
        subscribe = try arguments.value("subscribe")
        lostAfter = try arguments.value("lost-after", default: SettingsDefaults.lostAfter)
        var commandLine = SettingsLayer()
        for setting in BoxSettings.all { try setting.readFlags(arguments, &commandLine) }
        self.commandLine = commandLine

        if let duration, !(duration > 0 && duration.isFinite) {
            throw UsageError("--duration \(duration): use a positive number of seconds")
        }
        guard (0...EphemeralIdentifier.maximumExponent).contains(exponent) else {
            throw UsageError("--exponent \(exponent): use 0 to 15")
        }
        if kind == .eid && payload != nil {
            throw UsageError("--payload is for direct tokens; an EID comes from the identity key in the state directory")
        }
        guard lostAfter.isFinite && lostAfter >= 1 && lostAfter <= 3600 else {
            throw UsageError("--lost-after \(lostAfter): use 1 to 3600 seconds")
        }
        if let subscribe, DiscoveryMediums(name: subscribe) == nil {
            throw UsageError("--subscribe \(subscribe): use audio, ble or both")
        }
        if !publish.isEmpty && (payload != nil || kind != nil) {
            throw UsageError("--publish replaces --payload and --kind: use one or the other")
        }
        if publish.count > SchedulerConfiguration.maximumPublications {
            throw UsageError("--publish given \(publish.count) times: at most \(SchedulerConfiguration.maximumPublications) publications")
        }
        for text in publish { _ = try Self.publication(text, exponent: exponent) }
    }

    func run() throws {
        // The state directory is known before the board only from the flag or systemd's
        // $STATE_DIRECTORY; then a broken config file falls back to the last good copy there.
        let earlyStateDirectory = stateDir ?? FileSystem.environment("STATE_DIRECTORY")
        let log = { (line: String) in StandardStreams.line(line) }
        let fromFile = try config.map { path throws(ConfigError) in
            try StaticConfig.loadAtStart(path, lastGoodIn: earlyStateDirectory, log: log)
        }
        var staticConfig = fromFile?.config ?? StaticConfig()
        let loaded: Board
        do {
            loaded = try BoardLoader.load(commandLine.board ?? staticConfig.board ?? "sim")
            if let text = fromFile?.text, let earlyStateDirectory {
                StaticConfig.rememberLastGood(text, in: earlyStateDirectory, log: log)
            }
        } catch {
            // A board misnamed in an edited config file: start from the last good config's.
            guard commandLine.board == nil, fromFile?.text != nil, let earlyStateDirectory,
                  let copy = StaticConfig.lastGood(in: earlyStateDirectory),
                  let fallback = try? BoardLoader.load(copy.board ?? "sim") else { throw CommandFailure("\(error)") }
            log("error: \(config ?? ""): \(error); starting from the last good configuration, "
                + "\(earlyStateDirectory)/\(StaticConfig.lastGoodName) (fix the file, then restart)")
            staticConfig = copy
            loaded = fallback
        }
        let statePath = stateDir ?? FileSystem.environment("STATE_DIRECTORY")
            ?? (loaded.gpio.driver == .sim ? "\(loaded.name)-state" : "/var/lib/nearcast")   // sim-state, pc-state: no box
        let state = try StateDirectory(path: statePath)

        // What the command line says; SettingsResolver lays it over the config file and under
        // the console's saved settings when the daemon starts.
        var commandLine = self.commandLine
        if !publish.isEmpty {
            commandLine.publications = try publish.map { text throws(UsageError) in try Self.publication(text, exponent: exponent) }
        } else if payload != nil || kind != nil {
            // --payload/--kind: one publication on the mediums the box uses.
            let mediums = commandLine.mediums ?? staticConfig.mediums ?? .both
            do {
                switch self.kind ?? .direct {
                case .direct: commandLine.publications = [try .direct(hex: payload ?? SettingsDefaults.payload, mediums: mediums)]
                case .eid: commandLine.publications = [try .eid(exponent: exponent, mediums: mediums)]
                }
            } catch {
                throw CommandFailure("\(self.kind == .eid ? "--exponent" : "--payload"): \(error)")
            }
        }
        var settings = DaemonSettings(board: loaded, state: state)
        settings.commandLine = commandLine
        settings.configPath = config
        settings.config = staticConfig
        settings.subscribe = subscribe.flatMap { DiscoveryMediums(name: $0) }
        settings.lostAfter = lostAfter
        // Only a console named on the command line must open; one from the config file is
        // logged and skipped when it cannot, so the box still broadcasts.
        settings.consoleIsRequired = commandLine.console != nil
        if let mediums = settings.subscribe, mediums.contains(.audio) && !loaded.canListenOverAudio {
            throw CommandFailure("--subscribe \(subscribe ?? ""): board \(loaded.name) has no microphone (audio.input in \(loaded.source)); --subscribe ble works on every board")
        }
        settings.duration = duration
        settings.exponent = exponent
        // The log always goes to stdout (the journal under systemd); `--console none` only
        // means no interactive console on the terminal.
        let journal = StandardStreams.outputIsJournal
        let daemon = Daemon(settings: settings, log: { line in
            StandardStreams.line(journal ? JournalLevel.prefix(for: line) + line : line)
        })
        try daemon.run()
        if daemon.restartRequested {
            // Start again with the same arguments: state, consent and the clock come from disk.
            let failure = FileSystem.restartCurrentProcess()
            throw CommandFailure("restart failed: \(failure)")
        }
    }

    /// One `--publish` value, parsed once.
    private static func publication(_ text: String, exponent: Int) throws(UsageError) -> PublicationSpec {
        do { return try PublicationSpec.parse(text, defaultExponent: exponent) } catch { throw UsageError("--publish \(text): \(error)") }
    }
}

/// The syslog level of a log line, as the journal reads it from a `<N>` prefix: errors 3,
/// warnings 4, the rest 6 (info).
enum JournalLevel {
    static func prefix(for line: String) -> String {
        if line.hasPrefix("error:") || line.contains("] error:") { return "<3>" }
        if line.hasPrefix("warning:") || line.contains("] warning:") { return "<4>" }
        return "<6>"
    }
}
