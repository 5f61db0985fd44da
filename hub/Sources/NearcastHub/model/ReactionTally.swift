/// Reactions of one show counted by the slide on the screen when each was accepted and the minute
/// it came in: what a talk's figures are made of (`TalkFigures`). Only accepted reactions are
/// counted, so only from phones that proved they were in the room; a tally holds no phone id.
///
/// Kept per show (its beacon), deck, page, minute and value, not per talk: a reaction is counted as
/// it arrives, with no schedule to read on the way, and which talk a tally belongs to is decided
/// when the figures are read (`TalkFigures.Rule`), so a schedule moved later still reads right.
package struct ReactionTally: Sendable, Hashable {
    /// A page of a deck, as the show had it on the screen.
    package struct Slide: Sendable, Hashable, Comparable {
        package var deckID: String
        package var page: Int

        package init(deckID: String, page: Int) {
            self.deckID = deckID
            self.page = page
        }

        package static func < (a: Slide, b: Slide) -> Bool { (a.deckID, a.page) < (b.deckID, b.page) }
    }

    package var slide: Slide
    /// The first millisecond (since 1970) of the minute the reactions came in.
    package var minuteMs: Int64
    package var value: String
    package var count: Int

    package init(slide: Slide, minuteMs: Int64, value: String, count: Int) {
        self.slide = slide
        self.minuteMs = minuteMs
        self.value = value
        self.count = count
    }

    static let msPerMinute: Int64 = 60_000

    /// The first millisecond of the minute `ms` falls in.
    package static func minute(ofMs ms: Int64) -> Int64 { ms - ((ms % msPerMinute) + msPerMinute) % msPerMinute }

    /// What one row counts: the same key is one row, its counts added.
    package struct Key: Sendable, Hashable, Comparable {
        package var slide: Slide
        package var minuteMs: Int64
        package var value: String

        package static func < (a: Key, b: Key) -> Bool {
            (a.minuteMs, a.slide.deckID, a.slide.page, a.value) < (b.minuteMs, b.slide.deckID, b.slide.page, b.value)
        }
    }

    package var key: Key { Key(slide: slide, minuteMs: minuteMs, value: value) }

    /// A batch's reactions (their slide, time and value) as tallies, a row per key, in the key's
    /// order: two instances adding to the same rows at once then take their locks in one order.
    static func tallied(_ reactions: some Sequence<(slide: Slide, timeMs: Int64, value: String)>) -> [ReactionTally] {
        var counts: [Key: Int] = [:]
        for reaction in reactions {
            counts[Key(slide: reaction.slide, minuteMs: minute(ofMs: reaction.timeMs), value: reaction.value), default: 0] += 1
        }
        return counts.keys.sorted().map { ReactionTally(slide: $0.slide, minuteMs: $0.minuteMs, value: $0.value, count: counts[$0]!) }
    }

    /// The batch's count of each value: what it adds to the show's totals.
    package static func totals(_ tallies: [ReactionTally]) -> [String: Int] {
        tallies.reduce(into: [:]) { $0[$1.value, default: 0] += $1.count }
    }
}
