import Foundation
import Logging
import Prometheus

/// The hub's parts, made once at start and shared by its controllers and background services:
/// the storage and its repositories, the token resolver, the key check, the watch feed,
/// Present's in-memory parts and the limits. A controller is given only the parts it uses.
public struct HubServices: Sendable {
    /// Where the hub stores (`HubBackend`: the database, or memory).
    package let backend: any HubBackend
    public let clock: HubClock
    package let logger: Logger
    /// The stores over the backend (`HubRepositories`).
    package let repositories: HubRepositories
    /// Heard tokens to beacons (`TokenResolver`).
    let resolver: TokenResolver
    /// Who a request is (`KeyChecker`).
    package let keys: KeyChecker
    /// Shows, reactions, passes and phone ids in memory (`PresentParts`).
    package let present: PresentParts
    public let feed: ChangeFeed
    /// The request, stream and connection limits (`HubLimits`).
    public let limiter: HubLimiter
    let metricsRegistry: PrometheusCollectorRegistry?
    /// This process among the instances sharing a database (its follower counts' row).
    let instanceID: String

    /// What another instance's changes reach (`HubBackend.services`).
    package var changeReceivers: ChangeReceivers {
        ChangeReceivers(feed: feed, showFeed: present.showFeed, keyCache: keys.cache, logger: logger)
    }

    /// The hub's parts over `backend`: a database (whose schema is already current; the service
    /// key is loaded from it, or made on the first start) or memory (`MemoryBackend`: a new
    /// service key).
    package static func make(backend: any HubBackend, metricsRegistry: PrometheusCollectorRegistry? = nil,
                             logger: Logger, clock: HubClock = .system, limits: HubLimits = HubLimits(),
                             decks deckLimits: DeckLimits = DeckLimits()) async throws -> HubServices {
        let feed = ChangeFeed()
        let showFeed = ShowFeed()
        let repositories = backend.makeRepositories(RepositoryParts(clock: clock, limits: limits, decks: deckLimits,
                                                                    feed: feed, showFeed: showFeed))
        let serviceKey = try await backend.loadServiceKey()
        let presence = Presence(serviceKey: serviceKey)
        let phoneIDs = PhoneIDs(presence: presence)
        let venue = VenueShare()
        let limiter = HubLimiter(limits, venue: venue)
        let resolver = TokenResolver(serviceKey: serviceKey,
                                     index: BeaconIndex(changes: repositories.beaconChanges, logger: logger), heardBoxes: HeardBoxes())
        let present = PresentParts(repositories: repositories, storage: backend, clock: clock, logger: logger, presence: presence,
                                   phoneIDs: phoneIDs, showFeed: showFeed, heardBoxes: resolver.heardBoxes,
                                   renderer: DeckRenderer(limits: .init(deckLimits)), uploads: TalkUploads(serviceKey: serviceKey),
                                   venue: venue)
        let hub = HubServices(
            backend: backend, clock: clock, logger: logger,
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

/// Present's parts that live in memory: passes and phone ids (`Presence`, `PhoneIDs`), the show
/// streams (`ShowFeed`) and their views, the reaction desk, the renderer and the caches.
package struct PresentParts: Sendable {
    let presence: Presence
    /// The ids phones react under, each worth some work (`PhoneIDs`).
    let phoneIDs: PhoneIDs
    package let showFeed: ShowFeed
    let reactionDesk: ReactionDesk
    let renderer: DeckRenderer
    let images: DeckImageCache
    let showCache: ShowCache
    let followerReports: FollowerReports
    /// The passes given for each show's code lately, the phones that earned an id by hearing
    /// each show, and the boxes heard: the venue's (`VenueRepository`).
    let venue: any VenueRepository
    /// A show as followers and presenters see it (`ShowViews`).
    let views: ShowViews
    /// Each room's show from the schedule in force (`DayRunner`).
    let day: DayRunner
    /// The schedule's rooms with their boxes and talks, and the talks' upload addresses.
    let rooms: RoomDirectory

    init(repositories: HubRepositories, storage: any StorageHealth, clock: HubClock, logger: Logger, presence: Presence, phoneIDs: PhoneIDs,
         showFeed: ShowFeed, heardBoxes: HeardBoxes, renderer: DeckRenderer, uploads: TalkUploads, venue share: VenueShare) {
        self.presence = presence
        self.phoneIDs = phoneIDs
        self.showFeed = showFeed
        self.reactionDesk = ReactionDesk(venue: share)
        self.renderer = renderer
        self.images = DeckImageCache()
        self.showCache = ShowCache(shows: repositories.shows, choices: repositories.choices)
        self.followerReports = FollowerReports()
        self.venue = repositories.venue
        self.rooms = RoomDirectory(schedules: repositories.schedules, beacons: repositories.beacons, uploads: uploads)
        self.views = ShowViews(shows: repositories.shows, decks: repositories.decks, choices: repositories.choices,
                               storage: storage, clock: clock, logger: logger, presence: presence, venue: venue,
                               heardBoxes: heardBoxes, showFeed: showFeed, followerReports: followerReports,
                               rooms: rooms)
        self.day = DayRunner(schedules: repositories.schedules, rooms: rooms, decks: repositories.decks,
                             shows: repositories.shows, showCache: self.showCache, renderer: renderer, logger: logger)
    }
}

extension BeaconRef {
    init(_ show: Show) { self.init(project: show.project, beaconName: show.beaconName) }
}
