import Logging
import Prometheus

/// Everything `nearcast-hub serve` decides before the hub starts, as values: where it listens
/// and how (plain HTTP or HTTPS), its database, its pages, its limits, its log and metrics.
/// `buildApplication(configuration:)` makes the hub from it; tests make one by hand.
public struct HubConfiguration: Sendable {
    public var host: String
    /// 0 picks a free port (the application's `onServerRunning` is told which).
    public var port: Int
    public var database: DatabaseLocation
    /// The listener and presenter pages' files, nil when the hub serves none.
    public var listener: ListenerFiles?
    public var transport: HubTransport
    public var limits: HubLimits
    public var decks: DeckLimits
    public var logger: Logger
    /// Where `/metrics` reads from; nil answers it 404.
    public var metricsRegistry: PrometheusCollectorRegistry?
    public var clock: HubClock
    /// The load balancers in front, whose `X-Forwarded-For` names the client (`TrustedProxies`).
    public var trustedProxies: TrustedProxies

    public init(host: String = "127.0.0.1", port: Int = 8080, database: DatabaseLocation = .defaultLocation,
                listener: ListenerFiles? = nil, transport: HubTransport = .plain, limits: HubLimits = HubLimits(),
                decks: DeckLimits = DeckLimits(), logger: Logger, metricsRegistry: PrometheusCollectorRegistry? = nil,
                clock: HubClock = .system, trustedProxies: TrustedProxies = .none) {
        self.host = host
        self.port = port
        self.database = database
        self.listener = listener
        self.transport = transport
        self.limits = limits
        self.decks = decks
        self.logger = logger
        self.metricsRegistry = metricsRegistry
        self.clock = clock
        self.trustedProxies = trustedProxies
    }
}

/// How the hub speaks to its clients: plain HTTP/1.1, or HTTPS (HTTP/2 by ALPN, HTTP/1.1
/// still served) with its certificate re-read on SIGHUP, and optionally a plain-HTTP listener
/// that only redirects to it.
public enum HubTransport: Sendable {
    case plain
    case tls(CertificateStore, redirectFrom: (host: String, port: Int)?, onRedirectRunning: @Sendable (Int) async -> Void)
}
