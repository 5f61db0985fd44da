/// A `ScheduleInForce` as the database stores it: one JSON document per project, written whole
/// by each import (so a schedule is replaced in one step and never half there). Its own Codable
/// shape, apart from the schedule's types, so the stored form changes only on purpose.
package struct ScheduleDocument: Codable, Sendable {
    struct Room: Codable, Sendable {
        var name: String
        var guid: String?
    }

    struct Day: Codable, Sendable {
        var index: Int
        var date: String
        var startMs: Int64?
        var endMs: Int64?
    }

    struct Talk: Codable, Sendable {
        var guid: String
        var title: String
        var persons: [String]
        var room: String
        var startMs: Int64
        var endMs: Int64
        var day: Int
    }

    var version: String?
    var timeZoneName: String?
    var rooms: [Room]
    var days: [Day]
    var talks: [Talk]
    var finishingFirst: [Talk]
    var importedMs: Int64?
    var source: String?
    var lastChange: ScheduleChangeCounts?
    var subscription: ScheduleSubscription?
    /// The file's own problems (`ScheduleInForce.fileProblems`); absent when it had none.
    var problems: [String]?

    package init(_ inForce: ScheduleInForce) {
        let schedule = inForce.schedule
        version = schedule.version
        timeZoneName = schedule.timeZoneName
        rooms = schedule.rooms.map { Room(name: $0.name, guid: $0.guid) }
        days = schedule.days.map { Day(index: $0.index, date: $0.date, startMs: $0.startMs, endMs: $0.endMs) }
        talks = schedule.talks.map(Self.talk)
        finishingFirst = inForce.finishingFirst.map(Self.talk)
        importedMs = inForce.importedMs
        source = inForce.source
        lastChange = inForce.lastChange
        subscription = inForce.subscription
        problems = inForce.fileProblems.isEmpty ? nil : inForce.fileProblems
    }

    /// The schedule this document holds. (A document is written only from a checked schedule.)
    package var inForce: ScheduleInForce {
        let schedule = ConferenceSchedule(version: version, timeZoneName: timeZoneName,
                                          rooms: rooms.map { ScheduleRoom(name: $0.name, guid: $0.guid) },
                                          days: days.map { ScheduleDay(index: $0.index, date: $0.date, startMs: $0.startMs, endMs: $0.endMs) },
                                          talks: talks.map(Self.talk))
        return ScheduleInForce(schedule: schedule, finishingFirst: finishingFirst.map(Self.talk), importedMs: importedMs,
                               source: source, lastChange: lastChange, subscription: subscription, fileProblems: problems ?? [])
    }

    private static func talk(_ talk: ScheduledTalk) -> Talk {
        Talk(guid: talk.guid, title: talk.title, persons: talk.persons, room: talk.room, startMs: talk.startMs, endMs: talk.endMs,
             day: talk.day)
    }

    private static func talk(_ talk: Talk) -> ScheduledTalk {
        ScheduledTalk(guid: talk.guid, title: talk.title, persons: talk.persons, room: talk.room, startMs: talk.startMs,
                      endMs: talk.endMs, day: talk.day)
    }
}
