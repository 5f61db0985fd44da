/// A conference's whole timetable as one value: its rooms, its programme days and its talks.
///
/// Made only by `ScheduleImport.read`, which refuses a file that could not run as a day (see
/// `ScheduleImportError`), so a value of this type holds these invariants:
/// - every talk's `guid` is unique, its `endMs` is after its `startMs`, its `room` is one of `rooms`
///   and its `day` one of `days`' indexes;
/// - no two talks of one room overlap (half-open intervals);
/// - `talks` are sorted by start, then room name, then guid; `rooms` are in the export's order.
///
/// It is pure data: storing it, serving it and running the day are the hub's other parts.
struct ConferenceSchedule: Sendable, Hashable {
    /// The export's `version` (pretalx: the release name, frab: a free text), if any.
    var version: String?
    /// The export's `time_zone_name` (or the CSV's zone), if any; times do not depend on it.
    var timeZoneName: String?
    var rooms: [ScheduleRoom]
    var days: [ScheduleDay]
    var talks: [ScheduledTalk]

    /// An empty schedule: what is in force before the first import.
    static let empty = ConferenceSchedule(version: nil, timeZoneName: nil, rooms: [], days: [], talks: [])

    var dayCount: Int { days.count }

    /// The talk with this guid, if the schedule has it.
    func talk(guid: String) -> ScheduledTalk? {
        talks.first { $0.guid == guid }
    }

    /// The talks of one room, in order.
    func talks(inRoom room: String) -> [ScheduledTalk] {
        talks.filter { $0.room == room }
    }

    /// Each room's timeline, with the talks that finish first (see `ScheduleChange.finishingFirst`)
    /// given to the room they were in.
    func timelines(finishingFirst: [ScheduledTalk] = []) -> [String: RoomTimeline] {
        var byRoom: [String: [ScheduledTalk]] = [:]
        for talk in talks { byRoom[talk.room, default: []].append(talk) }
        var holdovers: [String: [ScheduledTalk]] = [:]
        for talk in finishingFirst { holdovers[talk.room, default: []].append(talk) }
        var timelines: [String: RoomTimeline] = [:]
        for name in Set(rooms.map(\.name)).union(holdovers.keys) {
            timelines[name] = RoomTimeline(room: name, talks: byRoom[name] ?? [], finishingFirst: holdovers[name] ?? [])
        }
        return timelines
    }
}
