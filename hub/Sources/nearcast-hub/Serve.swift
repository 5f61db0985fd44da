import ArgumentParser
import Foundation
import Hummingbird
import Logging
import Metrics
import NearcastHub
import NearcastHubStorage
import NearcastSystemd
import Prometheus

/// `nearcast-hub serve`: its options parsed into a `HubConfiguration`, the application built
/// by the library's `buildApplication(configuration:)` and run until SIGTERM or SIGINT.
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
        var transport = HubTransport.plain
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
        // Every phone following a show holds a connection open: the soft limit on open files
        // (often 1,024) goes up to the hard limit, as servers do.
        _ = DescriptorBudget.raiseToHardLimit()
        let registry = PrometheusCollectorRegistry()
        MetricsSystem.bootstrap(PrometheusMetricsFactory(registry: registry))
        let logger = try options.logger()
        let configuration = HubConfiguration(
            host: host, port: port, database: try options.location(), listener: try listenerFiles(config, logger: logger),
            transport: transport, limits: limitSettings, decks: deckLimits, logger: logger, metricsRegistry: registry,
            trustedProxies: config.trustedProxies ?? .none)
        if let proxies = config.trustedProxies, !proxies.isEmpty {
            logger.info("nearcast-hub: the client's address from X-Forwarded-For when the peer is one of \(proxies)")
        }
        // Under systemd (Type=notify): told once the hub listens; a $NOTIFY_SOCKET that cannot be
        // used is said, and the hub serves anyway (systemd then times the start out and says so).
        let notifier: SystemdNotifier?
        do {
            notifier = try SystemdNotifier.fromEnvironment()
        } catch {
            logger.warning("nearcast-hub: systemd will not be told the hub started: \(error)")
            notifier = nil
        }
        do {
            let app = try await buildApplication(configuration: configuration) { bound in
                // One line a script can wait for: the address really bound (port 0 picks one).
                let shown = host.contains(":") ? "[\(host)]" : host
                print("nearcast-hub: serving \(scheme)://\(shown):\(bound)")
                fflush(nil)   // all streams: stdout may be a pipe a test reads
                // Started now, and what `systemctl status` shows.
                notifier?.send(.ready, .status("serving \(scheme)://\(shown):\(bound)"))
            }
            try await app.runService()
        } catch let error as HubConfigurationError {
            throw CleanExit.message("nearcast-hub: \(error.description)").asFailure
        }
    }

    /// The pages to serve: `--listener` (or the config's `listenerPage`), else those installed
    /// beside the executable or built in its checkout; nil (and a notice) when there are none.
    private func listenerFiles(_ config: HubConfigFile, logger: Logger) throws -> ListenerFiles? {
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
        return listenerFiles
    }
}
