import Foundation

/// Reads a frab-compatible `schedule.xml` (the c3voc XSD, as pretalx and frab write it) into a
/// `ScheduleDraft`, naming every fault by the line of the element (or the element's parent, for a
/// missing one) and its place: `line 42: day 2, room "Saal 1", event 3: duration "1:75" is not …`.
///
/// Read: `schedule/version`, `schedule/generator/@name`, `schedule/conference/time_zone_name`, and
/// for each `schedule/day` its `@index`, `@date`, `@start`, `@end`, its `room`s' `@name`/`@guid`,
/// and their `event`s' `@guid`, `title`, `room`, `date`, `start`, `duration`, `persons/person`.
/// Everything else is ignored. The XSD has no list of rooms besides those under the days, so an
/// unknown room is an `event/room` other than its enclosing `room/@name`.
enum FrabXMLReader {
    static func read(_ data: Data, fallbackZone: TimeZone?) throws(ScheduleImportError) -> ScheduleDraft {
        let root = try ScheduleXMLElement.parse(data)
        guard root.name == "schedule" else {
            throw ScheduleImportError(reason: .badValue, location: .line(root.line),
                                      message: "the root element is <\(root.name)>, not <schedule>")
        }
        var draft = ScheduleDraft()
        draft.version = root.childText("version")
        let conference = root.child("conference")
        if conference == nil {
            throw ScheduleImportError(reason: .missingField, location: .line(root.line), message: "<schedule> has no <conference>")
        }
        draft.timeZoneName = conference?.childText("time_zone_name").flatMap { $0.isEmpty ? nil : $0 }
        var clock = FrabEventClock(zoneName: draft.timeZoneName, fallbackZone: fallbackZone,
                                   generator: root.child("generator")?.attributes["name"], problems: &draft.problems,
                                   zoneLocation: .line(conference?.child("time_zone_name")?.line ?? root.line))
        for dayElement in root.children("day") {
            let day = try readDay(dayElement, clock: &clock, draft: &draft)
            for roomElement in dayElement.children("room") {
                guard let name = roomElement.attributes["name"]?.trimmingCharacters(in: .whitespacesAndNewlines), !name.isEmpty else {
                    throw ScheduleImportError(reason: .missingField, location: .line(roomElement.line),
                                              message: "day \(day.index): a <room> without a name")
                }
                draft.meet(room: ScheduleRoom(name: name, guid: roomElement.attributes["guid"]))
                for (position, event) in roomElement.children("event").enumerated() {
                    let place = "day \(day.index), room \(FrabJSONReader.quoted(name)), event \(position + 1)"
                    draft.talks.append(try readTalk(event, place: place, room: name, day: day.index, clock: &clock,
                                                    problems: &draft.problems))
                }
            }
        }
        clock.finish(problems: &draft.problems)
        return draft
    }

    private static func readDay(_ element: ScheduleXMLElement, clock: inout FrabEventClock,
                                draft: inout ScheduleDraft) throws(ScheduleImportError) -> ScheduleDay {
        guard let indexText = element.attributes["index"], let index = Int(indexText), index >= 1 else {
            throw ScheduleImportError(reason: .badValue, location: .line(element.line),
                                      message: "<day> index \"\(element.attributes["index"] ?? "")\" is not a whole number from 1")
        }
        if draft.days.contains(where: { $0.index == index }) {
            throw ScheduleImportError(reason: .badValue, location: .line(element.line), message: "day index \(index) is given twice")
        }
        guard let date = element.attributes["date"], ScheduleTime.daysSinceEpoch(date: date) != nil else {
            throw ScheduleImportError(reason: .badTime, location: .line(element.line),
                                      message: "day \(index): date \"\(element.attributes["date"] ?? "")\" is not a date (YYYY-MM-DD)")
        }
        let day = ScheduleDay(index: index, date: date,
                              startMs: clock.dayBound(element.attributes["start"], at: .line(element.line), problems: &draft.problems),
                              endMs: clock.dayBound(element.attributes["end"], at: .line(element.line), problems: &draft.problems))
        draft.days.append(day)
        return day
    }

    private static func readTalk(_ event: ScheduleXMLElement, place: String, room: String, day: Int, clock: inout FrabEventClock,
                                 problems: inout [ScheduleProblem]) throws(ScheduleImportError) -> ScheduleDraft.Talk {
        /// An element's line, or the event's when it is missing.
        func line(_ name: String) -> ScheduleLocation { .line(event.child(name)?.line ?? event.line) }
        func required(_ name: String) throws(ScheduleImportError) -> String {
            guard let text = event.childText(name), !text.isEmpty else {
                throw ScheduleImportError(reason: .missingField, location: line(name), message: "\(place): no <\(name)>")
            }
            return text
        }
        guard let guid = event.attributes["guid"]?.trimmingCharacters(in: .whitespacesAndNewlines), !guid.isEmpty else {
            throw ScheduleImportError(reason: .missingField, location: .line(event.line), message: "\(place): <event> has no guid")
        }
        let title = try required("title")
        if let named = event.childText("room"), named != room {
            throw ScheduleImportError(reason: .unknownRoom, location: line("room"),
                                      message: "\(place): \"\(title)\" says room \"\(named)\" but is listed under room \"\(room)\"")
        }
        let date = try required("date")
        do {
            let (startMs, offset) = try clock.start(date: date, at: line("date"), clock: event.childText("start"),
                                                    clockLocation: line("start"), problems: &problems)
            let endMs = try clock.end(startMs: startMs, end: nil, endLocation: line("duration"), duration: event.childText("duration"),
                                      durationLocation: line("duration"), problems: &problems)
            let persons = (event.child("persons")?.children("person") ?? [])
                .map { $0.text.trimmingCharacters(in: .whitespacesAndNewlines) }
                .filter { !$0.isEmpty }
            return ScheduleDraft.Talk(
                talk: ScheduledTalk(guid: guid, title: title, persons: persons, room: room, startMs: startMs, endMs: endMs, day: day),
                location: .line(event.line), roomLocation: line("room"), durationLocation: line("duration"), offsetSeconds: offset)
        } catch {
            throw ScheduleImportError(reason: error.reason, location: error.location, message: "\(place): \(error.message)")
        }
    }
}
