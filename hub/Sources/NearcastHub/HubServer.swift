import Hummingbird
import Logging
import ServiceLifecycle

/// The hub's HTTP application: the API, watches, the operators' page, health and metrics.
public enum HubServer {
    /// The router with every route, for `serve` and for tests that drive it without a socket.
    /// `listener` is the listener page's files (`/listen`), nil when the hub serves none.
    public static func router(_ hub: HubServices, listener: ListenerFiles? = nil) -> Router<BasicRequestContext> {
        let router = Router(context: BasicRequestContext.self)
        router.add(middleware: MetricsMiddleware())
        router.add(middleware: APICORSMiddleware())
        // No request logging middleware: it logs the URI, and `?key=` may hold a secret key.
        BeaconRoutes.add(to: router, hub)
        AttachmentRoutes.add(to: router, hub)
        ObservationRoutes.add(to: router, hub)
        WatchRoutes.add(to: router, hub)
        StatusRoutes.add(to: router, hub)
        ListenerRoutes.add(to: router, listener)
        return router
    }

    /// The application listening on `host:port`, with the PostgreSQL change listener running
    /// beside it when the database is PostgreSQL.
    public static func application(_ hub: HubServices, host: String, port: Int, listener: ListenerFiles? = nil,
                                   onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in })
        -> some ApplicationProtocol {
        var services: [any Service] = []
        if hub.database.isPostgres {
            services.append(PostgresChangeListener(database: hub.database, feed: hub.feed, logger: hub.logger))
        }
        return Application(
            router: router(hub, listener: listener),
            configuration: .init(address: .hostname(host, port: port), serverName: "nearcast-hub"),
            services: services,
            onServerRunning: { channel in await onServerRunning(channel.localAddress?.port ?? port) },
            logger: hub.logger)
    }
}
