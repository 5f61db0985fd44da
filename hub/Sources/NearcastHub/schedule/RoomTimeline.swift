/// One room's talks in order, asked what is on at an instant and what comes next: what
/// `GET /v1/rooms` answers and what runs the room's show.
///
/// Intervals are half-open: at a talk's `startMs` it is on; at its `endMs` it is over and the next
/// one (if it starts then) is on. Instants are absolute, so a talk past midnight needs nothing special.
///
/// ```swift
/// let moment = RoomTimeline(room: "Curie", talks: schedule.talks).moment(atMs: now)
/// moment.now?.title    // on stage, or nil between talks, before the first, after the last
/// moment.next?.title   // the next to start, or nil after the last
/// ```
///
/// Talks that finish first (`ScheduleChange.finishingFirst`) keep the room until their end: while
/// one is on it is `now`, and `next` is the first talk of the new schedule still on when it ends,
/// even one whose start has passed (it takes over then); talks over before it ends are skipped.
struct RoomTimeline: Sendable, Hashable {
    /// What a room has at an instant.
    struct Moment: Sendable, Hashable {
        var now: ScheduledTalk?
        var next: ScheduledTalk?
    }

    let room: String
    /// The room's talks by start; the schedule's check makes sure they do not overlap.
    let talks: [ScheduledTalk]
    let finishingFirst: [ScheduledTalk]

    /// The timeline of `room`, from talks of any rooms (others are left out).
    init(room: String, talks: [ScheduledTalk], finishingFirst: [ScheduledTalk] = []) {
        self.room = room
        self.talks = talks.filter { $0.room == room }.sorted { ($0.startMs, $0.endMs, $0.guid) < ($1.startMs, $1.endMs, $1.guid) }
        self.finishingFirst = finishingFirst.filter { $0.room == room }
    }

    func moment(atMs nowMs: Int64) -> Moment {
        if let holdover = finishingFirst.filter({ $0.isOn(atMs: nowMs) }).min(by: { $0.endMs < $1.endMs }) {
            let next = talks.first { $0.endMs > holdover.endMs && $0 != holdover }
            return Moment(now: holdover, next: next)
        }
        let started = firstIndex { $0.startMs > nowMs }
        let now = started > 0 && talks[started - 1].isOn(atMs: nowMs) ? talks[started - 1] : nil
        return Moment(now: now, next: started < talks.count ? talks[started] : nil)
    }

    /// The first index whose talk satisfies `isAfter` (talks are sorted, so a binary search).
    private func firstIndex(where isAfter: (ScheduledTalk) -> Bool) -> Int {
        var low = 0, high = talks.count
        while low < high {
            let middle = (low + high) / 2
            if isAfter(talks[middle]) { high = middle } else { low = middle + 1 }
        }
        return low
    }
}
