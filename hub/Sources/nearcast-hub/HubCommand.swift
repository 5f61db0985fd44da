import ArgumentParser
import CHubBuildStamp
import Foundation
import Hummingbird
import Logging
import Metrics
import NearcastHub
import Prometheus

/// `nearcast-hub`: serve the API, or manage projects, against one database.
@main
struct HubCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "nearcast-hub",
        abstract: "The Nearcast hub: turns heard tokens into the messages a box publishes.",
        discussion: "SQLite by default (nearcast-hub.sqlite in the working directory, made on first start); "
            + "PostgreSQL with --db postgres://USER@HOST/DATABASE for several instances.",
        version: String(cString: nearcast_hub_build_version()),
        subcommands: [Serve.self, ProjectCommand.self, DeckCommand.self, ReactionsCommand.self])
}

/// `--config`, `--db` and `--log-level`, shared by every subcommand.
struct DatabaseOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp(
        "A config file (JSON5), as the Debian package's /etc/nearcast-hub/hub.json5; the other options win over it",
        valueName: "file"))
    var config: String?

    @Option(name: .long, help: "sqlite:PATH or postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE (default sqlite:nearcast-hub.sqlite)")
    var db: String?

    @Option(name: .long, help: "trace, debug, info, notice, warning or error (default info)")
    var logLevel: String?

    /// The config file's settings (none without --config); a bad file is one line naming it.
    func configFile() throws -> HubConfigFile {
        guard let config else { return HubConfigFile() }
        do {
            return try HubConfigFile.load(path: config)
        } catch {
            throw HubFailure(message: "--config \(error.description)")
        }
    }

    func location() throws -> DatabaseLocation {
        guard let db = try db ?? configFile().database else { return .defaultLocation }
        do {
            return try DatabaseLocation(parsing: db)
        } catch {
            throw ValidationError(error.description)
        }
    }

    /// Logs go to stderr: stdout carries only what a command prints for scripts (the project's
    /// keys, the served address).
    private static let logToStandardError: Void = LoggingSystem.bootstrap(StreamLogHandler.standardError)

    func logger() throws -> Logger {
        Self.logToStandardError
        let logLevel = try self.logLevel ?? configFile().logLevel ?? "info"
        guard let level = Logger.Level(rawValue: logLevel) else {
            throw ValidationError("--log-level \(logLevel): use trace, debug, info, notice, warning or error")
        }
        var logger = Logger(label: "nearcast-hub")
        logger.logLevel = level
        return logger
    }

    /// Runs `body` with the database open and closes it after, however `body` ends; an
    /// `APIError` (a refusal: a bad file, an unknown project) becomes one line on stderr and exit
    /// status 1, prefixed with `context`.
    func withDatabase<R>(context: String = "", _ body: (HubDatabase) async throws -> R) async throws -> R {
        let database = try await open()
        do {
            let result = try await body(database)
            await database.close()
            return result
        } catch let error as APIError {
            await database.close()
            throw HubFailure(message: context + error.message)
        } catch {
            await database.close()
            throw error
        }
    }

    func open() async throws -> HubDatabase {
        let location = try location()
        do {
            return try await HubDatabase.open(location, logger: try logger())
        } catch let error as HubConfigurationError {
            throw CleanExit.message("nearcast-hub: \(error.description)").asFailure
        }
    }
}

extension CleanExit {
    /// An error line on stderr and exit status 1.
    var asFailure: any Error { HubFailure(message: "\(self)") }
}

struct HubFailure: Error, CustomStringConvertible {
    let message: String
    var description: String { message.replacingOccurrences(of: "nearcast-hub: ", with: "") }
}

struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Serve the API, watches, the status page and the listener page.")

    @Option(name: .long, help: "HOST:PORT to listen on (default 127.0.0.1:8080; port 0 picks a free one)")
    var listen: String?

    @Option(name: .long, help: ArgumentHelp(
        "The listener page's directory (tools/setup/build-web's output), served at /listen",
        discussion: "Default: ../share/nearcast-hub/listener beside the executable, or .build/web in the source checkout it runs from."))
    var listener: String?

    @Option(name: .customLong("tls-cert"), help: ArgumentHelp(
        "Serve HTTPS with this PEM certificate (its chain after it); with --tls-key",
        discussion: "HTTP/2 by ALPN, HTTP/1.1 too. SIGHUP reads the files again for new connections (open ones stay)."))
    var tlsCertificate: String?

    @Option(name: .customLong("tls-key"), help: "The certificate's PEM private key (unencrypted); with --tls-cert")
    var tlsKey: String?

    @Option(name: .customLong("redirect-http"), help: ArgumentHelp(
        "HOST:PORT of a plain-HTTP listener that only redirects to HTTPS (as 0.0.0.0:80); with --tls-cert"))
    var redirectHTTP: String?

    @Option(name: .long, help: ArgumentHelp(
        "on or off: the request, watch and connection limits (default on; off for a benchmark on loopback)",
        discussion: "The limits' settings are in the config file's limits object (docs/venue-operator.md, \"Limits\")."))
    var limits: String?

    @Option(name: .customLong("deck-render-seconds"), help: ArgumentHelp(
        "Wall-clock seconds one deck may take to render, also each poppler process's CPU limit (default 120; decks.renderSeconds)",
        discussion: "Past it the render's process groups are killed and the upload is a 422.", valueName: "seconds"))
    var deckRenderSeconds: Int?

    @Option(name: .customLong("deck-renders-at-once"), help: ArgumentHelp(
        "Decks rendered at once, at nice 10; other uploads wait their turn (default half the cores, at least 1; decks.rendersAtOnce)",
        valueName: "count"))
    var deckRendersAtOnce: Int?

    @Option(name: .customLong("deck-storage-mb"), help: ArgumentHelp(
        "Page images one project's decks may hold, in MB; past it an upload is a 507 (default 200; decks.storagePerProjectMB)",
        valueName: "MB"))
    var deckStorageMB: Int?

    @OptionGroup var options: DatabaseOptions

    /// The config file's `decks` with the flags over it, checked.
    func deckLimits(_ config: HubConfigFile) throws -> DeckLimits {
        var decks = config.decks ?? DeckLimits()
        if let deckRenderSeconds { decks.renderSeconds = deckRenderSeconds }
        if let deckRendersAtOnce { decks.rendersAtOnce = deckRendersAtOnce }
        if let deckStorageMB { decks.storagePerProjectMB = deckStorageMB }
        if let problem = decks.problem() { throw ValidationError("deck limits: \(problem)") }
        return decks
    }

    /// HOST:PORT (an IPv6 host in brackets, as [::]:443), or a usage error naming the option.
    static func address(_ text: String, option: String) throws -> (host: String, port: Int) {
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]),
              (0...65_535).contains(port), colon > text.startIndex
        else { throw ValidationError("\(option) \(text): use HOST:PORT, as in 127.0.0.1:8080 or [::]:443") }
        var host = text[..<colon]
        if host.hasPrefix("[") && host.hasSuffix("]") && host.count > 2 { host = host.dropFirst().dropLast() }
        guard !host.contains("[") && !host.contains("]") else {
            throw ValidationError("\(option) \(text): an IPv6 address goes in brackets, as [::]:443")
        }
        return (String(host), port)
    }

    func validate() throws {
        if (tlsCertificate == nil) != (tlsKey == nil) {
            throw ValidationError("--tls-cert and --tls-key go together: the certificate and its private key")
        }
        if let limits, limits != "on" && limits != "off" {
            throw ValidationError("--limits \(limits): use on or off")
        }
    }

    func run() async throws {
        let config = try options.configFile()
        let (host, port) = try Self.address(listen ?? config.listen ?? "127.0.0.1:8080", option: listen == nil ? "listen (--config)" : "--listen")
        let redirectHTTP = self.redirectHTTP ?? config.redirectHTTP
        let tlsCertificate = self.tlsCertificate ?? config.tls?.certificate, tlsKey = self.tlsKey ?? config.tls?.key
        if redirectHTTP != nil && tlsCertificate == nil {
            throw ValidationError("--redirect-http (redirectHTTP) redirects to HTTPS: it needs --tls-cert and --tls-key (tls)")
        }
        var limitSettings = config.limits ?? HubLimits()
        if let limits { limitSettings.enabled = limits == "on" }
        let deckLimits = try deckLimits(config)
        let redirect = try redirectHTTP.map { try Self.address($0, option: "--redirect-http") }
        var transport = HubServer.Transport.plain
        if let tlsCertificate, let tlsKey {
            let store: CertificateStore
            do {
                store = try CertificateStore(certificatePath: tlsCertificate, keyPath: tlsKey)
            } catch {
                throw HubFailure(message: "\(error)")
            }
            transport = .tls(store, redirectFrom: redirect, onRedirectRunning: { bound in
                print("nearcast-hub: redirecting http://\(redirect?.host ?? host):\(bound) to HTTPS")
                fflush(nil)
            })
        }
        let scheme = tlsCertificate == nil ? "http" : "https"
        let descriptors = DescriptorBudget.raiseToHardLimit()
        let registry = PrometheusCollectorRegistry()
        MetricsSystem.bootstrap(PrometheusMetricsFactory(registry: registry))
        let logger = try options.logger()
        let listenerFiles: ListenerFiles?
        if let listener = listener ?? config.listenerPage {
            do { listenerFiles = try ListenerFiles(directory: listener) } catch { throw ValidationError("--listener \(error)") }
        } else {
            let executable = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
            listenerFiles = ListenerFiles.find(fromExecutable: executable)
        }
        if let listenerFiles {
            logger.info("nearcast-hub: the listener page (/listen) from \(listenerFiles.directory)")
        } else {
            logger.notice("nearcast-hub: no listener page to serve at /listen (build it with tools/setup/build-web, or pass --listener DIR)")
        }
        let database = try await options.open()
        let hub = try await HubServices.make(database: database, metricsRegistry: registry, logger: logger, limits: limitSettings,
                                             decks: deckLimits)
        logger.info("nearcast-hub: database \(database.location)")
        if !limitSettings.enabled { logger.notice("nearcast-hub: limits off (--limits off, or limits.enabled false in the config file)") }
        if limitSettings.enabled && hub.limiter.connectionCap < limitSettings.connections {
            let reserve = DescriptorBudget.reserve(under: descriptors)
            logger.notice("""
                nearcast-hub: at most \(hub.limiter.connectionCap) connections, not limits.connections \(limitSettings.connections): \
                the process may open \(descriptors) descriptors (ulimit -n; LimitNOFILE= in a unit) and keeps \(reserve) for itself
                """)
        }
        let app = try HubServer.application(hub, host: host, port: port, listener: listenerFiles, transport: transport) { bound in
            // One line a script can wait for: the address really bound (port 0 picks one).
            let shown = host.contains(":") ? "[\(host)]" : host
            print("nearcast-hub: serving \(scheme)://\(shown):\(bound)")
            fflush(nil)   // all streams: stdout may be a pipe a test reads
            // Under systemd (Type=notify): started now, and what `systemctl status` shows.
            SystemdNotifier().notify("READY=1\nSTATUS=serving \(scheme)://\(shown):\(bound)")
        }
        do {
            try await app.runService()
        } catch {
            await database.close()
            throw error
        }
        await database.close()
    }
}

extension Serve {
    /// Every phone following a show holds a connection open: the soft limit on open files
    /// (often 1,024) goes up to the hard limit, as servers do, so a room of phones is not refused
    /// for want of descriptors.
}

struct ProjectCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "project", abstract: "Create and list projects, and rotate their keys.",
        subcommands: [Create.self, List.self, RotateKeys.self])

    struct RotateKeys: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "rotate-keys",
            abstract: "Replace a project's keys; prints {\"project\", \"apiKey\", \"secretKey\"} (the new ones, shown only now).",
            discussion: """
                The old keys are refused from then on: at once by every hub on a PostgreSQL database, within a \
                second by a hub on the same SQLite file. Use it when a key leaked (the public key is in every \
                audience address), and give the venue's pages and boxes the new one.
                """)

        @Argument(help: "The project.")
        var name: String

        @Option(name: .long, help: "Which keys: both (default), public or secret.")
        var only: ProjectStore.Rotation = .both

        @OptionGroup var options: DatabaseOptions

        func run() async throws {
            let rotated = try await options.withDatabase(context: "project rotate-keys \(name): ") {
                try await ProjectStore(database: $0).rotate(name: name, only)
            }
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            print(String(decoding: try encoder.encode(rotated), as: UTF8.self))
        }
    }

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Create a project; prints {\"project\", \"apiKey\", \"secretKey\"} (the keys are shown only now).")

        @Argument(help: "The project's name: its namespace in NAME/TYPE (lowercase letters, digits, dashes).")
        var name: String

        @OptionGroup var options: DatabaseOptions

        func run() async throws {
            let created = try await options.withDatabase { try await ProjectStore(database: $0).create(name: name) }
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            print(String(decoding: try encoder.encode(created), as: UTF8.self))
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the projects' names.")

        @OptionGroup var options: DatabaseOptions

        func run() async throws {
            let database = try await options.open()
            let names = try await ProjectStore(database: database).names()
            await database.close()
            for name in names { print(name) }
        }
    }
}

struct DeckCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "deck", abstract: "Add, list and remove a project's decks (PDF slides for Present).",
        subcommands: [Add.self, List.self, Remove.self])

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Render a PDF's pages and store it as a deck; prints {\"deck\": \"ID\", \"pages\": N}.",
            discussion: "Limits: 50 MB, 300 pages, 120 s of rendering and 200 MB of page images a project "
                + "(the config file's decks object sets the last two); an encrypted PDF is refused.")

        @Argument(help: "The PDF file.")
        var file: String

        @Option(name: .long, help: "The project the deck belongs to.")
        var project: String

        @Option(name: .long, help: "The deck's title (default: the file's name).")
        var title: String?

        @OptionGroup var options: DatabaseOptions

        func run() async throws {
            let created = try await options.withDatabase(context: "deck add \(file): ") {
                try await DeckLibrary(database: $0, limits: options.configFile().decks ?? DeckLimits())
                    .add(file: file, project: project, title: title)
            }
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            print(String(decoding: try encoder.encode(created), as: UTF8.self))
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List a project's decks as JSON ({\"decks\": [...]}, newest first).")

        @Option(name: .long, help: "The project.")
        var project: String

        @OptionGroup var options: DatabaseOptions

        func run() async throws {
            print(try await options.withDatabase { try await DeckLibrary(database: $0).listJSON(project: project) })
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove a deck (and end any show of it).")

        @Argument(help: "The deck's id.")
        var deck: String

        @Option(name: .long, help: "The project.")
        var project: String

        @OptionGroup var options: DatabaseOptions

        func run() async throws {
            try await options.withDatabase { try await DeckLibrary(database: $0).remove(deckID: deck, project: project) }
        }
    }
}

struct ReactionsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reactions", abstract: "Show or set the reactions a project's audience may send.",
        subcommands: [Show.self, Set.self])

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Print the project's reactions as JSON.")

        @Option(name: .long, help: "The project.")
        var project: String

        @OptionGroup var options: DatabaseOptions

        func run() async throws {
            print(try await options.withDatabase { try await ReactionLibrary(database: $0).showJSON(project: project) })
        }
    }

    struct Set: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Set the project's reactions; prints them as JSON.",
            discussion: "Up to 12 emoji and 6 PNG images of at most 32 KiB each. What is not given is kept.")

        @Option(name: .long, help: "The project.")
        var project: String

        @Option(name: .long, help: "The emoji offered, comma-separated (\"👏,❤️,😂\").")
        var emoji: String?

        @Option(name: .long, help: "An image choice, NAME=FILE.png (repeat for several; given at all, it replaces the images).")
        var image: [String] = []

        @Flag(name: .long, help: "Switch reactions off.")
        var off = false

        @Flag(name: .long, help: "Switch reactions on.")
        var on = false

        @OptionGroup var options: DatabaseOptions

        func validate() throws {
            if off && on { throw ValidationError("--on and --off together: give one") }
            for spec in image where !spec.contains("=") { throw ValidationError("--image \(spec): use NAME=FILE.png") }
        }

        func run() async throws {
            let images = image.isEmpty ? nil : image.map { spec -> (name: String, file: String) in
                let parts = spec.split(separator: "=", maxSplits: 1)
                return (String(parts[0]), String(parts[1]))
            }
            let emojiList = emoji.map { $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty } }
            print(try await options.withDatabase {
                try await ReactionLibrary(database: $0).set(project: project, enabled: off ? false : (on ? true : nil),
                                                            emoji: emojiList, images: images)
            })
        }
    }
}

extension ProjectStore.Rotation: ExpressibleByArgument {}
