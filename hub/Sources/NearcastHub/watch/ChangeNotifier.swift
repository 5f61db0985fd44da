import SQLKit

/// How a write tells watchers: NOTIFY inside the transaction on PostgreSQL (delivered to every
/// instance when, and only if, it commits), or a local signal after commit on SQLite. One
/// notifier per channel: attachments (`nearcast_changes`) and shows (`nearcast_shows`).
struct ChangeNotifier: Sendable {
    static let attachmentsChannel = "nearcast_changes"
    static let showsChannel = "nearcast_shows"
    /// Batches of reactions for the presenters' streams, whichever instance they are on.
    static let reactionsChannel = "nearcast_reactions"

    let channel: String
    let isPostgres: Bool
    /// This instance's watchers of (project, beacon name).
    let signal: @Sendable (BeaconRef) -> Void

    /// Call inside the writing transaction.
    func announce(_ db: any SQLDatabase, _ beacon: BeaconRef) async throws {
        let (project, beaconName) = (beacon.project, beacon.beaconName)
        guard isPostgres else { return }
        try await db.raw("""
            SELECT pg_notify(\(bind: channel), \(bind: ChangeFeed.payload(BeaconRef(project: project, beaconName: beaconName))))
            """).run()
    }

    /// Call after the transaction committed.
    func committed(_ beacon: BeaconRef) {
        guard !isPostgres else { return }
        signal(beacon)
    }
}
