import SQLKit

/// How a write tells watchers: NOTIFY inside the transaction on PostgreSQL (delivered to every
/// instance when, and only if, it commits), or a local signal after commit on SQLite.
struct ChangeNotifier: Sendable {
    static let channel = "nearcast_changes"

    let isPostgres: Bool
    let feed: ChangeFeed

    /// Call inside the writing transaction.
    func announce(_ db: any SQLDatabase, project: String, beaconName: String) async throws {
        guard isPostgres else { return }
        try await db.raw("""
            SELECT pg_notify(\(bind: Self.channel), \(bind: ChangeFeed.payload(project: project, beaconName: beaconName)))
            """).run()
    }

    /// Call after the transaction committed.
    func committed(project: String, beaconName: String) {
        guard !isPostgres else { return }
        feed.publish(project: project, beaconName: beaconName)
    }
}
