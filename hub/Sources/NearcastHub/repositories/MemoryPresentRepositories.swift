/// Decks in memory (`MemoryHubData`), at most `quotaBytes` of page images a project; a deleted
/// deck's shows are told to their streams, as the database's notifier tells them.
struct MemoryDeckRepository: DeckRepository {
    let data: MemoryHubData
    let showFeed: ShowFeed
    let quotaBytes: Int

    func add(project: String, title: String, sourceBytes: Int, rendered: DeckRenderer.Rendered) async throws -> Deck {
        try await data.addDeck(project: project, title: title, sourceBytes: sourceBytes, rendered: rendered, quotaBytes: quotaBytes)
    }
    func checkRoom(project: String) async throws { try await data.checkDeckRoom(project: project, quotaBytes: quotaBytes) }
    func list(project: String) async throws -> [Deck] { await data.decks(project: project) }
    func get(project: String, deckID: String) async throws -> Deck { try await data.deck(project: project, deckID: deckID) }
    func delete(project: String, deckID: String) async throws -> [String] {
        let ended = try await data.deleteDeck(project: project, deckID: deckID)
        for beacon in ended { showFeed.changed(BeaconRef(project: project, beaconName: beacon)) }
        return ended
    }
    func image(project: String, deckID: String, page: Int, size: Deck.ImageSize) async throws -> [UInt8]? {
        await data.image(project: project, deckID: deckID, page: page, size: size)
    }
    func pageWasShown(project: String, deckID: String, page: Int) async throws -> Bool {
        await data.pageWasShown(project: project, deckID: deckID, page: page)
    }
}

/// Shows in memory (`MemoryHubData`); each write is told to this instance's streams
/// (`ShowFeed`), as the database's notifiers tell them after commit.
struct MemoryShowRepository: ShowRepository {
    let data: MemoryHubData
    let showFeed: ShowFeed

    func put(_ beacon: BeaconRef, deckID: String, page: Int) async throws -> Show {
        let (project, beaconName) = (beacon.project, beacon.beaconName)
        let show = try await data.putShow(project: project, beaconName: beaconName, deckID: deckID, page: page)
        showFeed.changed(BeaconRef(project: project, beaconName: beaconName))
        return show
    }
    func get(_ beacon: BeaconRef) async throws -> Show? { await data.show(Self.key(beacon.project, beacon.beaconName)) }
    func delete(_ beacon: BeaconRef) async throws -> Bool {
        let (project, beaconName) = (beacon.project, beacon.beaconName)
        return try await changed(project, beaconName) { await data.deleteShow(Self.key(project, beaconName)) }
    }
    func addReactions(_ beacon: BeaconRef, _ batch: ReactionBatch) async throws -> [String: Int]? {
        let key = Self.key(beacon.project, beacon.beaconName)
        guard let (counts, drawn) = await data.addReactions(key, batch) else { return nil }
        try showFeed.sendReactions(key, ReactionBatchJSON(reactions: drawn, counts: counts))
        return counts
    }
    func liveBeacons() async throws -> [Show.LiveBeacon] { await data.liveBeacons() }
    func setCode(_ beacon: BeaconRef, joining: Bool?, share: Int?, rotate: Bool) async throws -> Bool {
        let (project, beaconName) = (beacon.project, beacon.beaconName)
        return try await changed(project, beaconName) {
            await data.setCode(Self.key(project, beaconName), joining: joining, share: share, rotate: rotate)
        }
    }
    func box(_ beacon: BeaconRef) async throws -> Show.Box? { await data.box(Self.key(beacon.project, beacon.beaconName)) }
    func recordFollowers(instance: String, _ counts: [BeaconRef: Int]) async throws {
        await data.recordFollowers(instance: instance, counts)
        for key in counts.keys { showFeed.changed(key) }
    }
    func followers(_ beacon: BeaconRef) async throws -> Int { await data.followers(Self.key(beacon.project, beacon.beaconName)) }

    /// Runs `write`; when it changed the show (true), tells its streams.
    private func changed(_ project: String, _ beaconName: String, _ write: () async throws -> Bool) async throws -> Bool {
        let done = try await write()
        if done { showFeed.changed(BeaconRef(project: project, beaconName: beaconName)) }
        return done
    }

    private static func key(_ project: String, _ beaconName: String) -> BeaconRef {
        BeaconRef(project: project, beaconName: beaconName)
    }
}

/// Reaction choices in memory (`MemoryHubData`).
struct MemoryReactionChoicesRepository: ReactionChoicesRepository {
    let data: MemoryHubData
    func get(project: String) async throws -> ReactionChoices { await data.choices(project: project) }
    func set(project: String, _ choices: ReactionChoices) async throws { await data.setChoices(project: project, choices) }
}
