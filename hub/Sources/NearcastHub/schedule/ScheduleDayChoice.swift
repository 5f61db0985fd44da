/// Which programme day the operators' page shows, and each room's talks of it: the export's own
/// day (`ScheduledTalk.day`), never a calendar date, so a day that runs past midnight stays one day.
///
/// ```swift
/// let choice = ScheduleDayChoice(schedule: inForce.schedule, nowMs: now)
/// choice.day?.date            // "2026-11-28": the day on now, else the next, else the last
/// choice.talks(inRoom: "Curie")  // that room's talks of the day, by start
/// ```
///
/// Without a day asked for, it is the first day whose last talk has not ended yet (today while
/// its talks run, past midnight too; the next day once they are over), else the last day.
struct ScheduleDayChoice: Sendable, Hashable {
    /// The day shown; nil when the schedule has no talks (or the day asked for has none).
    let day: ScheduleDay?
    /// The day's talks, in the schedule's order (by start).
    let talks: [ScheduledTalk]

    /// `index`: the 1-based day asked for, or nil for the one on now.
    init(schedule: ConferenceSchedule, nowMs: Int64, index: Int? = nil) {
        var ends: [Int: Int64] = [:]
        for talk in schedule.talks { ends[talk.day] = max(ends[talk.day] ?? talk.endMs, talk.endMs) }
        let chosen = index ?? ends.keys.sorted().first { ends[$0]! > nowMs } ?? ends.keys.max()
        talks = chosen.map { index in schedule.talks.filter { $0.day == index } } ?? []
        day = chosen.flatMap { index in ends[index] == nil ? nil : schedule.days.first { $0.index == index } }
    }

    /// One room's talks of the day, by start.
    func talks(inRoom room: String) -> [ScheduledTalk] {
        talks.filter { $0.room == room }
    }
}
