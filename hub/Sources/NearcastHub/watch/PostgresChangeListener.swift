import Logging
import PostgresNIO
import ServiceLifecycle

/// LISTENs on PostgreSQL for changes made through any hub instance and signals this instance's
/// watchers. When the connection drops it reconnects with backoff (0.5 s doubling to 10 s), and
/// after each (re)connect every watcher re-reads, since notifications sent meanwhile are lost.
struct PostgresChangeListener: Service {
    let database: HubDatabase
    let feed: ChangeFeed
    let logger: Logger

    func run() async throws {
        var backoff: Duration = .milliseconds(500)
        while !Task.isCancelled {
            do {
                guard let connection = try await database.makeListenConnection() else { return }
                defer { Task { try? await connection.close() } }
                try await connection.listen(on: ChangeNotifier.channel) { notifications in
                    logger.info("watch: listening for changes on PostgreSQL channel \(ChangeNotifier.channel)")
                    backoff = .milliseconds(500)
                    feed.publishAll()
                    for try await notification in notifications.cancelOnGracefulShutdown() {
                        guard let (project, beaconName) = ChangeFeed.parse(payload: notification.payload) else { continue }
                        feed.publish(project: project, beaconName: beaconName)
                    }
                }
                if Task.isCancelled || Task.isShuttingDownGracefully { break }
            } catch {
                if Task.isCancelled || Task.isShuttingDownGracefully { break }
                logger.warning("watch: PostgreSQL LISTEN connection lost (\(error)); retrying in \(backoff)")
            }
            try? await Task.sleep(for: backoff)
            backoff = min(backoff * 2, .seconds(10))
        }
        feed.finishAll()
    }
}
