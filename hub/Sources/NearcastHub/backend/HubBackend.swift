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
    /// storage (PostgreSQL's LISTEN), given the hub's parts; none for storage only one process uses.
    func services(for hub: HubServices) -> [any Service]

    /// Closes it; a second call does nothing.
    func close() async
}

/// Whether the storage answers, and how its errors read: what `/healthz`, the error middleware
/// and the background tasks' logs ask of it.
package protocol StorageHealth: Sendable {
    /// "sqlite", "postgres" or "memory".
    var kindName: String { get }
    /// Throws when the storage does not answer.
    func ping() async throws
    /// Whether `error` means the storage cannot answer now but may soon (a database restarting,
    /// busy or out of connections), as opposed to a fault in the request or the hub: such a
    /// request is answered 503 with Retry-After, not 500.
    func isUnavailable(_ error: any Error) -> Bool
    /// `error`'s readable text for the hub's own log (a database's message included).
    func describe(_ error: any Error) -> String
}

/// The hub's in-memory parts the repositories tell of their changes, and the settings they keep.
package struct RepositoryParts: Sendable {
    package let clock: HubClock
    package let limits: HubLimits
    package let decks: DeckLimits
    /// Beacons' attachments changed (watches).
    package let feed: ChangeFeed
    /// Shows changed (followers' streams, the show cache).
    package let showFeed: ShowFeed
}

/// Memory: the repositories in `MemoryHubData`, a new service key, nothing to close. For router
/// tests and the fuzzer; a hub that serves keeps its data in a database.
package struct MemoryBackend: HubBackend {
    package init() {}

    package var kindName: String { "memory" }
    package var locationText: String { "memory" }
    package func ping() async throws {}
    package func isUnavailable(_ error: any Error) -> Bool { false }
    package func describe(_ error: any Error) -> String { String(describing: error) }

    package func makeRepositories(_ parts: RepositoryParts) -> HubRepositories {
        let memory = MemoryHubData(clock: parts.clock, feed: parts.feed)
        let beacons = MemoryBeaconRepository(data: memory)
        return HubRepositories(
            projects: MemoryProjectRepository(data: memory), beacons: beacons, beaconChanges: beacons,
            attachments: MemoryAttachmentRepository(data: memory),
            fieldChecks: MemoryFieldCheckRepository(data: memory, keptPerProject: parts.limits.fieldChecks.keptPerProject),
            decks: MemoryDeckRepository(data: memory, showFeed: parts.showFeed, quotaBytes: parts.decks.storagePerProjectBytes),
            shows: MemoryShowRepository(data: memory, showFeed: parts.showFeed),
            choices: MemoryReactionChoicesRepository(data: memory))
    }

    package func loadServiceKey() async throws -> ServiceKey { ServiceKey(privateKey: .init()) }
    package func services(for hub: HubServices) -> [any Service] { [] }
    package func close() async {}
}
