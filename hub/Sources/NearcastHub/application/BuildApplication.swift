import Hummingbird
import HummingbirdCore
import HummingbirdHTTP2
import Logging
import NIOConcurrencyHelpers
import ServiceLifecycle

/// The whole hub from its configuration: the database opened (its schema brought up to date),
/// the services made, the router with every controller, the HTTP or HTTPS server with its
/// connection guard, Present's batching, the certificate reloader and, on PostgreSQL, the
/// listeners that keep this instance in step with the others. `nearcast-hub serve` parses its
/// options into a `HubConfiguration` and runs what this returns; the database is closed after
/// the server has stopped.
public func buildApplication(configuration: HubConfiguration,
                             onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in })
    async throws -> some ApplicationProtocol {
    let logger = configuration.logger
    let database = try await HubDatabase.open(configuration.database, logger: logger)
    let hub: HubServices
    do {
        hub = try await HubServices.make(storage: .database(database), metricsRegistry: configuration.metricsRegistry, logger: logger,
                                         clock: configuration.clock, limits: configuration.limits, decks: configuration.decks)
    } catch {
        await database.close()
        throw error
    }
    logger.info("nearcast-hub: database \(database.location)")
    noteLimits(configuration.limits, hub.limiter, logger: logger)
    do {
        return try buildApplication(hub, configuration: configuration, onServerRunning: onServerRunning)
    } catch {
        await database.close()
        throw error
    }
}

/// The application over services already made (`HubServices.make`), listening where
/// `configuration` says.
func buildApplication(_ hub: HubServices, configuration: HubConfiguration,
                      onServerRunning: @escaping @Sendable (Int) async -> Void) throws -> some ApplicationProtocol {
    guard let database = hub.database else { throw HubConfigurationError("a hub that serves needs a database, not memory") }
    let (host, port) = (configuration.host, configuration.port)
    var services: [any Service] = [DatabaseCloser(database: database, showFeed: hub.present.showFeed), PresentService(hub: hub)]
    let limiter = hub.limiter, guarded = limiter.settings.enabled
    // Each HTTP/1 connection and HTTP/2 stream reports its requests to its connection's
    // guard (`ConnectionGuard`), which closes connections past their timeouts.
    // ClientGoneHandler: a render stops when its uploader leaves (DeckController).
    let http1 = HTTP1Channel.Configuration(additionalChannelHandlers: (guarded ? [RequestTracker()] : []) + [ClientGoneHandler()])
    @Sendable func guarding(_ channel: some ServerChildChannel) -> any ServerChildChannel {
        guarded ? GuardedChildChannel(inner: channel, limiter: limiter) : channel
    }
    var server = HTTPServerBuilder { responder in guarding(HTTP1Channel(responder: responder, configuration: http1)) }
    let boundPort = NIOLockedValueBox(configuration.port)
    if case .plain = configuration.transport { services.append(CertificateReloader(store: nil, logger: hub.logger)) }
    if case .tls(let store, let redirect, let onRedirectRunning) = configuration.transport {
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
    if database.isPostgres {
        let feed = hub.feed, showFeed = hub.present.showFeed
        /// A listener whose payloads name a beacon's changes (`project\nbeacon name`).
        func beaconChanges(_ channel: String, connected: @escaping @Sendable () -> Void, changed: @escaping @Sendable (String, String) -> Void,
                           stopped: @escaping @Sendable () -> Void) -> PostgresChangeListener {
            PostgresChangeListener(database: database, channel: channel, logger: hub.logger, connected: connected,
                                   received: { payload in
                                       guard let (project, beaconName) = ChangeFeed.parse(payload: payload) else { return }
                                       changed(project, beaconName)
                                   }, stopped: stopped)
        }
        services.append(beaconChanges(ChangeNotifier.attachmentsChannel, connected: { feed.publishAll() },
                                      changed: { feed.publish(BeaconRef(project: $0, beaconName: $1)) }, stopped: { feed.finishAll() }))
        services.append(beaconChanges(ChangeNotifier.showsChannel, connected: { showFeed.changedAll() },
                                      changed: { showFeed.changed(BeaconRef(project: $0, beaconName: $1)) }, stopped: { showFeed.finishAll() }))
        services.append(PostgresChangeListener(
            database: database, channel: ChangeNotifier.reactionsChannel, logger: hub.logger,
            connected: {}, received: { ReactionNotifier.deliver(payload: $0, to: showFeed) }, stopped: {}))
        // A change committed through any instance: the in-memory views synchronise before
        // their next answer (and after a reconnection, since a notification may have been lost).
        let changes = database.changes
        services.append(PostgresChangeListener(
            database: database, channel: ChangeSignal.channel, logger: hub.logger,
            connected: { changes.bump() }, received: { _ in changes.bump() }, stopped: {}))
        // A key rotation anywhere: forget the keys checked lately, so old keys fail at once
        // (and when the listener reconnects, since a rotation may have been missed).
        let keyCache = hub.keys.cache
        services.append(PostgresChangeListener(
            database: database, channel: ProjectStore.keysChannel, logger: hub.logger,
            connected: { keyCache.clear() }, received: { _ in keyCache.clear() }, stopped: {}))
    }
    return Application(
        router: buildRouter(hub, listener: configuration.listener),
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

/// Says at start what the limits are when they are not the usual: off, or fewer connections
/// than configured because the process may not open enough descriptors.
private func noteLimits(_ limits: HubLimits, _ limiter: HubLimiter, logger: Logger) {
    if !limits.enabled { logger.notice("nearcast-hub: limits off (--limits off, or limits.enabled false in the config file)") }
    if limits.enabled && limiter.connectionCap < limits.connections.total {
        let descriptors = DescriptorBudget.current(), reserve = DescriptorBudget.reserve(under: descriptors)
        logger.notice("""
            nearcast-hub: at most \(limiter.connectionCap) connections, not limits.connections \(limits.connections.total): \
            the process may open \(descriptors) descriptors (ulimit -n; LimitNOFILE= in a unit) and keeps \(reserve) for itself
            """)
    }
}

/// Closes the database once everything that uses it has stopped: it is the application's first
/// service, and a service group stops its services in reverse order.
struct DatabaseCloser: Service {
    let database: HubDatabase
    /// Its reads are waited for first.
    let showFeed: ShowFeed

    func run() async throws {
        try? await gracefulShutdown()
        await showFeed.stop()
        await database.close()
    }
}
