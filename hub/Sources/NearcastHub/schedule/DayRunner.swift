import Foundation
import Logging

/// Runs each room's day from the schedule in force: at a talk's start the room's box shows that
/// talk, between talks the next talk's title card, and after the last talk nothing.
///
/// Every second (`DayService`), for each project with a schedule and each room with a box:
/// - the talk on now (or, between talks, the next one) is what the room's show should be: its
///   title card (`TitleCardPDF`, "Now" or "Next"), rendered once and kept as a deck of the project;
/// - a show already on that card is left as it is; a show on another card moves to this one, as
///   `PUT /v1/shows` switches decks: the show goes on, so the phones following it (and their
///   passes) follow from talk to talk without reloading;
/// - a show of a presenter's own deck is never cut while its presenter turns pages: it is left
///   alone until its page has stood still for `presenterIdleMs`, or its presenter ends it; a
///   talk's own deck that the runner put up and nobody has turned (still on page 1, nothing else
///   shown) is not held so: the runner's own move is no presenter's page turn;
/// - after the day's last talk, a show still on a card ends.
///
/// Every instance runs it; each step is idempotent (the same card for the same talk, found by its
/// title), so two instances at once do the same thing twice, harmlessly.
actor DayRunner {
    /// A presenter's show is left alone while its page moved this recently.
    static let presenterIdleMs: Int64 = 5 * 60_000
    /// What a card deck's title starts with, so the runner knows its own decks from presenters'.
    static let cardTitlePrefix = "Title card \u{B7} "

    let schedules: any ScheduleRepository
    let rooms: RoomDirectory
    let decks: any DeckRepository
    let shows: any ShowRepository
    let showCache: ShowCache
    let renderer: DeckRenderer
    let logger: Logger
    /// Card decks made or found: the card's title to its deck id.
    private var cards: [String: String] = [:]

    init(schedules: any ScheduleRepository, rooms: RoomDirectory, decks: any DeckRepository,
         shows: any ShowRepository, showCache: ShowCache, renderer: DeckRenderer, logger: Logger) {
        self.schedules = schedules
        self.rooms = rooms
        self.decks = decks
        self.shows = shows
        self.showCache = showCache
        self.renderer = renderer
        self.logger = logger
    }

    /// What the runner did to one room's show.
    enum Step: Sendable, Equatable {
        case started(room: String, title: String)
        case switched(room: String, title: String)
        case leftToPresenter(room: String)
        case ended(room: String)
    }

    /// One pass over every project with a schedule; what it did. Failures are logged and the
    /// next pass tries again.
    @discardableResult
    func tick(nowMs: Int64) async -> [Step] {
        var steps: [Step] = []
        do {
            for project in try await schedules.scheduledProjects() {
                do {
                    steps += try await run(project: project, nowMs: nowMs)
                } catch {
                    logger.warning("day: \(project): \(error)")
                }
            }
        } catch {
            logger.warning("day: reading the schedules failed: \(error)")
        }
        return steps
    }

    func run(project: String, nowMs: Int64) async throws -> [Step] {
        let (inForce, boxes) = try await rooms.boxes(project: project)
        let talkDecks = try await schedules.talkDecks(project: project)
        let timelines = inForce.timelines
        var steps: [Step] = []
        for (room, beaconName) in boxes {
            guard let beaconName, let timeline = timelines[room] else { continue }
            let beacon = BeaconRef(project: project, beaconName: beaconName)
            let moment = timeline.moment(atMs: nowMs)
            let current = try await shows.get(beacon)
            var onCard = false
            if let current { onCard = try await isCard(current) }
            guard let talk = moment.now ?? moment.next else {
                if let current, onCard {
                    _ = try await shows.delete(BeaconRef(current))
                    showCache.forget(beacon)
                    steps.append(.ended(room: room))
                }
                continue
            }
            let card = Self.card(for: talk, now: moment.now != nil, zone: inForce.schedule.timeZoneName)
            // On now with its speaker's deck: the deck (a deck since deleted: the card).
            var deckID = try await cardDeck(card, project: project)
            if moment.now != nil, let own = talkDecks[talk.guid], try await deckExists(own, project: project) { deckID = own }
            if let current {
                if current.deckID == deckID { continue }
                if !onCard && nowMs - current.updatedMs < Self.presenterIdleMs
                    && !Self.untouched(current, talkDecks: Set(talkDecks.values)) {
                    steps.append(.leftToPresenter(room: room))
                    continue
                }
            }
            _ = try await shows.put(beacon, deckID: deckID, page: 1)
            showCache.forget(beacon)
            steps.append(current == nil ? .started(room: room, title: card.title) : .switched(room: room, title: card.title))
            logger.info("day: \(project) room \(room): \(card.label.lowercased()) \(talk.title)")
        }
        return steps
    }

    /// A talk's own deck as the runner put it up at the talk's start: on page 1, no other page
    /// shown. (Its `updatedMs` is the runner's move: a 3-minute talk's deck would otherwise hold
    /// the room 5 minutes.)
    static func untouched(_ show: Show, talkDecks: Set<String>) -> Bool {
        talkDecks.contains(show.deckID) && show.openPages.pages == [1]
    }

    private func deckExists(_ deckID: String, project: String) async throws -> Bool {
        do {
            _ = try await decks.get(project: project, deckID: deckID)
            return true
        } catch let error as APIError where error.status == .notFound {
            return false
        }
    }

    private func isCard(_ show: Show) async throws -> Bool {
        if cards.values.contains(show.deckID) { return true }
        return try await decks.get(project: show.project, deckID: show.deckID).title.hasPrefix(Self.cardTitlePrefix)
    }

    /// The card's deck: made, or found among the project's decks by its title (which names the
    /// card's content), or rendered and stored.
    private func cardDeck(_ card: TitleCardPDF.Card, project: String) async throws -> String {
        let title = Self.deckTitle(card)
        if let known = cards[project + "\n" + title] { return known }
        if let stored = try await decks.list(project: project).first(where: { $0.title == title }) {
            cards[project + "\n" + title] = stored.deckID
            return stored.deckID
        }
        let pdf = TitleCardPDF.make(card)
        let rendered = try await renderer.render(pdf)
        let deck = try await decks.add(project: project, title: title, sourceBytes: pdf.count, rendered: rendered)
        cards[project + "\n" + title] = deck.deckID
        return deck.deckID
    }

    /// "Title card · Now · TITLE · 1a2b3c4d": the hash tells two cards of one title apart (a moved
    /// talk's time, other speakers).
    static func deckTitle(_ card: TitleCardPDF.Card) -> String {
        var hash: UInt32 = 2_166_136_261
        for byte in "\(card.label)\n\(card.title)\n\(card.persons)\n\(card.when)\n\(card.room)".utf8 {
            hash = (hash ^ UInt32(byte)) &* 16_777_619
        }
        let short = String(hash, radix: 16)
        return cardTitlePrefix + card.label + " \u{B7} " + String(card.title.prefix(120)) + " \u{B7} " + short
    }

    static func card(for talk: ScheduledTalk, now: Bool, zone: String?) -> TitleCardPDF.Card {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_GB")
        formatter.timeZone = zone.flatMap(TimeZone.init(identifier:)) ?? TimeZone(identifier: "UTC")
        formatter.dateFormat = "EEE d MMM, HH:mm"
        let start = formatter.string(from: Date(timeIntervalSince1970: Double(talk.startMs) / 1000))
        formatter.dateFormat = "HH:mm"
        let end = formatter.string(from: Date(timeIntervalSince1970: Double(talk.endMs) / 1000))
        return TitleCardPDF.Card(title: talk.title, persons: talk.persons, when: "\(start)\u{2013}\(end)", room: talk.room,
                                 label: now ? "Now" : "Next")
    }
}
