import Hummingbird
import Logging
import Prometheus

/// The operators' page (`GET /`, with its stylesheet and script beside it), the notice pages'
/// stylesheet, `GET /healthz` (a load balancer's check: the database answers) and `GET /metrics`
/// (Prometheus).
struct StatusController: Sendable {
    let database: any StorageHealth
    let feed: ChangeFeed
    let eidTable: BeaconIndex
    /// The instances serving the venue (`VenueShare`).
    let venue: VenueShare
    let metricsRegistry: PrometheusCollectorRegistry?
    let logger: Logger

    var endpoints: RouteCollection<HubRequestContext> {
        let router = RouteCollection(context: HubRequestContext.self)
        /// One of the hub's own texts, as `type`.
        func serve(_ path: String, _ type: String, _ text: String) {
            router.get(RouterPath(path)) { _, _ in
                Response(status: .ok, headers: [.contentType: type, .cacheControl: "no-cache"],
                         body: .init(byteBuffer: ByteBuffer(string: text)))
            }
        }
        serve("/", "text/html; charset=utf-8", StatusPage.html)
        serve(StatusPage.stylePath, "text/css; charset=utf-8", StatusPage.css)
        serve(StatusPage.scriptPath, "text/javascript; charset=utf-8", StatusPage.script)
        serve(StatusReachSection.scriptPath, "text/javascript; charset=utf-8", StatusReachSection.script)
        serve(NoticePage.stylePath, "text/css; charset=utf-8", NoticePage.css)
        router.get("/healthz") { _, _ in
            do {
                try await database.ping()
            } catch {
                // The details go to the log, not to whoever asks.
                logger.error("healthz: the database does not answer: \(database.describe(error))")
                throw APIError(.serviceUnavailable, "the database does not answer")
            }
            return HealthJSON(status: "ok", database: database.kindName,
                              watches: String(feed.watchCount), eidTableEntries: String(await eidTable.tableSize),
                              instances: String(venue.instances))
        }
        router.get("/metrics") { _, _ in
            guard let registry = metricsRegistry else { throw APIError.notFound("/metrics") }
            var buffer: [UInt8] = []
            registry.emit(into: &buffer)
            return Response(status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                            body: .init(byteBuffer: ByteBuffer(bytes: buffer)))
        }
        return router
    }
}

/// `GET /healthz`'s answer (the values as text, as it always answered).
struct HealthJSON: ResponseEncodable {
    var status: String
    var database: String
    var watches: String
    var eidTableEntries: String
    /// The hub instances alive on the venue's database (1 alone).
    var instances: String
}
