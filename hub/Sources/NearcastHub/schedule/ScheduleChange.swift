/// What a new schedule changes in the schedule in force, talk by talk, matched by guid: the
/// operator's "what changed" and the hub's list of shows to move.
///
/// ```swift
/// let change = ScheduleChange(from: inForce, to: imported)
/// change.moved.map(\.after.title)                  // talks whose time or room changed
/// let holdovers = change.finishingFirst(atMs: now) // on stage now, removed or moved: they finish first
/// ```
///
/// A talk can be both moved and retitled. A talk whose speakers alone changed is in `respoken`.
struct ScheduleChange: Sendable, Hashable {
    /// One talk as it was and as it is.
    struct Update: Sendable, Hashable {
        var before: ScheduledTalk
        var after: ScheduledTalk
    }

    /// In the new schedule only, in its order.
    var added: [ScheduledTalk]
    /// In both, with another start, end or room.
    var moved: [Update]
    /// In both, with another title.
    var retitled: [Update]
    /// In both, with other speakers.
    var respoken: [Update]
    /// In the schedule in force only, in its order.
    var removed: [ScheduledTalk]
    /// How many talks are in both, unchanged in every way above.
    var unchanged: Int

    var isEmpty: Bool {
        added.isEmpty && moved.isEmpty && retitled.isEmpty && respoken.isEmpty && removed.isEmpty
    }

    init(from current: ConferenceSchedule, to new: ConferenceSchedule) {
        let before = Dictionary(current.talks.map { ($0.guid, $0) }, uniquingKeysWith: { first, _ in first })
        let afterGUIDs = Set(new.talks.map(\.guid))
        added = []
        moved = []
        retitled = []
        respoken = []
        unchanged = 0
        for talk in new.talks {
            guard let old = before[talk.guid] else {
                added.append(talk)
                continue
            }
            let update = Update(before: old, after: talk)
            let isMoved = old.startMs != talk.startMs || old.endMs != talk.endMs || old.room != talk.room
            if isMoved { moved.append(update) }
            if old.title != talk.title { retitled.append(update) }
            if old.persons != talk.persons { respoken.append(update) }
            if !isMoved && old.title == talk.title && old.persons == talk.persons { unchanged += 1 }
        }
        removed = current.talks.filter { !afterGUIDs.contains($0.guid) }
    }

    /// The talks of the schedule in force that are on stage at `nowMs` and that the new schedule
    /// removes or moves: each finishes first, in its old room until its old end, rather than being
    /// cut (a moved one then also has its new slot). Give them to `RoomTimeline` (or
    /// `ConferenceSchedule.timelines(finishingFirst:)`). A talk retitled or respoken in place is not
    /// here: it runs on under the new schedule.
    func finishingFirst(atMs nowMs: Int64) -> [ScheduledTalk] {
        (removed + moved.map(\.before)).filter { $0.isOn(atMs: nowMs) }.sorted { ($0.startMs, $0.room) < ($1.startMs, $1.room) }
    }
}
