/// Decks and reaction choices in memory: the project's quota counted as the database counts it
/// (the images as base64 text), a deleted deck ending its shows, a page open to the audience
/// only once a show of the project has it open, choices the defaults until a project sets its own.
extension MemoryHubData {
    func addDeck(project: String, title: String, sourceBytes: Int, rendered: DeckRenderer.Rendered,
                 quotaBytes: Int) throws -> Deck {
        try DeckQuota.check(used: storedImageBytes(project: project), adding: DeckQuota.storedBytes(rendered), quota: quotaBytes)
        let deck = Deck(title: title, sourceBytes: sourceBytes, rendered: rendered, createdMs: clock.nowMs())
        decks[project, default: [:]][deck.deckID] = StoredDeck(deck: deck, pages: rendered.pages)
        return deck
    }

    func checkDeckRoom(project: String, quotaBytes: Int) throws {
        try DeckQuota.check(used: storedImageBytes(project: project), adding: 0, quota: quotaBytes)
    }

    private func storedImageBytes(project: String) -> Int {
        (decks[project] ?? [:]).values.flatMap(\.pages).reduce(0) {
            $0 + DeckQuota.storedBytes($1.full.count) + DeckQuota.storedBytes($1.thumbnail.count)
        }
    }

    func decks(project: String) -> [Deck] {
        (decks[project] ?? [:]).values.map(\.deck).sorted { ($1.createdMs, $0.deckID) < ($0.createdMs, $1.deckID) }
    }

    func deck(project: String, deckID: String) throws(APIError) -> Deck {
        guard let stored = decks[project]?[deckID] else { throw APIError.notFound("deck \(deckID)") }
        return stored.deck
    }

    /// Deletes the deck and its shows; returns the beacons whose show ended.
    func deleteDeck(project: String, deckID: String) throws -> [String] {
        _ = try deck(project: project, deckID: deckID)
        let ended = shows.filter { $0.key.project == project && $0.value.deckID == deckID }.keys
        for key in ended { shows[key] = nil }
        decks[project]?[deckID] = nil
        return ended.map(\.beaconName)
    }

    func image(project: String, deckID: String, page: Int, size: Deck.ImageSize) -> [UInt8]? {
        guard let pages = decks[project]?[deckID]?.pages, pages.indices.contains(page - 1) else { return nil }
        return size == .full ? pages[page - 1].full : pages[page - 1].thumbnail
    }

    func pageWasShown(project: String, deckID: String, page: Int) -> Bool {
        shows.values.contains { $0.project == project && $0.deckID == deckID && $0.openPages.contains(page) }
    }

    // MARK: Reaction choices

    func choices(project: String) -> ReactionChoices { choices[project] ?? .defaults }

    func setChoices(project: String, _ new: ReactionChoices) { choices[project] = new }
}
