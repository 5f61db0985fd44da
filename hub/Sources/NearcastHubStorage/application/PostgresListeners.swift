import NearcastHub
import ServiceLifecycle

/// What keeps an instance on PostgreSQL in step with the others sharing the database: one LISTEN
/// connection per channel (`PostgresChangeListener`), each feeding the in-memory part that
/// channel's changes concern. SQLite has no others to hear: one process uses its file.
enum PostgresListeners {
    static func services(database: HubDatabase, _ receivers: ChangeReceivers) -> [any Service] {
        let (feed, showFeed, logger) = (receivers.feed, receivers.showFeed, receivers.logger)
        var services: [any Service] = []
        /// A listener whose payloads name a beacon's changes (`project\\nbeacon name`).
        func beaconChanges(_ channel: String, connected: @escaping @Sendable () -> Void, changed: @escaping @Sendable (BeaconRef) -> Void,
                           stopped: @escaping @Sendable () -> Void) -> PostgresChangeListener {
            PostgresChangeListener(database: database, channel: channel, logger: logger, connected: connected,
                                   received: { payload in
                                       guard let beacon = ChangeNotifier.parse(payload: payload) else { return }
                                       changed(beacon)
                                   }, stopped: stopped)
        }
        services.append(beaconChanges(ChangeNotifier.attachmentsChannel, connected: { feed.publishAll() },
                                      changed: { feed.publish($0) }, stopped: { feed.finishAll() }))
        services.append(beaconChanges(ChangeNotifier.showsChannel, connected: { showFeed.changedAll() },
                                      changed: { showFeed.changed($0) }, stopped: { showFeed.finishAll() }))
        services.append(PostgresChangeListener(
            database: database, channel: ChangeNotifier.reactionsChannel, logger: logger,
            connected: {}, received: { ReactionNotifier.deliver(payload: $0, to: showFeed) }, stopped: {}))
        // A change committed through any instance: the in-memory views synchronise before
        // their next answer (and after a reconnection, since a notification may have been lost).
        let changes = database.changes
        services.append(PostgresChangeListener(
            database: database, channel: ChangeCounter.channel, logger: logger,
            connected: { changes.bump() }, received: { _ in changes.bump() }, stopped: {}))
        // A key rotation anywhere: forget the keys checked lately, so old keys fail at once
        // (and when the listener reconnects, since a rotation may have been missed).
        let keyCache = receivers.keyCache
        services.append(PostgresChangeListener(
            database: database, channel: ProjectStore.keysChannel, logger: logger,
            connected: { keyCache.clear() }, received: { _ in keyCache.clear() }, stopped: {}))
        return services
    }
}
