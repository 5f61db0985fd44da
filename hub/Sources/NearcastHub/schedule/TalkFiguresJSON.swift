import Hummingbird

/// `GET /upload/TOKEN/reactions.json`: a talk's figures (`TalkFigures`) for a program, with the
/// same rows the CSV has and the page's two views of them (per slide, per minute).
struct TalkFiguresJSON: ResponseEncodable, Sendable {
    struct Slide: Codable, Sendable {
        var deck: String
        var deckName: String
        /// Whether it is the deck the speaker uploaded at this address.
        var ownDeck: Bool
        var page: Int
        var counts: [String: Int]
        var total: Int
    }

    struct Minute: Codable, Sendable {
        /// Minutes from the minute the talk started in.
        var minute: Int
        var time: String
        var counts: [String: Int]
        var total: Int
    }

    struct Row: Codable, Sendable {
        var deck: String
        var page: Int
        var minute: Int
        var time: String
        var reaction: String
        var count: Int
    }

    var talk: TalkJSON
    var room: String
    var state: TalkFigures.State
    var total: Int
    /// The reactions that came, most first.
    var reactions: [String]
    var counts: [String: Int]
    var slides: [Slide]
    var timeline: [Minute]
    var rows: [Row]

    init(_ figures: TalkFigures) {
        talk = TalkJSON(figures.talk, deck: figures.rule.ownDeck)
        room = figures.talk.room
        state = figures.state
        total = figures.total
        reactions = figures.values
        counts = figures.counts
        slides = figures.slides.map {
            Slide(deck: $0.slide.deckID, deckName: figures.deckName($0.slide.deckID), ownDeck: $0.ownDeck, page: $0.slide.page,
                  counts: $0.counts, total: $0.total)
        }
        timeline = figures.timeline.map { Minute(minute: $0.minute, time: HubClock.timestamp(ms: $0.timeMs), counts: $0.counts, total: $0.total) }
        rows = figures.tallies.map {
            Row(deck: $0.slide.deckID, page: $0.slide.page, minute: figures.rule.minute($0.minuteMs),
                time: HubClock.timestamp(ms: $0.minuteMs), reaction: $0.value, count: $0.count)
        }
    }
}
