import Foundation
import NearcastHub
import SQLKit

/// How a batch of reactions reaches its show's presenters, whichever instance they follow on:
/// NOTIFY `nearcast_reactions` inside the transaction that counted it on PostgreSQL (delivered to
/// every instance, the writer included, when it commits), this instance's streams after commit on
/// SQLite (`ShowFeed.sendReactions`).
struct ReactionNotifier: Sendable {
    /// Reactions per NOTIFY: PostgreSQL's payload limit is 8,000 bytes.
    static let reactionsPerNotification = 50

    let isPostgres: Bool
    let feed: ShowFeed

    /// Call inside the counting transaction.
    func announce(_ db: any SQLDatabase, _ key: BeaconRef, _ batch: ReactionBatchJSON) async throws {
        guard isPostgres else { return }
        for start in stride(from: 0, to: batch.reactions.count, by: Self.reactionsPerNotification) {
            let end = min(start + Self.reactionsPerNotification, batch.reactions.count)
            let chunk = ReactionBatchJSON(reactions: Array(batch.reactions[start..<end]), counts: batch.counts)
            let payload = ChangeNotifier.payload(key) + "\n"
                + String(decoding: try JSONText.encode(chunk), as: UTF8.self)
            try await db.raw("SELECT pg_notify(\(bind: ChangeNotifier.reactionsChannel), \(bind: payload))").run()
        }
    }

    /// Call after the transaction committed.
    func committed(_ key: BeaconRef, _ batch: ReactionBatchJSON) throws {
        guard !isPostgres else { return }
        try feed.sendReactions(key, batch)
    }

    /// A batch NOTIFYed by any instance: to this instance's presenters of that show.
    static func deliver(payload: String, to feed: ShowFeed) {
        let parts = payload.split(separator: "\n", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count == 3 else { return }
        feed.sendToPresenters(BeaconRef(project: String(parts[0]), beaconName: String(parts[1])),
                              ShowFeed.event("reactions", json: Data(parts[2].utf8)))
    }
}
