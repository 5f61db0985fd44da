/// The hub's storage in memory: what the router tests run the API over
/// (`MemoryBackend`), with the database's rules. Its subjects are
/// extensions, a file each: beacons and their attachments (`MemoryHubData+Beacons`), field
/// checks, decks and reaction choices, shows, their reactions by slide and minute, the rooms' reach. The state
/// below is the actor's; only those extensions write it.
///
/// As in the database, every change to a beacon gives it the next change number and moves
/// `changes` (the resolvers' views read "changed after N": `BeaconChanges`), and a deleted
/// beacon stays as a tombstone, so those views learn of the deletion.
actor MemoryHubData {
    struct Project: Sendable {
        var name: String
        var apiKeyHash: String
        var secretKeyHash: String
    }

    /// A deck and its pages' images (JPEG), first page first.
    struct StoredDeck: Sendable {
        var deck: Deck
        var pages: [DeckRenderer.Page]
    }

    /// One instance's follower count of one show, and when it reported it.
    struct FollowerRow: Sendable {
        var followers: Int
        var updatedMs: Int64
    }

    var projects: [String: Project] = [:]
    /// Beacons by project, then name: the active ones and the tombstones of deleted ones.
    var beacons: [String: [String: Beacon]] = [:]
    /// Attachments by `ChangedBeacons.key(project, beacon name)`, in the order added.
    var attachments: [String: [Attachment]] = [:]
    /// Field checks by project, newest last.
    var fieldChecks: [String: [FieldCheckJSON]] = [:]
    /// Decks by project, then id.
    var decks: [String: [String: StoredDeck]] = [:]
    var shows: [BeaconRef: Show] = [:]
    /// The taps counted lately (`ReactionBatch.Receipt`), when.
    var reactionReceipts: [ReactionBatch.Receipt: Int64] = [:]
    /// Reactions by show, then slide, minute and value (`ReactionTally`).
    var reactionTallies: [BeaconRef: [ReactionTally.Key: Int]] = [:]
    /// The rooms' reach by project, then row (`ReachRow`).
    var reach: [String: [ReachRowKey: ReachCounts]] = [:]
    /// Follower counts by instance, then show.
    var followers: [String: [BeaconRef: FollowerRow]] = [:]
    /// The projects' own reaction choices (the others have the defaults).
    var choices: [String: ReactionChoices] = [:]
    /// The last change number given (the database's `changes` counter).
    var lastChangeSeq: Int64 = 0

    let clock: HubClock
    /// Told of every change to a beacon's attachments, as the database's notifier tells it.
    let feed: ChangeFeed
    /// Moves at every beacon change (`BeaconChanges.signal`), as the database's does at commit.
    nonisolated let changes = ChangeSignal()

    init(clock: HubClock, feed: ChangeFeed) {
        self.clock = clock
        self.feed = feed
    }

    // MARK: Projects

    func create(name: String) throws -> CreatedProject {
        let created = try ProjectKeys.newKeys(for: name)
        guard projects[name] == nil else { throw APIError(.conflict, "project \(name) already exists", field: "project") }
        projects[name] = Project(name: name, apiKeyHash: ProjectKeys.hash(created.apiKey),
                                 secretKeyHash: ProjectKeys.hash(created.secretKey))
        return created
    }

    func access(forHash hash: String) -> Access? {
        for project in projects.values {
            if project.secretKeyHash == hash { return .manage(project: project.name) }
            if project.apiKeyHash == hash { return .read(project: project.name) }
        }
        return nil
    }
}
