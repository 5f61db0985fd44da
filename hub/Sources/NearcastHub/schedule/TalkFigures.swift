/// A talk's reactions as its speaker reads them at the talk's address (`/upload/TOKEN`, its CSV
/// and its JSON): per slide, per minute from the talk's start, and each row as counted. Made from
/// the shows' tallies (`ReactionTally`) that `Rule` says are the talk's; every one is a reaction
/// accepted from a phone that proved it was in the room.
struct TalkFigures: Sendable {
    /// Before the talk, on stage, or over (its slot; an overrun's reactions still count).
    enum State: String, Sendable, Codable {
        case before, on, over
    }

    /// Which tallies are the talk's. Both the deck and the time are needed:
    /// - the talk's own deck (uploaded at its address), on any box, from the minute of its start
    ///   to an hour after its end: a talk that overruns keeps its deck up after its slot
    ///   (`DayRunner` never cuts it while its pages turn), and those reactions are its own; a
    ///   rehearsal before the talk is not, nor the deck put up again later in the conference;
    /// - on its room's box in its slot's minutes, whatever else was up except another talk's own
    ///   deck: its title card (before a deck came, or without one), a deck its presenter put up by
    ///   hand; not the previous talk's deck running over into this slot.
    /// A time window alone would hand an overrun to the next talk; the deck alone would miss a talk
    /// given from its title card or from a deck brought on the presenter's page. Reactions are
    /// counted by the minute, so the slot is its start's minute up to its end.
    struct Rule: Sendable {
        let ownDeck: String?
        /// The decks other talks' speakers uploaded.
        let otherTalksDecks: Set<String>
        /// The first millisecond of the minute the talk starts in.
        let fromMs: Int64
        /// The end of its slot.
        let untilMs: Int64
        /// The end of an overrun: how long its own deck still counts after its slot.
        let ownDeckUntilMs: Int64
        static let overrunMs: Int64 = 60 * 60_000

        init(talk: ScheduledTalk, ownDeck: String?, uploadedDecks: [String: String]) {
            self.ownDeck = ownDeck
            otherTalksDecks = Set(uploadedDecks.filter { $0.key != talk.guid }.values).subtracting(ownDeck.map { [$0] } ?? [])
            fromMs = ReactionTally.minute(ofMs: talk.startMs)
            untilMs = talk.endMs
            ownDeckUntilMs = talk.endMs + Self.overrunMs
        }

        /// Minutes from the talk's first: the timeline's, the CSV's `minute`.
        func minute(_ minuteMs: Int64) -> Int { Int((minuteMs - fromMs) / ReactionTally.msPerMinute) }

        /// Whether `tally`, read of the talk's own deck (on any box) or of its room's box, is the
        /// talk's. The own deck's rows on the room's box are read with the deck, not twice.
        func takes(_ tally: ReactionTally, onRoomsBox: Bool) -> Bool {
            guard tally.minuteMs >= fromMs else { return false }
            if tally.slide.deckID == ownDeck { return !onRoomsBox && tally.minuteMs < ownDeckUntilMs }
            return onRoomsBox && tally.minuteMs < untilMs && !otherTalksDecks.contains(tally.slide.deckID)
        }
    }

    /// One slide: a page of a deck the talk's reactions came on.
    struct Slide: Sendable, Equatable {
        var slide: ReactionTally.Slide
        /// Whether it is the deck the speaker uploaded.
        var ownDeck: Bool
        var counts: [String: Int]
        var total: Int
    }

    /// One minute of the talk, from its start.
    struct Minute: Sendable, Equatable {
        /// Minutes since the minute the talk started in.
        var minute: Int
        var timeMs: Int64
        var counts: [String: Int]
        var total: Int
    }

    let talk: ScheduledTalk
    /// What was taken: its own deck, its slot's minutes.
    let rule: Rule
    let state: State
    /// Every row counted (slide, minute, value), summed over boxes, in time order.
    let tallies: [ReactionTally]
    /// The slides: every page of the talk's own deck first (those without a reaction too), then
    /// the pages of any other deck that had reactions, deck by deck in the order each came up.
    let slides: [Slide]
    /// Every minute from the talk's start to its end (or its last reaction, when it ran over).
    let timeline: [Minute]
    /// The values that came, most first.
    let values: [String]
    let counts: [String: Int]
    var total: Int { counts.values.reduce(0, +) }
    /// The titles of the slides' decks (the talk's own deck is titled as the talk); a deck since
    /// deleted has none.
    let deckTitles: [String: String]

    /// How the speaker reads a deck's name: the title card as such (not its deck's long title), a
    /// deck since deleted as such, any other deck by its title.
    func deckName(_ deckID: String) -> String {
        guard let title = deckTitles[deckID] else { return "a deck since deleted" }
        return title.hasPrefix(DayRunner.cardTitlePrefix) ? "the title card" : title
    }

    /// The figures of `talk`: of the tallies read of its own deck and of its room's box, those
    /// `rule` takes; `decks` names the decks they came on and counts their pages (a deck since
    /// deleted is not there).
    init(talk: ScheduledTalk, rule: Rule, ownDeckTallies: [ReactionTally], roomBoxTallies: [ReactionTally],
         decks: [String: (title: String, pages: Int)], nowMs: Int64) {
        self.talk = talk
        self.rule = rule
        deckTitles = decks.mapValues(\.title)
        let state: State = nowMs < talk.startMs ? .before : nowMs < talk.endMs ? .on : .over
        self.state = state
        var merged: [ReactionTally.Key: Int] = [:]
        for tally in ownDeckTallies where rule.takes(tally, onRoomsBox: false) { merged[tally.key, default: 0] += tally.count }
        for tally in roomBoxTallies where rule.takes(tally, onRoomsBox: true) { merged[tally.key, default: 0] += tally.count }
        let tallies = merged.keys.sorted().map { ReactionTally(slide: $0.slide, minuteMs: $0.minuteMs, value: $0.value, count: merged[$0]!) }
        let counts = ReactionTally.totals(tallies)
        (self.tallies, self.counts) = (tallies, counts)
        values = counts.keys.sorted { (counts[$0]!, $1) > (counts[$1]!, $0) }

        var firstSeen: [String: Int64] = [:], bySlide: [ReactionTally.Slide: [String: Int]] = [:]
        for tally in tallies {
            firstSeen[tally.slide.deckID] = min(firstSeen[tally.slide.deckID] ?? .max, tally.minuteMs)
            bySlide[tally.slide, default: [:]][tally.value, default: 0] += tally.count
        }
        if let own = rule.ownDeck, let pages = decks[own]?.pages, state != .before {
            for page in 1...max(1, pages) where bySlide[ReactionTally.Slide(deckID: own, page: page)] == nil {
                bySlide[ReactionTally.Slide(deckID: own, page: page)] = [:]
            }
        }
        func rank(_ deckID: String) -> (Int, Int64, String) { (deckID == rule.ownDeck ? 0 : 1, firstSeen[deckID] ?? 0, deckID) }
        let order = bySlide.keys.sorted { rank($0.deckID) != rank($1.deckID) ? rank($0.deckID) < rank($1.deckID) : $0.page < $1.page }
        slides = order.map { slide in
            let counts = bySlide[slide]!
            return Slide(slide: slide, ownDeck: slide.deckID == rule.ownDeck, counts: counts, total: counts.values.reduce(0, +))
        }

        let perMinute = ReactionTally.msPerMinute
        let slotMinutes = Int((talk.endMs - rule.fromMs + perMinute - 1) / perMinute)
        let lastMinute = tallies.map { rule.minute($0.minuteMs) }.max() ?? -1
        var byMinute = [[String: Int]](repeating: [:], count: max(slotMinutes, lastMinute + 1))
        for tally in tallies { byMinute[rule.minute(tally.minuteMs)][tally.value, default: 0] += tally.count }
        timeline = byMinute.enumerated().map { minute, counts in
            Minute(minute: minute, timeMs: rule.fromMs + Int64(minute) * perMinute, counts: counts, total: counts.values.reduce(0, +))
        }
    }
}
