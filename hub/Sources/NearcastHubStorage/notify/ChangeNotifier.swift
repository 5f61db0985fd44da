import NearcastHub
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
        guard isPostgres else { return }
        try await db.raw("SELECT pg_notify(\(bind: channel), \(bind: Self.payload(beacon)))").run()
    }

    /// Call after the transaction committed.
    func committed(_ beacon: BeaconRef) {
        guard !isPostgres else { return }
        signal(beacon)
    }

    /// The NOTIFY payload for a beacon (`project\nbeacon name`), and back.
    static func payload(_ beacon: BeaconRef) -> String { beacon.project + "\n" + beacon.beaconName }
    static func parse(payload: String) -> BeaconRef? {
        let parts = payload.split(separator: "\n", maxSplits: 1)
        return parts.count == 2 ? BeaconRef(project: String(parts[0]), beaconName: String(parts[1])) : nil
    }
}
