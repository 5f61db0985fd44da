import Foundation
import Logging
import Prometheus

/// The hub's parts, made once at start and shared by its controllers and background services:
/// the database and its repositories, the token resolver, the key check, the watch feed,
/// Present's in-memory parts and the limits. A controller is given only the parts it uses.
public struct HubServices: Sendable {
    /// The database, nil in memory (`HubStorage.memory`).
    public let database: HubDatabase?
    /// What `/healthz` asks: the database, or memory (always answers).
    let health: any DatabaseHealth
    public let clock: HubClock
    let logger: Logger
    /// The stores over the database (`HubRepositories`).
    let repositories: HubRepositories
    /// Heard tokens to beacons (`TokenResolver`).
    let resolver: TokenResolver
    /// Who a request is (`KeyChecker`).
    let keys: KeyChecker
    /// Shows, reactions, passes and phone ids in memory (`PresentParts`).
    let present: PresentParts
    public let feed: ChangeFeed
    /// The request, stream and connection limits (`HubLimits`).
    public let limiter: HubLimiter
    let metricsRegistry: PrometheusCollectorRegistry?
    /// This process among the instances sharing a database (its follower counts' row).
    let instanceID: String

    /// The hub's parts over `storage`: a database (whose schema is already current; the service
    /// key is loaded from it, or made on the first start) or memory (`MemoryHubData`, for router
    /// tests: no database at all, a new service key).
    public static func make(storage: HubStorage, metricsRegistry: PrometheusCollectorRegistry? = nil,
                            logger: Logger, clock: HubClock = .system, limits: HubLimits = HubLimits(),
                            decks deckLimits: DeckLimits = DeckLimits()) async throws -> HubServices {
        let feed = ChangeFeed()
        let showFeed = ShowFeed()
        let repositories = HubRepositories(storage: storage, clock: clock, limits: limits, decks: deckLimits, feed: feed, showFeed: showFeed)
        let serviceKey: ServiceKey, database: HubDatabase?
        switch storage {
        case .database(let opened):
            (serviceKey, database) = (try await ServiceKey.load(from: opened), opened)
        case .memory:
            (serviceKey, database) = (ServiceKey(privateKey: .init()), nil)
        }
        let presence = Presence(serviceKey: serviceKey)
        let phoneIDs = PhoneIDs(presence: presence)
        let limiter = HubLimiter(limits)
        let resolver = TokenResolver(serviceKey: serviceKey,
                                     index: BeaconIndex(changes: repositories.beaconChanges, logger: logger), heardBoxes: HeardBoxes())
        let present = PresentParts(repositories: repositories, clock: clock, logger: logger, presence: presence,
                                   phoneIDs: phoneIDs, showFeed: showFeed, heardBoxes: resolver.heardBoxes,
                                   renderer: DeckRenderer(limits: .init(deckLimits)))
        let hub = HubServices(
            database: database, health: database ?? MemoryHealth() as any DatabaseHealth, clock: clock, logger: logger,
            repositories: repositories, resolver: resolver,
            keys: KeyChecker(projects: repositories.projects, cache: KeyCache(), presence: presence, phoneIDs: phoneIDs,
                             clock: clock, limiter: limiter),
            present: present, feed: feed, limiter: limiter, metricsRegistry: metricsRegistry, instanceID: UUID().uuidString)
        showFeed.setRefresh { key in await present.views.send(key) }
        showFeed.setOnChange { [showCache = present.showCache] key in showCache.forget(key) }
        DeckRenderer.removeAbandonedScratch()
        return hub
    }
}

/// Where `HubServices` keeps what it stores: a database (SQLite or PostgreSQL), or memory
/// (`MemoryHubData`, for router tests).
public enum HubStorage: Sendable {
    case database(HubDatabase)
    case memory
}

/// Memory's health: it always answers.
struct MemoryHealth: DatabaseHealth {
    var kindName: String { "memory" }
    func ping() async throws {}
}

/// The hub's storage, each part behind the protocol its users see: the stores over the hub's one
/// database (SQLite or PostgreSQL), or the same in memory (`MemoryHubData`), for router tests.
struct HubRepositories: Sendable {
    let projects: any ProjectRepository
    let beacons: any BeaconRepository
    /// What the resolvers' view of the beacons reads to keep in step (`BeaconIndex`).
    let beaconChanges: any BeaconChanges
    let attachments: any AttachmentRepository
    /// What the audience's phones heard of the boxes' test sounds.
    let fieldChecks: any FieldCheckRepository
    let decks: any DeckRepository
    let shows: any ShowRepository
    let choices: any ReactionChoicesRepository

    init(storage: HubStorage, clock: HubClock, limits: HubLimits, decks deckLimits: DeckLimits,
         feed: ChangeFeed, showFeed: ShowFeed) {
        let quota = deckLimits.storagePerProjectBytes
        guard case .database(let database) = storage else {
            let memory = MemoryHubData(clock: clock, feed: feed)
            let beacons = MemoryBeaconRepository(data: memory)
            projects = MemoryProjectRepository(data: memory)
            self.beacons = beacons
            beaconChanges = beacons
            attachments = MemoryAttachmentRepository(data: memory)
            fieldChecks = MemoryFieldCheckRepository(data: memory, keptPerProject: limits.fieldChecks.keptPerProject)
            decks = MemoryDeckRepository(data: memory, showFeed: showFeed, quotaBytes: quota)
            shows = MemoryShowRepository(data: memory, showFeed: showFeed)
            choices = MemoryReactionChoicesRepository(data: memory)
            return
        }
        let notifier = ChangeNotifier(channel: ChangeNotifier.attachmentsChannel, isPostgres: database.isPostgres) {
            feed.publish($0)
        }
        let showNotifier = ChangeNotifier(channel: ChangeNotifier.showsChannel, isPostgres: database.isPostgres) {
            showFeed.changed($0)
        }
        let beacons = BeaconStore(database: database, notifier: notifier)
        projects = ProjectStore(database: database, clock: clock)
        self.beacons = beacons
        beaconChanges = beacons
        attachments = AttachmentStore(database: database, notifier: notifier, clock: clock)
        fieldChecks = FieldCheckStore(database: database, clock: clock, keptPerProject: limits.fieldChecks.keptPerProject)
        decks = DeckStore(database: database, clock: clock, notifier: showNotifier, quotaBytes: quota)
        shows = ShowStore(database: database, notifier: showNotifier,
                          reactions: ReactionNotifier(isPostgres: database.isPostgres, feed: showFeed), clock: clock)
        choices = ReactionChoicesStore(database: database)
    }
}

/// Present's parts that live in memory: passes and phone ids (`Presence`, `PhoneIDs`), the show
/// streams (`ShowFeed`) and their views, the reaction desk, the renderer and the caches.
struct PresentParts: Sendable {
    let presence: Presence
    /// The ids phones react under, each worth some work (`PhoneIDs`).
    let phoneIDs: PhoneIDs
    let showFeed: ShowFeed
    let reactionDesk: ReactionDesk
    let renderer: DeckRenderer
    let images: DeckImageCache
    let showCache: ShowCache
    let followerReports: FollowerReports
    /// The passes given for each show's code lately, for the presenter's cap (`CodePassLedger`).
    let codePasses: CodePassLedger
    /// A show as followers and presenters see it (`ShowViews`).
    let views: ShowViews

    init(repositories: HubRepositories, clock: HubClock, logger: Logger, presence: Presence, phoneIDs: PhoneIDs,
         showFeed: ShowFeed, heardBoxes: HeardBoxes, renderer: DeckRenderer) {
        self.presence = presence
        self.phoneIDs = phoneIDs
        self.showFeed = showFeed
        self.reactionDesk = ReactionDesk()
        self.renderer = renderer
        self.images = DeckImageCache()
        self.showCache = ShowCache(shows: repositories.shows, choices: repositories.choices)
        self.followerReports = FollowerReports()
        self.codePasses = CodePassLedger()
        self.views = ShowViews(shows: repositories.shows, decks: repositories.decks, choices: repositories.choices,
                               clock: clock, logger: logger, presence: presence, codePasses: codePasses,
                               heardBoxes: heardBoxes, showFeed: showFeed, followerReports: followerReports)
    }
}

extension BeaconRef {
    init(_ show: Show) { self.init(project: show.project, beaconName: show.beaconName) }
}
