import Logging
import ServiceLifecycle

/// Where the hub keeps what it stores, as the rest of the hub sees it: the repositories over it,
/// the service key kept in it, whether it answers, how its errors read, what keeps this instance
/// in step with others sharing it, and closing it.
///
/// `NearcastHubStorage` gives the hub's database (SQLite or PostgreSQL: `SQLBackend`); this
/// target gives memory (`MemoryBackend`, for router tests and the fuzzer). Nothing here knows SQL:
/// the storage target is the only one that imports SQLKit, PostgresNIO or SQLiteNIO.
package protocol HubBackend: StorageHealth {
    /// Where it is, printable (a PostgreSQL URL's password masked), for the log.
    var locationText: String { get }

    /// The stores over it, each behind the protocol its users see. `parts` are the hub's
    /// in-memory parts a store tells of its changes.
    func makeRepositories(_ parts: RepositoryParts) -> HubRepositories

    /// The hub's Eddystone-EID key pair: the one every instance sharing the storage uses.
    func loadServiceKey() async throws -> ServiceKey

    /// What runs beside the server to keep this instance in step with the others sharing the
    /// storage (PostgreSQL's LISTEN), feeding `receivers`; none for storage one process uses.
    func services(_ receivers: ChangeReceivers) -> [any Service]

    /// Closes it; a second call does nothing.
    func close() async
}

/// The in-memory parts another instance's changes must reach, and the log to say so in.
package struct ChangeReceivers: Sendable {
    /// Beacons' attachments changed (watches).
    package let feed: ChangeFeed
    /// Shows changed, or reactions counted (followers' and presenters' streams).
    package let showFeed: ShowFeed
    /// A project's keys rotated.
    package let keyCache: KeyCache
    package let logger: Logger
}
