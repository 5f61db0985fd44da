import Hummingbird

/// The router with every controller's routes behind the hub's middleware, for
/// `buildApplication` and for tests that drive it without a socket (`app.test(.router)`).
/// `listener` is the pages' files (`/listen`, `/present`), nil when the hub serves none;
/// `trustedProxies`, the proxies whose `X-Forwarded-For` names the client (`ClientAddressMiddleware`).
///
/// Routes come in three groups by the key they need, which each controller sets up with its
/// `KeyChecker`: none (`eidparams`, the pages, joining by sight), any of the project's keys
/// (`.read`: getforobserved, watches, following a show, reacting, sending a field check or a reach report) and the
/// secret key (`.manage`).
public func buildRouter(_ hub: HubServices, listener: ListenerFiles? = nil, trustedProxies: TrustedProxies = .none) -> Router<HubRequestContext> {
    let router = Router(context: HubRequestContext.self)
    // First, so it is outermost: every answer, refusals included, carries the security headers.
    router.add(middleware: SecurityHeadersMiddleware())
    router.add(middleware: MetricsMiddleware())
    router.add(middleware: ClientGoneMiddleware())
    router.add(middleware: UnexpectedErrorMiddleware(storage: hub.backend, logger: hub.logger))
    router.add(middleware: APICORSMiddleware())
    // The client's address before anything counts by it.
    router.add(middleware: ClientAddressMiddleware(trusted: trustedProxies))
    router.add(middleware: AddressRateMiddleware(keys: hub.keys))
    // No request logging middleware: it logs the URI, and `?key=` may hold a secret key.
    let keys = hub.keys, storage = hub.repositories, present = hub.present, resolver = hub.resolver
    let grant = BeaconReadGrant(presence: present.presence, clock: hub.clock, shows: present.showCache)
    let proof = RoomProof(resolver: resolver, presence: present.presence, shows: present.showCache)
    let figures = TalkFigureReader(schedules: storage.schedules, rooms: present.rooms, tallies: storage.tallies, decks: storage.decks)
    let controllers: [RouteCollection<HubRequestContext>] = [
        BeaconController(beacons: storage.beacons, serviceKey: resolver.serviceKey, clock: hub.clock, logger: hub.logger,
                         keys: keys).endpoints,
        AttachmentController(attachments: storage.attachments, logger: hub.logger, keys: keys).endpoints,
        ResolveController(resolver: resolver, grant: grant, limiter: hub.limiter, clock: hub.clock, keys: keys).endpoints,
        FieldCheckController(fieldChecks: storage.fieldChecks, limiter: hub.limiter, keys: keys).endpoints,
        ReachController(reach: storage.reach, receipts: ReachReceipts(presence: present.presence), limiter: hub.limiter,
                        clock: hub.clock, keys: keys).endpoints,
        WatchController(attachments: storage.attachments, storage: hub.backend, feed: hub.feed, grant: grant, limiter: hub.limiter,
                        logger: hub.logger, keys: keys).endpoints,
        DeckController(decks: storage.decks, renderer: present.renderer, images: present.images, grant: grant, logger: hub.logger,
                       keys: keys).endpoints,
        ShowController(shows: storage.shows, views: present.views, showCache: present.showCache, grant: grant, limiter: hub.limiter,
                       logger: hub.logger, keys: keys).endpoints,
        ReactionController(choices: storage.choices, showCache: present.showCache, reactionDesk: present.reactionDesk,
                           phoneIDs: present.phoneIDs, proof: proof, clock: hub.clock, keys: keys).endpoints,
        PhoneController(phoneIDs: present.phoneIDs, showCache: present.showCache, venue: present.venue, proof: proof, limiter: hub.limiter,
                        clock: hub.clock, keys: keys).endpoints,
        PresenceController(shows: storage.shows, showCache: present.showCache, presence: present.presence,
                           venue: present.venue, proof: proof, limiter: hub.limiter, clock: hub.clock,
                           keys: keys).endpoints,
        StatusController(database: hub.backend, feed: hub.feed, eidTable: resolver.index, venue: hub.limiter.venue,
                         metricsRegistry: hub.metricsRegistry, logger: hub.logger).endpoints,
        ScheduleController(schedules: storage.schedules, beacons: storage.beacons, rooms: present.rooms, clock: hub.clock,
                           logger: hub.logger, keys: keys).endpoints,
        TalkUploadController(schedules: storage.schedules, decks: storage.decks, renderer: present.renderer,
                             uploads: present.rooms.uploads, figures: figures, clock: hub.clock, logger: hub.logger).endpoints,
        TalkFiguresController(schedules: storage.schedules, uploads: present.rooms.uploads, figures: figures, clock: hub.clock).endpoints,
        DayController(overview: DayOverview(schedules: storage.schedules, beacons: storage.beacons, shows: storage.shows,
                                            heardBoxes: resolver.heardBoxes, rooms: present.rooms),
                      clock: hub.clock, keys: keys).endpoints,
        ListenerController(listener: listener).endpoints,
    ]
    for routes in controllers { router.addRoutes(routes) }
    return router
}
