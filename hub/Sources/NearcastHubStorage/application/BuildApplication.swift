import Hummingbird
import NearcastHub

/// The whole hub from its configuration: the database opened (its schema brought up to date),
/// the services made over it (`SQLBackend`), and the application `NearcastHub` builds over them
/// (the router, the server, Present's batching and, on PostgreSQL, the listeners that keep this
/// instance in step with the others). `nearcast-hub serve` parses its options into a
/// `HubConfiguration` and runs what this returns; the database is closed after the server has
/// stopped.
public func buildApplication(configuration: HubConfiguration,
                             onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in })
    async throws -> some ApplicationProtocol {
    let logger = configuration.logger
    let database = try await HubDatabase.open(configuration.database, logger: logger)
    let hub: HubServices
    do {
        hub = try await HubServices.make(backend: SQLBackend(database: database), metricsRegistry: configuration.metricsRegistry,
                                         logger: logger, clock: configuration.clock, limits: configuration.limits,
                                         decks: configuration.decks)
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
