/// The hub's storage, each part behind the protocol its users see: the stores over the hub's one
/// database (SQLite or PostgreSQL, in `NearcastHubStorage`), or the same in memory
/// (`MemoryHubData`), for router tests.
package struct HubRepositories: Sendable {
    package let projects: any ProjectRepository
    package let beacons: any BeaconRepository
    /// What the resolvers' view of the beacons reads to keep in step (`BeaconIndex`).
    package let beaconChanges: any BeaconChanges
    package let attachments: any AttachmentRepository
    /// What the audience's phones heard of the boxes' test sounds.
    package let fieldChecks: any FieldCheckRepository
    package let decks: any DeckRepository
    package let shows: any ShowRepository
    package let choices: any ReactionChoicesRepository
    /// The shows' reactions by slide and minute: the speakers' figures.
    package let tallies: any ReactionTallyRepository
    /// Each project's schedule in force and its rooms' boxes.
    package let schedules: any ScheduleRepository
    /// What the listener pages' visits heard, counted per box and day.
    package let reach: any ReachRepository
    /// What the room's rules count for the venue: instances alive, phones, passes, boxes heard.
    package let venue: any VenueRepository

    package init(projects: any ProjectRepository, beacons: any BeaconRepository, beaconChanges: any BeaconChanges,
                 attachments: any AttachmentRepository, fieldChecks: any FieldCheckRepository, decks: any DeckRepository,
                 shows: any ShowRepository, choices: any ReactionChoicesRepository, tallies: any ReactionTallyRepository,
                 schedules: any ScheduleRepository, reach: any ReachRepository, venue: any VenueRepository) {
        self.projects = projects
        self.beacons = beacons
        self.beaconChanges = beaconChanges
        self.attachments = attachments
        self.fieldChecks = fieldChecks
        self.decks = decks
        self.shows = shows
        self.choices = choices
        self.tallies = tallies
        self.schedules = schedules
        self.reach = reach
        self.venue = venue
    }
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
