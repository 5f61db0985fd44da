import Crypto
import Foundation
import NearcastHub
import ServiceLifecycle
import SQLKit

/// The hub's database as its `HubBackend`: the SQL stores over one `HubDatabase` (SQLite or
/// PostgreSQL), the service key kept in it, and on PostgreSQL the listeners that keep this
/// instance in step with the others (`PostgresListeners`).
public struct SQLBackend: HubBackend {
    public let database: HubDatabase

    public init(database: HubDatabase) { self.database = database }

    package var kindName: String { database.isPostgres ? "postgres" : "sqlite" }
    package var locationText: String { database.location.description }

    package func ping() async throws {
        try await database.read { db in try await db.raw("SELECT 1").run() }
    }

    package func isUnavailable(_ error: any Error) -> Bool { HubDatabase.isUnavailable(error) }
    package func describe(_ error: any Error) -> String { HubDatabase.describe(error) }

    package func makeRepositories(_ parts: RepositoryParts) -> HubRepositories {
        let (feed, showFeed, clock) = (parts.feed, parts.showFeed, parts.clock)
        let notifier = ChangeNotifier(channel: ChangeNotifier.attachmentsChannel, isPostgres: database.isPostgres) {
            feed.publish($0)
        }
        let showNotifier = ChangeNotifier(channel: ChangeNotifier.showsChannel, isPostgres: database.isPostgres) {
            showFeed.changed($0)
        }
        let beacons = BeaconStore(database: database, notifier: notifier)
        return HubRepositories(
            projects: ProjectStore(database: database, clock: clock), beacons: beacons, beaconChanges: beacons,
            attachments: AttachmentStore(database: database, notifier: notifier, clock: clock),
            fieldChecks: FieldCheckStore(database: database, clock: clock, keptPerProject: parts.limits.fieldChecks.keptPerProject),
            decks: DeckStore(database: database, clock: clock, notifier: showNotifier, quotaBytes: parts.decks.storagePerProjectBytes),
            shows: ShowStore(database: database, notifier: showNotifier,
                             reactions: ReactionNotifier(isPostgres: database.isPostgres, feed: showFeed), clock: clock),
            choices: ReactionChoicesStore(database: database), tallies: ReactionTallyStore(database: database),
            schedules: ScheduleStore(database: database, clock: clock), reach: ReachStore(database: database),
            venue: VenueStore(database: database))
    }

    /// The first instance to start makes the key, the others read it (an insert that does nothing
    /// if a row exists, then a read, so two first starts still agree).
    package func loadServiceKey() async throws -> ServiceKey {
        let candidate = Curve25519.KeyAgreement.PrivateKey().rawRepresentation.base64EncodedString()
        let stored = try await database.transaction { db in
            try await db.raw("""
                INSERT INTO hub_settings (name, value) VALUES ('service_ecdh_private_key', \(bind: candidate))
                ON CONFLICT (name) DO NOTHING
                """).run()
            guard let row = try await db.raw("SELECT value FROM hub_settings WHERE name = 'service_ecdh_private_key'").first()
            else { throw HubConfigurationError("the service key was not stored") }
            return try row.decode(column: "value", as: String.self)
        }
        guard let raw = Data(base64Encoded: stored),
              let key = try? Curve25519.KeyAgreement.PrivateKey(rawRepresentation: raw)
        else { throw HubConfigurationError("the database's service_ecdh_private_key is damaged") }
        return ServiceKey(privateKey: key)
    }

    package func services(_ receivers: ChangeReceivers) -> [any Service] {
        database.isPostgres ? PostgresListeners.services(database: database, receivers) : []
    }

    package func close() async { await database.close() }
}
