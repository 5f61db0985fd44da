import Foundation

/// Reads a frab-compatible `schedule.json` (the c3voc schema, as pretalx and frab write it) into a
/// `ScheduleDraft`, naming every fault by its JSON path.
///
/// Read: `schedule.version`, `schedule.conference.time_zone_name`, `schedule.conference.rooms[]`
/// (`name`, `guid`; optional), `generator.name` (top level or under `schedule`), and for each
/// `schedule.conference.days[i]` its `index`, `date`, `day_start`, `day_end` and
/// `rooms["NAME"][j]`'s `guid`, `title`, `persons[]` (`name`, else `public_name`), `room`, `date`,
/// `start`, `duration`, `end`. Everything else (`id`, `slug`, `abstract`, …) is ignored, so a file
/// with a string `id` (Winterchaos 2022) still imports.
enum FrabJSONReader {
    typealias Value = ScheduleJSONValue

    static func read(_ data: Data, fallbackZone: TimeZone?) throws(ScheduleImportError) -> ScheduleDraft {
        let top = try object(ScheduleJSONValue.parse(data), at: "(the top level)")
        let schedule = try object(required(top["schedule"], at: "schedule"), at: "schedule")
        let conference = try object(required(schedule["conference"], at: "schedule.conference"), at: "schedule.conference")
        var draft = ScheduleDraft()
        draft.version = try optionalText(schedule["version"], at: "schedule.version")
        draft.timeZoneName = try optionalString(conference["time_zone_name"], at: "schedule.conference.time_zone_name")
        let generator = try optionalString(object(top["generator"] ?? schedule["generator"] ?? .object([:]), at: "generator")["name"],
                                           at: "generator.name")
        var clock = FrabEventClock(zoneName: draft.timeZoneName, fallbackZone: fallbackZone, generator: generator,
                                   problems: &draft.problems, zoneLocation: .field("schedule.conference.time_zone_name"))
        if let rooms = conference["rooms"] {
            draft.declaredRooms = try declaredRooms(rooms, at: "schedule.conference.rooms")
        } else if schedule["rooms"] != nil {
            draft.problems.append(ScheduleProblem(location: .field("schedule.rooms"),
                                                  message: "rooms belong in schedule.conference.rooms; these are not read"))
        }
        let days = try array(required(conference["days"], at: "schedule.conference.days"), at: "schedule.conference.days")
        let roomOrder = draft.declaredRooms?.map(\.room.name) ?? []
        for (dayPosition, dayValue) in days.enumerated() {
            let dayPath = "schedule.conference.days[\(dayPosition)]"
            let day = try readDay(dayValue, at: dayPath, clock: &clock, draft: &draft)
            let rooms = try object(required(object(dayValue, at: dayPath)["rooms"], at: dayPath + ".rooms"), at: dayPath + ".rooms")
            let names = rooms.keys.sorted { a, b in
                let (ia, ib) = (roomOrder.firstIndex(of: a) ?? Int.max, roomOrder.firstIndex(of: b) ?? Int.max)
                return ia != ib ? ia < ib : a < b
            }
            for name in names {
                let roomPath = dayPath + ".rooms[\(quoted(name))]"
                let events = try array(rooms[name]!, at: roomPath)
                draft.meet(room: ScheduleRoom(name: name, guid: draft.declaredRooms?.first { $0.room.name == name }?.room.guid))
                for (position, event) in events.enumerated() {
                    draft.talks.append(try readTalk(event, at: roomPath + "[\(position)]", room: name, day: day.index,
                                                    clock: &clock, problems: &draft.problems))
                }
            }
        }
        clock.finish(problems: &draft.problems)
        return draft
    }

    private static func readDay(_ value: Value, at path: String, clock: inout FrabEventClock,
                                draft: inout ScheduleDraft) throws(ScheduleImportError) -> ScheduleDay {
        let day = try object(value, at: path)
        guard case .number(let number) = try required(day["index"], at: path + ".index"), number >= 1,
              number == number.rounded(), number < 10_000 else {
            throw ScheduleImportError(reason: .badValue, location: .field(path + ".index"), message: "the day's index is not a whole number from 1")
        }
        let index = Int(number)
        if draft.days.contains(where: { $0.index == index }) {
            throw ScheduleImportError(reason: .badValue, location: .field(path + ".index"), message: "day index \(index) is given twice")
        }
        let date = try requiredString(day["date"], at: path + ".date")
        guard ScheduleTime.daysSinceEpoch(date: date) != nil else {
            throw ScheduleImportError(reason: .badTime, location: .field(path + ".date"), message: "\"\(date)\" is not a date (YYYY-MM-DD)")
        }
        let start = clock.dayBound(try optionalString(day["day_start"], at: path + ".day_start"), at: .field(path + ".day_start"),
                                   problems: &draft.problems)
        let end = clock.dayBound(try optionalString(day["day_end"], at: path + ".day_end"), at: .field(path + ".day_end"),
                                 problems: &draft.problems)
        let parsed = ScheduleDay(index: index, date: date, startMs: start, endMs: end)
        draft.days.append(parsed)
        return parsed
    }

    private static func readTalk(_ value: Value, at path: String, room: String, day: Int, clock: inout FrabEventClock,
                                 problems: inout [ScheduleProblem]) throws(ScheduleImportError) -> ScheduleDraft.Talk {
        let event = try object(value, at: path)
        let guid = try requiredString(event["guid"], at: path + ".guid")
        let title = try requiredString(event["title"], at: path + ".title")
        if let named = try optionalString(event["room"], at: path + ".room"), named != room {
            throw ScheduleImportError(reason: .unknownRoom, location: .field(path + ".room"),
                                      message: "\"\(title)\" says room \"\(named)\" but is listed under room \"\(room)\"")
        }
        let date = try requiredString(event["date"], at: path + ".date")
        let (startMs, offset) = try clock.start(date: date, at: .field(path + ".date"),
                                                clock: try optionalString(event["start"], at: path + ".start"),
                                                clockLocation: .field(path + ".start"), problems: &problems)
        let end = try optionalString(event["end"], at: path + ".end")
        let duration = try optionalString(event["duration"], at: path + ".duration")
        // Where the talk's length comes from, for "ends at or before its start".
        let durationPath = path + (end != nil ? ".end" : ".duration")
        let endMs = try clock.end(startMs: startMs, end: end, endLocation: .field(path + ".end"), duration: duration,
                                  durationLocation: .field(path + ".duration"), problems: &problems)
        let persons = try readPersons(event["persons"], at: path + ".persons", problems: &problems)
        return ScheduleDraft.Talk(
            talk: ScheduledTalk(guid: guid, title: title, persons: persons, room: room, startMs: startMs, endMs: endMs, day: day),
            location: .field(path), roomLocation: .field(path + ".room"), durationLocation: .field(durationPath), offsetSeconds: offset)
    }

    /// Names from `[{name}]` (pretalx), `[{public_name}]` (frab, older pretalx), or plain strings.
    private static func readPersons(_ value: Value?, at path: String,
                                    problems: inout [ScheduleProblem]) throws(ScheduleImportError) -> [String] {
        guard let value, value != .null else { return [] }
        var names: [String] = []
        for (position, person) in try array(value, at: path).enumerated() {
            let personPath = path + "[\(position)]"
            var name: String?
            switch person {
            case .string(let text): name = text
            case .object(let fields):
                name = try optionalString(fields["name"], at: personPath + ".name")
                if name?.isEmpty ?? true { name = try optionalString(fields["public_name"], at: personPath + ".public_name") }
            default:
                throw ScheduleImportError(reason: .badValue, location: .field(personPath), message: "a person is \(person.kind), not an object")
            }
            let trimmed = name?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
            if trimmed.isEmpty {
                problems.append(ScheduleProblem(location: .field(personPath), message: "a person without a name (neither name nor public_name); left out"))
            } else {
                names.append(trimmed)
            }
        }
        return names
    }

    private static func declaredRooms(_ value: Value, at path: String) throws(ScheduleImportError) -> [(room: ScheduleRoom, location: ScheduleLocation)] {
        var rooms: [(room: ScheduleRoom, location: ScheduleLocation)] = []
        for (position, item) in try array(value, at: path).enumerated() {
            let itemPath = path + "[\(position)]"
            let fields = try object(item, at: itemPath)
            let name = try requiredString(fields["name"], at: itemPath + ".name")
            rooms.append((ScheduleRoom(name: name, guid: try optionalString(fields["guid"], at: itemPath + ".guid")), .field(itemPath)))
        }
        return rooms
    }

    // MARK: Typed access, each naming the path

    private static func required(_ value: Value?, at path: String) throws(ScheduleImportError) -> Value {
        guard let value, value != .null else {
            throw ScheduleImportError(reason: .missingField, location: .field(path), message: "missing")
        }
        return value
    }

    private static func object(_ value: Value, at path: String) throws(ScheduleImportError) -> [String: Value] {
        guard case .object(let fields) = value else {
            throw ScheduleImportError(reason: .badValue, location: .field(path), message: "is \(value.kind), not an object")
        }
        return fields
    }

    private static func array(_ value: Value, at path: String) throws(ScheduleImportError) -> [Value] {
        guard case .array(let items) = value else {
            throw ScheduleImportError(reason: .badValue, location: .field(path), message: "is \(value.kind), not an array")
        }
        return items
    }

    /// A string that must be there and not blank.
    private static func requiredString(_ value: Value?, at path: String) throws(ScheduleImportError) -> String {
        guard let text = try optionalString(required(value, at: path), at: path),
              !text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
            throw ScheduleImportError(reason: .missingField, location: .field(path), message: "is empty")
        }
        return text.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    private static func optionalString(_ value: Value?, at path: String) throws(ScheduleImportError) -> String? {
        switch value {
        case nil, .null?: return nil
        case .string(let text)?: return text
        case let other?:
            throw ScheduleImportError(reason: .badValue, location: .field(path), message: "is \(other.kind), not a string")
        }
    }

    /// A string, or a number written as one (frab's free-text `version`).
    private static func optionalText(_ value: Value?, at path: String) throws(ScheduleImportError) -> String? {
        if case .number(let number)? = value { return number == number.rounded() ? String(Int64(number)) : String(number) }
        return try optionalString(value, at: path)
    }

    /// A room name as a path key: `"Saal 1"`, with quotes and backslashes escaped.
    static func quoted(_ name: String) -> String {
        "\"" + name.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }
}
