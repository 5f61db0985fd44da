import Hummingbird
import HummingbirdCore
import HummingbirdHTTP2
import Logging
import NIOConcurrencyHelpers
import ServiceLifecycle

/// The hub's HTTP application: the API, watches, Present, the operators' page, health and
/// metrics, and the listener and presenter pages.
public enum HubServer {
    /// The router with every route, for `serve` and for tests that drive it without a socket.
    /// `listener` is the pages' files (`/listen`, `/present`), nil when the hub serves none.
    ///
    /// Routes come in three groups by the key they need: none (`eidparams`, the pages, joining by
    /// sight), any of the project's keys (`KeyMiddleware(.read)`: getforobserved, watches,
    /// following a show, reacting, sending a field check) and the secret key (`KeyMiddleware(.manage)`).
    public static func router(_ hub: HubServices, listener: ListenerFiles? = nil) -> Router<HubRequestContext> {
        let router = Router(context: HubRequestContext.self)
        // First, so it is outermost: every answer, refusals included, carries the security headers.
        router.add(middleware: SecurityHeadersMiddleware())
        router.add(middleware: MetricsMiddleware())
        router.add(middleware: ClientGoneMiddleware())
        router.add(middleware: UnexpectedErrorMiddleware(logger: hub.logger))
        router.add(middleware: APICORSMiddleware())
        router.add(middleware: AddressRateMiddleware(hub: hub))
        // No request logging middleware: it logs the URI, and `?key=` may hold a secret key.
        let readers = router.group().add(middleware: KeyMiddleware(hub: hub, need: .read))
        let managers = router.group().add(middleware: KeyMiddleware(hub: hub, need: .manage))
        BeaconRoutes.add(to: managers, hub)
        AttachmentRoutes.add(to: managers, hub)
        ObservationRoutes.add(open: router, readers: readers, hub)
        FieldCheckRoutes.add(managers: managers, readers: readers, hub)
        WatchRoutes.add(to: readers, hub)
        DeckRoutes.add(managers: managers, readers: readers, hub)
        ShowRoutes.add(managers: managers, readers: readers, hub)
        ReactionRoutes.add(open: router, managers: managers, readers: readers, hub)
        PhoneRoutes.add(readers: readers, hub)
        PresenceRoutes.add(open: router, hub)
        StatusRoutes.add(to: router, hub)
        ListenerRoutes.add(to: router, listener)
        return router
    }

    /// How the hub speaks to its clients: plain HTTP/1.1, or HTTPS (HTTP/2 by ALPN, HTTP/1.1
    /// still served) with its certificate re-read on SIGHUP, and optionally a plain-HTTP
    /// listener that only redirects to it.
    public enum Transport: Sendable {
        case plain
        case tls(CertificateStore, redirectFrom: (host: String, port: Int)?, onRedirectRunning: @Sendable (Int) async -> Void)
    }

    /// The application listening on `host:port`, with Present's batching and, when the database
    /// is PostgreSQL, the change listeners running beside it.
    public static func application(_ hub: HubServices, host: String, port: Int, listener: ListenerFiles? = nil,
                                   transport: Transport = .plain,
                                   onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in })
        throws -> some ApplicationProtocol {
        var services: [any Service] = [PresentService(hub: hub)]
        let limiter = hub.limiter, guarded = limiter.settings.enabled
        // Each HTTP/1 connection and HTTP/2 stream reports its requests to its connection's
        // guard (`ConnectionGuard`), which closes connections past their timeouts.
        // ClientGoneHandler: a render stops when its uploader leaves (DeckRoutes).
        let http1 = HTTP1Channel.Configuration(additionalChannelHandlers: (guarded ? [RequestTracker()] : []) + [ClientGoneHandler()])
        @Sendable func guarding(_ channel: some ServerChildChannel) -> any ServerChildChannel {
            guarded ? GuardedChildChannel(inner: channel, limiter: limiter) : channel
        }
        var server = HTTPServerBuilder { responder in guarding(HTTP1Channel(responder: responder, configuration: http1)) }
        let boundPort = NIOLockedValueBox(port)
        if case .plain = transport { services.append(CertificateReloader(store: nil, logger: hub.logger)) }
        if case .tls(let store, let redirect, let onRedirectRunning) = transport {
            let tlsConfiguration = try store.serverConfiguration()
            server = HTTPServerBuilder { responder in
                guarding(try HTTP2UpgradeChannel(tlsConfiguration: tlsConfiguration,
                                                 configuration: .init(streamConfiguration: http1), responder: responder))
            }
            services.append(CertificateReloader(store: store, logger: hub.logger))
            if let redirect {
                // A redirect is all this listener says: a connection is closed two seconds after
                // its answer (an HTTP/1.0 client that sends no Connection: close would otherwise
                // hold it until the idle timeout), and it counts under the same connection caps.
                let redirectChannel = HTTP1Channel.Configuration(additionalChannelHandlers: guarded ? [RequestTracker()] : [],
                                                                 idleTimeout: .seconds(2))
                services.append(Application(
                    responder: HTTPSRedirect(httpsPort: { boundPort.withLockedValue { $0 } }),
                    server: HTTPServerBuilder { responder in guarding(HTTP1Channel(responder: responder, configuration: redirectChannel)) },
                    configuration: .init(address: .hostname(redirect.host, port: redirect.port), serverName: "nearcast-hub"),
                    onServerRunning: { channel in await onRedirectRunning(channel.localAddress?.port ?? redirect.port) },
                    logger: hub.logger))
            }
        }
        if hub.database.isPostgres {
            let feed = hub.feed, showFeed = hub.showFeed
            /// A listener whose payloads name a beacon's changes (`project\nbeacon name`).
            func beaconChanges(_ channel: String, connected: @escaping @Sendable () -> Void, changed: @escaping @Sendable (String, String) -> Void,
                               stopped: @escaping @Sendable () -> Void) -> PostgresChangeListener {
                PostgresChangeListener(database: hub.database, channel: channel, logger: hub.logger, connected: connected,
                                       received: { payload in
                                           guard let (project, beaconName) = ChangeFeed.parse(payload: payload) else { return }
                                           changed(project, beaconName)
                                       }, stopped: stopped)
            }
            services.append(beaconChanges(ChangeNotifier.attachmentsChannel, connected: { feed.publishAll() },
                                          changed: { feed.publish(project: $0, beaconName: $1) }, stopped: { feed.finishAll() }))
            services.append(beaconChanges(ChangeNotifier.showsChannel, connected: { showFeed.changedAll() },
                                          changed: { showFeed.changed(project: $0, beaconName: $1) }, stopped: { showFeed.finishAll() }))
            services.append(PostgresChangeListener(
                database: hub.database, channel: ChangeNotifier.reactionsChannel, logger: hub.logger,
                connected: {}, received: { PresentService.deliver(reactionPayload: $0, to: showFeed) }, stopped: {}))
            // A change committed through any instance: the in-memory views synchronise before
            // their next answer (and after a reconnection, since a notification may have been lost).
            let changes = hub.database.changes
            services.append(PostgresChangeListener(
                database: hub.database, channel: ChangeSignal.channel, logger: hub.logger,
                connected: { changes.bump() }, received: { _ in changes.bump() }, stopped: {}))
            // A key rotation anywhere: forget the keys checked lately, so old keys fail at once
            // (and when the listener reconnects, since a rotation may have been missed).
            let keyCache = hub.keyCache
            services.append(PostgresChangeListener(
                database: hub.database, channel: ProjectStore.keysChannel, logger: hub.logger,
                connected: { keyCache.clear() }, received: { _ in keyCache.clear() }, stopped: {}))
        }
        return Application(
            router: router(hub, listener: listener),
            server: server,
            configuration: .init(address: .hostname(host, port: port), serverName: "nearcast-hub"),
            services: services,
            onServerRunning: { channel in
                let bound = channel.localAddress?.port ?? port
                boundPort.withLockedValue { $0 = bound }
                await onServerRunning(bound)
            },
            logger: hub.logger)
    }
}
