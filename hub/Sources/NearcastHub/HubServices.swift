import Foundation
import Hummingbird
import Logging
import Metrics
import NIOCore
import Prometheus

/// Everything a request handler uses, made once at start: the stores over the one database, the
/// clock, the service key, the resolver cache, the watch and show feeds, and Present's parts.
public struct HubServices: Sendable {
    /// The rotation exponents a beacon may register with. Below 2^5 s a beacon's window would
    /// hold hundreds of EIDs; 15 is the Eddystone maximum.
    static let exponents = 5...15

    public let database: HubDatabase
    public let clock: HubClock
    public let projects: ProjectStore
    let beacons: BeaconStore
    let attachments: AttachmentStore
    /// What the audience's phones heard of the boxes' test sounds (`FieldCheckStore`).
    let fieldChecks: FieldCheckStore
    let serviceKey: ServiceKey
    let resolverCache: EIDResolverCache
    /// Active beacons and attachments in memory, for resolves (`BeaconDirectory`).
    let directory: BeaconDirectory
    public let feed: ChangeFeed
    let metricsRegistry: PrometheusCollectorRegistry?
    let logger: Logger
    // Present.
    let decks: DeckStore
    let shows: ShowStore
    let choices: ReactionChoicesStore
    let presence: Presence
    /// The ids phones react under, each worth some work (`PhoneIDs`).
    let phoneIDs: PhoneIDs
    public let showFeed: ShowFeed
    let reactionDesk: ReactionDesk
    let renderer: DeckRenderer
    let images: DeckImageCache
    let showCache: ShowCache
    let followerReports: FollowerReports
    /// When a phone last resolved each box, for the presenter's "why no phone follows" (`BoxReach`).
    let heardBoxes: HeardBoxes
    /// The passes given for each show's code lately, for the presenter's cap (`CodePassLedger`).
    let codePasses: CodePassLedger
    let keyCache: KeyCache
    /// The request, stream and connection limits (`HubLimits`).
    public let limiter: HubLimiter
    /// This process among the instances sharing a database (its follower counts' row).
    let instanceID: String

    /// Loads (or, on the first start, makes) the service key; the schema is already current.
    public static func make(database: HubDatabase, metricsRegistry: PrometheusCollectorRegistry? = nil,
                            logger: Logger, clock: HubClock = .system, limits: HubLimits = HubLimits(),
                            decks deckLimits: DeckLimits = DeckLimits()) async throws -> HubServices {
        let feed = ChangeFeed()
        let showFeed = ShowFeed()
        let notifier = ChangeNotifier(channel: ChangeNotifier.attachmentsChannel, isPostgres: database.isPostgres) {
            feed.publish(project: $0, beaconName: $1)
        }
        let showNotifier = ChangeNotifier(channel: ChangeNotifier.showsChannel, isPostgres: database.isPostgres) {
            showFeed.changed(project: $0, beaconName: $1)
        }
        let beacons = BeaconStore(database: database, notifier: notifier)
        let serviceKey = try await ServiceKey.load(from: database)
        let shows = ShowStore(database: database, notifier: showNotifier, clock: clock)
        let choices = ReactionChoicesStore(database: database)
        let presence = Presence(serviceKey: serviceKey)
        let hub = HubServices(
            database: database, clock: clock, projects: ProjectStore(database: database, clock: clock), beacons: beacons,
            attachments: AttachmentStore(database: database, notifier: notifier, clock: clock),
            fieldChecks: FieldCheckStore(database: database, clock: clock, keptPerProject: limits.fieldChecksKeptPerProject),
            serviceKey: serviceKey, resolverCache: EIDResolverCache(store: beacons, logger: logger),
            directory: BeaconDirectory(database: database), feed: feed,
            metricsRegistry: metricsRegistry, logger: logger,
            decks: DeckStore(database: database, clock: clock, quotaBytes: deckLimits.storagePerProjectBytes), shows: shows, choices: choices,
            presence: presence, phoneIDs: PhoneIDs(presence: presence), showFeed: showFeed, reactionDesk: ReactionDesk(),
            renderer: DeckRenderer(limits: .init(deckLimits)), images: DeckImageCache(), showCache: ShowCache(shows: shows, choices: choices),
            followerReports: FollowerReports(), heardBoxes: HeardBoxes(), codePasses: CodePassLedger(), keyCache: KeyCache(), limiter: HubLimiter(limits),
            instanceID: UUID().uuidString)
        showFeed.setRefresh { key in await hub.sendShow(key) }
        DeckRenderer.removeAbandonedScratch()
        return hub
    }

    /// The caller's project and rights; 401 without a key, 403 with an unknown one or a public
    /// key (or a pass) where the secret one is needed.
    func access(_ request: Request, manage: Bool) async throws -> ProjectStore.Access {
        guard let key = RequestSupport.key(of: request) else { throw APIError.unauthenticated }
        if key.hasPrefix(Presence.passPrefix) {
            guard let pass = presence.verify(pass: key, nowMs: clock.nowMs()) else {
                throw APIError(.forbidden, "the pass is not valid or has expired: scan the code on the presenter's screen again")
            }
            if manage { throw APIError(.forbidden, "this call needs the project's secret key; a pass only reads") }
            return .pass(project: pass.project, beaconName: pass.beaconName, expiresMs: pass.expiresMs)
        }
        let hash = ProjectStore.hash(key), now = clock.nowMs()
        let access: ProjectStore.Access?
        if let cached = keyCache.lookup(hash, nowMs: now) {
            access = cached
        } else {
            access = try await projects.access(forHash: hash)
            keyCache.store(hash, access, nowMs: now)
        }
        guard let access else { throw APIError.wrongKey }
        if manage && !access.canManage {
            throw APIError(.forbidden, "this call needs the project's secret key; the public API key only reads")
        }
        return access
    }
}

extension ShowFeed.Key {
    init(_ show: ShowStore.Show) { self.init(project: show.project, beaconName: show.beaconName) }
}
