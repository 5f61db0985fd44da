/// A project's schedule as the hub runs it: the last schedule imported, the talks of the one
/// before that were on stage when it came and finish first (`ScheduleChange.finishingFirst`),
/// and what the import was (when, from where, what it changed).
package struct ScheduleInForce: Sendable, Hashable {
    var schedule: ConferenceSchedule
    /// Talks of an earlier schedule still finishing in their old slot.
    var finishingFirst: [ScheduledTalk]
    /// When the schedule in force was imported; nil before the first import.
    var importedMs: Int64?
    /// The file's name or the URL it came from.
    var source: String?
    /// What the last import changed, counted.
    var lastChange: ScheduleChangeCounts?
    /// The address it is kept in step with, if it came from one (`ScheduleRefresher`).
    var subscription: ScheduleSubscription?
    /// What the file itself had wrong that did not refuse it ("line 4: …"), kept for the
    /// operators' page: an import's answer is read once, by whoever imported it.
    var fileProblems: [String]

    init(schedule: ConferenceSchedule, finishingFirst: [ScheduledTalk], importedMs: Int64?, source: String?,
         lastChange: ScheduleChangeCounts?, subscription: ScheduleSubscription? = nil, fileProblems: [String] = []) {
        self.schedule = schedule
        self.finishingFirst = finishingFirst
        self.importedMs = importedMs
        self.source = source
        self.lastChange = lastChange
        self.subscription = subscription
        self.fileProblems = fileProblems
    }

    /// Before the first import: no rooms, no talks.
    package static let none = ScheduleInForce(schedule: .empty, finishingFirst: [], importedMs: nil, source: nil, lastChange: nil)

    /// This schedule replaced by `imported` at `nowMs`: talks matched by guid; a talk on stage now
    /// that the new schedule removes or moves finishes first in its old slot (and one already
    /// finishing first goes on doing so until its end). The same rule for every storage.
    /// `subscription`: the address it came from and is kept in step with; nil (a file sent by
    /// hand) ends any refreshing.
    func replaced(by imported: ConferenceSchedule, source: String, nowMs: Int64,
                  subscription: ScheduleSubscription? = nil, fileProblems: [String] = []) -> (ScheduleInForce, ScheduleChange) {
        let change = ScheduleChange(from: schedule, to: imported)
        var holdovers = finishingFirst.filter { $0.isOn(atMs: nowMs) }
        for talk in change.finishingFirst(atMs: nowMs) where !holdovers.contains(where: { $0.guid == talk.guid }) {
            holdovers.append(talk)
        }
        let next = ScheduleInForce(schedule: imported, finishingFirst: holdovers, importedMs: nowMs, source: source,
                                   lastChange: ScheduleChangeCounts(change), subscription: subscription, fileProblems: fileProblems)
        return (next, change)
    }

    /// Each room's timeline, the talks finishing first included.
    var timelines: [String: RoomTimeline] { schedule.timelines(finishingFirst: finishingFirst) }
}

/// What an import changed, counted: the operators' page's "what changed".
package struct ScheduleChangeCounts: Sendable, Hashable, Codable {
    package var added: Int
    package var moved: Int
    package var retitled: Int
    package var respoken: Int
    package var removed: Int
    package var unchanged: Int

    init(_ change: ScheduleChange) {
        added = change.added.count
        moved = change.moved.count
        retitled = change.retitled.count
        respoken = change.respoken.count
        removed = change.removed.count
        unchanged = change.unchanged
    }
}
