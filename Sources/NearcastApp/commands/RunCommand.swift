import ArgumentParser
import NearcastCore
import NearcastDrivers

/// `nearcast run`: the daemon.
struct RunCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Run the broadcasting daemon.",
        discussion: """
            With --board sim no hardware is needed: the audio goes to <state-dir>/audio.wav, paced \
            like a sound card, and the LEDs and BLE are shown on the console.
            """)

    @Option(help: "Board name or board file path.")
    var board: String = "sim"

    @Option(help: "Config file (JSON5).")
    var config: String?

    @Option(help: "State directory. Default: $STATE_DIRECTORY, else ./sim-state on the sim board, else /var/lib/nearcast.")
    var stateDir: String?

    @Option(help: "Technician console: stdio or none.")
    var console: String = "stdio"

    @Option(help: "Stop after this many seconds (default: run until SIGINT or SIGTERM).")
    var duration: Double?

    @Option(help: "Payload to publish, in hex (default: 6e65617263617374, \"nearcast\").")
    var payload: String?

    @Option(help: "Token kind to publish: direct or eid.")
    var kind: TokenKind = .direct

    @Option(help: "EID rotation exponent K (0-15): a new EID every 2^K seconds.")
    var exponent: Int = 10

    @Option(help: "Seconds between bursts (at least the 0.5 s airtime of a burst).")
    var interval: Double = 1

    func validate() throws {
        if let duration, !(duration > 0 && duration.isFinite) {
            throw ValidationError("--duration \(duration): use a positive number of seconds")
        }
        guard interval.isFinite && interval >= 0.5 && interval <= 3600 else {
            throw ValidationError("--interval \(interval): use 0.5 to 3600 seconds (a burst lasts 0.5 s)")
        }
        guard (0...EphemeralIdentifier.maximumExponent).contains(exponent) else {
            throw ValidationError("--exponent \(exponent): use 0 to 15")
        }
        guard console == "stdio" || console == "none" else {
            throw ValidationError("--console \(console): this build has the stdio and none consoles only")
        }
        if kind == .eid && payload != nil {
            throw ValidationError("--payload is for direct tokens; an EID comes from the identity key in the state directory")
        }
    }

    func run() throws {
        if let config {
            _ = try RunConfig.load(config)
        }
        let loaded: Board
        do { loaded = try BoardLoader.load(board) } catch { throw CommandFailure("\(error)") }
        let statePath = stateDir ?? FileSystem.environment("STATE_DIRECTORY")
            ?? (loaded.isSimulated ? "sim-state" : "/var/lib/nearcast")
        let state = try StateDirectory(path: statePath)

        let publication: Publication
        switch kind {
        case .direct:
            do {
                publication = Publication(.direct(try Token(kind: .direct, hex: payload ?? "6e65617263617374")))
            } catch {
                throw CommandFailure("--payload: \(error)")
            }
        case .eid:
            publication = Publication(.eid(identityKey: try state.identityKey(), exponent: exponent))
        }
        var settings = Daemon.Settings(board: loaded, state: state, publication: publication)
        settings.interval = interval
        settings.duration = duration
        let quiet = console == "none"
        try Daemon(settings: settings, log: { line in if !quiet { StandardStreams.line(line) } }).run()
    }
}

/// The config file, as far as this build reads it: validated so a typo is an error.
enum RunConfig {
    static func load(_ path: String) throws -> ObjectReader {
        let text: String
        do { text = try FileSystem.readText(path) } catch {
            throw CommandFailure("\(path): cannot read: \(error.message)")
        }
        do {
            let root = try JSON5Parser.parse(text)
            let reader = try ObjectReader(root, file: path, path: "")
            try reader.finish()
            return reader
        } catch let error as JSON5SyntaxError {
            throw CommandFailure("\(path):\(error)")
        } catch {
            throw CommandFailure("\(error)")
        }
    }
}
