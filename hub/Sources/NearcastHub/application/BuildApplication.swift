import Hummingbird
import HummingbirdCore
import HummingbirdHTTP2
import Logging
import NIOConcurrencyHelpers
import ServiceLifecycle

/// The application over services already made (`HubServices.make`), listening where
/// `configuration` says: the router with every controller, the HTTP or HTTPS server with its
/// connection guard, Present's batching, the certificate reloader and what the backend runs to
/// keep this instance in step with the others (`HubBackend.services`). The backend is
/// closed after the server has stopped. `NearcastHubStorage`'s `buildApplication(configuration:)`
/// opens the database and calls this.
package func buildApplication(_ hub: HubServices, configuration: HubConfiguration,
                              onServerRunning: @escaping @Sendable (Int) async -> Void) throws -> some ApplicationProtocol {
    let (host, port) = (configuration.host, configuration.port)
    var services: [any Service] = [BackendCloser(backend: hub.backend, showFeed: hub.present.showFeed), PresentService(hub: hub),
                                   VenueService(venue: hub.repositories.venue, share: hub.limiter.venue, heardBoxes: hub.resolver.heardBoxes,
                                                instanceID: hub.instanceID, clock: hub.clock, logger: hub.logger, storage: hub.backend),
                                   DayService(runner: hub.present.day, clock: hub.clock),
                                   ScheduleRefreshService(refresher: ScheduleRefresher(schedules: hub.repositories.schedules,
                                                                                       fetcher: ScheduleFetcher(), logger: hub.logger),
                                                          clock: hub.clock),
                                   ReachSweepService(reach: hub.repositories.reach, daysKept: hub.limiter.settings.reach.daysKept,
                                                     clock: hub.clock, logger: hub.logger)]
    let limiter = hub.limiter, guarded = limiter.settings.enabled
    // Each HTTP/1 connection and HTTP/2 stream reports its requests to its connection's
    // guard (`ConnectionGuard`), which closes connections past their timeouts.
    // ClientGoneHandler: a render stops when its uploader leaves (DeckController).
    let http1 = HTTP1Channel.Configuration(additionalChannelHandlers: (guarded ? [RequestTracker()] : []) + [ClientGoneHandler()])
    @Sendable func guarding(_ channel: some ServerChildChannel) -> any ServerChildChannel {
        guarded ? GuardedChildChannel(inner: channel, limiter: limiter, trustedProxies: configuration.trustedProxies) : channel
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
    services += hub.backend.services(hub.changeReceivers)
    return Application(
        router: buildRouter(hub, listener: configuration.listener, trustedProxies: configuration.trustedProxies),
        server: server,
        configuration: .init(address: .hostname(host, port: port), serverName: "nearcast-hub", backlog: listenBacklog),
        services: services,
        onServerRunning: { channel in
            let bound = channel.localAddress?.port ?? port
            boundPort.withLockedValue { $0 = bound }
            await onServerRunning(bound)
        },
        logger: hub.logger)
}

/// The queue of connections the kernel holds until the hub accepts them: a new talk's first page
/// is fetched by every phone in the room at once, and a connection the kernel drops at a full
/// queue costs its phone a second before the SYN is sent again. Linux caps it at
/// `net.core.somaxconn` (4096 on Debian 12 and 13).
let listenBacklog = 4096

/// Says at start what the limits are when they are not the usual: off, or fewer connections
/// than configured because the process may not open enough descriptors.
package func noteLimits(_ limits: HubLimits, _ limiter: HubLimiter, logger: Logger) {
    if !limits.enabled { logger.notice("nearcast-hub: limits off (--limits off, or limits.enabled false in the config file)") }
    if limits.enabled && limiter.connectionCap < limits.connections.total {
        let descriptors = DescriptorBudget.current(), reserve = DescriptorBudget.reserve(under: descriptors)
        logger.notice("""
            nearcast-hub: at most \(limiter.connectionCap) connections, not limits.connections \(limits.connections.total): \
            the process may open \(descriptors) descriptors (ulimit -n; LimitNOFILE= in a unit) and keeps \(reserve) for itself
            """)
    }
}

/// Closes the backend once everything that uses it has stopped: it is the application's first
/// service, and a service group stops its services in reverse order.
struct BackendCloser: Service {
    let backend: any HubBackend
    /// Its reads are waited for first.
    let showFeed: ShowFeed

    func run() async throws {
        try? await gracefulShutdown()
        await showFeed.stop()
        await backend.close()
    }
}
