/// Reads a talk's figures (`TalkFigures`) from the stores: its own deck and the other talks',
/// its room's box, the tallies of both, and the titles of the decks they came on.
struct TalkFigureReader: Sendable {
    let schedules: any ScheduleRepository
    let rooms: RoomDirectory
    let tallies: any ReactionTallyRepository
    let decks: any DeckRepository

    func figures(of speaker: SpeakerTalk, nowMs: Int64) async throws -> TalkFigures {
        let (project, talk) = (speaker.project, speaker.talk)
        let rule = TalkFigures.Rule(talk: talk, ownDeck: speaker.deck, uploadedDecks: try await schedules.talkDecks(project: project))
        var ownDeckTallies: [ReactionTally] = [], roomBoxTallies: [ReactionTally] = []
        // Nothing to read before the talk: every tally is of its start's minute or later.
        if nowMs >= rule.fromMs {
            if let deck = speaker.deck {
                ownDeckTallies = try await tallies.tallies(project: project, deckID: deck, fromMs: rule.fromMs, untilMs: rule.ownDeckUntilMs)
            }
            // The room's box now: a room given another box since keeps the figures its own deck took.
            let box = try await rooms.rooms(project: project, nowMs: nowMs).rooms.first { $0.name == talk.room }?.beaconName
            if let box {
                roomBoxTallies = try await tallies.tallies(BeaconRef(project: project, beaconName: box), fromMs: rule.fromMs,
                                                           untilMs: rule.untilMs)
            }
        }
        var decks: [String: (title: String, pages: Int)] = [:]
        for deckID in Set((ownDeckTallies + roomBoxTallies).map(\.slide.deckID) + (speaker.deck.map { [$0] } ?? [])) {
            do {
                let deck = try await self.decks.get(project: project, deckID: deckID)
                decks[deckID] = (deck.title, deck.pages)
            } catch let error as APIError where error.status == .notFound {
                continue   // deleted since: its slides keep their numbers, without a title
            }
        }
        return TalkFigures(talk: talk, rule: rule, ownDeckTallies: ownDeckTallies, roomBoxTallies: roomBoxTallies, decks: decks,
                           nowMs: nowMs)
    }
}
