/// A schedule as a reader found it, each talk with where it came from, before the checks that look
/// across talks. Every reader (JSON, XML, CSV) fills one and `checked()` makes the schedule, so the
/// rules below hold the same for the three formats.
struct ScheduleDraft: Sendable {
    /// A talk and the places its error or problem is named at.
    struct Talk: Sendable {
        var talk: ScheduledTalk
        /// The talk itself: its CSV line, its XML `event` line, its JSON path.
        var location: ScheduleLocation
        /// Its room field (the XML `room` element's line, the JSON `.room`).
        var roomLocation: ScheduleLocation
        /// Where its length comes from (`duration`, or `end` when that was used).
        var durationLocation: ScheduleLocation
        /// The offset the file wrote the talk's times in, so messages give them as the file does.
        var offsetSeconds: Int
    }

    var version: String?
    var timeZoneName: String?
    /// The rooms the file declares before its talks (JSON `conference.rooms`), with where; nil when
    /// it declares none, and then the rooms are those the talks are listed under.
    var declaredRooms: [(room: ScheduleRoom, location: ScheduleLocation)]?
    /// Rooms met under the days (JSON keys, XML `room` elements, CSV values), in the order met.
    var listedRooms: [ScheduleRoom] = []
    var days: [ScheduleDay] = []
    var talks: [Talk] = []
    var problems: [ScheduleProblem] = []

    /// Talks longer than this are a problem to look at (a 15 h CTF is real, a 6944 h one is not).
    static let longTalkMs: Int64 = 12 * 3_600_000

    /// Notes a room met under a day, once.
    mutating func meet(room: ScheduleRoom) {
        if let index = listedRooms.firstIndex(where: { $0.name == room.name }) {
            if listedRooms[index].guid == nil { listedRooms[index].guid = room.guid }
        } else {
            listedRooms.append(room)
        }
    }

    /// The schedule, or the first fault that makes it unrunnable:
    /// 1. a talk whose end is not after its start (`badDuration`);
    /// 2. a talk in a room the file does not declare, when it declares its rooms (`unknownRoom`);
    /// 3. two talks with one guid (`duplicateGUID`), named at the second;
    /// 4. two talks at once in one room (`overlap`), named at the later-starting one.
    /// Problems added: talks without speakers or over 12 h, talks outside their day, room guids
    /// shared by rooms of other names.
    func checked() throws(ScheduleImportError) -> (schedule: ConferenceSchedule, problems: [ScheduleProblem]) {
        var problems = self.problems
        for entry in talks where entry.talk.endMs <= entry.talk.startMs {
            throw ScheduleImportError(reason: .badDuration, location: entry.durationLocation,
                                      message: "\"\(entry.talk.title)\" ends at or before its start")
        }
        let rooms = try roomsChecked(problems: &problems)
        var seen: [String: ScheduleLocation] = [:]
        for entry in talks {
            if let first = seen[entry.talk.guid] {
                throw ScheduleImportError(reason: .duplicateGUID, location: entry.location,
                                          message: "guid \(entry.talk.guid) (\"\(entry.talk.title)\") is already the guid of the talk at \(first)")
            }
            seen[entry.talk.guid] = entry.location
        }
        try checkOverlaps()
        let dayBounds = Dictionary(days.map { ($0.index, $0) }, uniquingKeysWith: { first, _ in first })
        for entry in talks {
            let talk = entry.talk
            if talk.persons.isEmpty {
                problems.append(ScheduleProblem(location: entry.location, message: "\"\(talk.title)\" has no speakers"))
            }
            if talk.durationMs > Self.longTalkMs {
                problems.append(ScheduleProblem(location: entry.durationLocation,
                                                message: "\"\(talk.title)\" lasts \(talk.durationMs / 3_600_000) h"))
            }
            if let day = dayBounds[talk.day], let start = day.startMs, let end = day.endMs,
               talk.startMs < start || talk.startMs > end {
                problems.append(ScheduleProblem(location: entry.location,
                                                message: "\"\(talk.title)\" starts outside its day \(day.index) (\(day.date))"))
            }
        }
        let sorted = talks.map(\.talk).sorted { a, b in
            (a.startMs, a.room, a.guid) < (b.startMs, b.room, b.guid)
        }
        let schedule = ConferenceSchedule(version: version, timeZoneName: timeZoneName, rooms: rooms,
                                          days: days.sorted { $0.index < $1.index }, talks: sorted)
        return (schedule, problems)
    }

    private func roomsChecked(problems: inout [ScheduleProblem]) throws(ScheduleImportError) -> [ScheduleRoom] {
        var rooms = declaredRooms?.map(\.room) ?? []
        if let declaredRooms {
            let names = Set(declaredRooms.map(\.room.name))
            for entry in talks where !names.contains(entry.talk.room) {
                throw ScheduleImportError(reason: .unknownRoom, location: entry.roomLocation,
                                          message: "room \"\(entry.talk.room)\" of \"\(entry.talk.title)\" is not one of the file's rooms (\(Self.list(declaredRooms.map(\.room.name))))")
            }
            for room in listedRooms where !names.contains(room.name) {
                throw ScheduleImportError(reason: .unknownRoom, location: .file,
                                          message: "room \"\(room.name)\" is not one of the file's rooms (\(Self.list(declaredRooms.map(\.room.name))))")
            }
            var seenNames = Set<String>()
            for (room, location) in declaredRooms {
                if !seenNames.insert(room.name).inserted {
                    problems.append(ScheduleProblem(location: location, message: "room \"\(room.name)\" is declared twice"))
                }
            }
            rooms = rooms.reduce(into: []) { kept, room in
                if !kept.contains(where: { $0.name == room.name }) { kept.append(room) }
            }
        } else {
            rooms = listedRooms
        }
        var namesByGUID: [String: String] = [:]
        for room in rooms {
            guard let guid = room.guid else { continue }
            if let other = namesByGUID[guid], other != room.name {
                problems.append(ScheduleProblem(location: .file,
                                                message: "rooms \"\(other)\" and \"\(room.name)\" share the guid \(guid); Nearcast knows rooms by name"))
            } else {
                namesByGUID[guid] = room.name
            }
        }
        return rooms
    }

    private func checkOverlaps() throws(ScheduleImportError) {
        var byRoom: [String: [Talk]] = [:]
        for entry in talks { byRoom[entry.talk.room, default: []].append(entry) }
        var clash: (earlier: Talk, later: Talk)?
        for (_, entries) in byRoom {
            let ordered = entries.sorted { ($0.talk.startMs, $0.talk.endMs) < ($1.talk.startMs, $1.talk.endMs) }
            var running = ordered.first
            for entry in ordered.dropFirst() {
                guard let current = running else { break }
                if entry.talk.startMs < current.talk.endMs {
                    // The earliest clash of the file, whichever room, so the message does not depend on hashing.
                    if clash == nil || entry.talk.startMs < clash!.later.talk.startMs
                        || (entry.talk.startMs == clash!.later.talk.startMs && entry.talk.room < clash!.later.talk.room) {
                        clash = (current, entry)
                    }
                    break
                }
                if entry.talk.endMs > current.talk.endMs { running = entry }
            }
        }
        if let (earlier, later) = clash {
            throw ScheduleImportError(
                reason: .overlap, location: later.location,
                message: "two talks at once in room \"\(later.talk.room)\": \"\(later.talk.title)\" starts at "
                    + "\(ScheduleTime.clock(instantMs: later.talk.startMs, offsetSeconds: later.offsetSeconds)), before \"\(earlier.talk.title)\" (\(earlier.location)) ends at "
                    + "\(ScheduleTime.clock(instantMs: earlier.talk.endMs, offsetSeconds: earlier.offsetSeconds))")
        }
    }

    static func list(_ names: [String]) -> String {
        names.map { "\"\($0)\"" }.joined(separator: ", ")
    }
}
