import Logging
import NearcastHub
import PostgresNIO
import ServiceLifecycle

/// LISTENs on a PostgreSQL channel for changes made through any hub instance and hands each
/// payload to this instance. When the connection drops it reconnects with backoff (0.5 s doubling
/// to 10 s), and after each (re)connect calls `connected`, since notifications sent meanwhile
/// are lost (watchers re-read).
struct PostgresChangeListener: Service {
    let database: HubDatabase
    let channel: String
    let logger: Logger
    let connected: @Sendable () -> Void
    let received: @Sendable (String) -> Void
    let stopped: @Sendable () -> Void

    func run() async throws {
        var backoff: Duration = .milliseconds(500)
        while !Task.isCancelled {
            do {
                guard let connection = try await database.makeListenConnection() else { return }
                defer { Task { try? await connection.close() } }
                try await connection.listen(on: channel) { notifications in
                    logger.info("watch: listening for changes on PostgreSQL channel \(channel)")
                    backoff = .milliseconds(500)
                    connected()
                    for try await notification in notifications.cancelOnGracefulShutdown() {
                        received(notification.payload)
                    }
                }
                if Task.isCancelled || Task.isShuttingDownGracefully { break }
            } catch {
                if Task.isCancelled || Task.isShuttingDownGracefully { break }
                logger.warning("watch: PostgreSQL LISTEN connection on \(channel) lost (\(error)); retrying in \(backoff)")
            }
            try? await Task.sleep(for: backoff)
            backoff = min(backoff * 2, .seconds(10))
        }
        stopped()
    }
}
