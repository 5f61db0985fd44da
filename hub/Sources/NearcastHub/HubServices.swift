import Logging
import Metrics
import Prometheus

/// Everything a request handler uses, made once at start: the stores over the one database, the
/// service key, the resolver cache and the watch feed.
public struct HubServices: Sendable {
    /// The rotation exponents a beacon may register with. Below 2^5 s a beacon's window would
    /// hold hundreds of EIDs; 15 is the Eddystone maximum.
    static let exponents = 5...15

    public let database: HubDatabase
    public let projects: ProjectStore
    let beacons: BeaconStore
    let attachments: AttachmentStore
    let serviceKey: ServiceKey
    let resolverCache: EIDResolverCache
    public let feed: ChangeFeed
    let metricsRegistry: PrometheusCollectorRegistry?
    let logger: Logger

    /// Loads (or, on the first start, makes) the service key; the schema is already current.
    public static func make(database: HubDatabase, metricsRegistry: PrometheusCollectorRegistry? = nil,
                            logger: Logger) async throws -> HubServices {
        let feed = ChangeFeed()
        let notifier = ChangeNotifier(isPostgres: database.isPostgres, feed: feed)
        let beacons = BeaconStore(database: database, notifier: notifier)
        return HubServices(
            database: database, projects: ProjectStore(database: database), beacons: beacons,
            attachments: AttachmentStore(database: database, notifier: notifier),
            serviceKey: try await ServiceKey.load(from: database),
            resolverCache: EIDResolverCache(store: beacons, logger: logger), feed: feed,
            metricsRegistry: metricsRegistry, logger: logger)
    }

    /// The caller's project and rights; 401 without a key, 403 with an unknown one or a public
    /// key where the secret one is needed.
    func access(_ request: Request, manage: Bool) async throws -> ProjectStore.Access {
        guard let key = RequestSupport.key(of: request) else { throw APIError.unauthenticated }
        guard let access = try await projects.access(forKey: key) else { throw APIError.wrongKey }
        if manage && !access.canManage {
            throw APIError(.forbidden, "this call needs the project's secret key; the public API key only reads")
        }
        return access
    }
}

import Hummingbird
