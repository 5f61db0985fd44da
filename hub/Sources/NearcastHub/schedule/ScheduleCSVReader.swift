import Foundation

/// Reads a venue's own timetable as CSV into a `ScheduleDraft`, naming every fault by its line.
///
/// ```csv
/// day,room,start,duration,title,speakers
/// 2026-11-28,Hall A,10:00,45,Opening,"Doe, Jane; Roe, Rick"
/// 2026-11-28,Hall B,23:30,1:30,After Dark,
/// ```
///
/// - The header names the columns, in any order and any case: `day`, `room`, `start`, `duration`,
///   `title` are required; `speakers`, `id` and `guid` are optional; others are ignored (a problem
///   says so). Records follow RFC 4180 (`ScheduleCSVRecords`).
/// - `day` is the programme day, `YYYY-MM-DD`.
/// - `start` is the local wall time in the import's zone, `H:MM`, `HH:MM` or `HH:MM:SS`. The day
///   runs 04:00 to 03:59 as pretalx's does: `00:00`-`03:59` is after midnight of that day (the next
///   calendar date), and so is `24:00`-`27:59` (the GTFS way of writing it).
/// - `duration` is minutes (`45`) or `H:MM` (`1:30`), never three parts.
/// - `speakers` are names separated by `;`.
/// - A talk's guid is the `guid` column; else a version-5 UUID of its `id`; else of its slot (day,
///   room, start), so that without an `id` a moved talk reads as one removed and one added.
/// - The zone is an IANA name (`Europe/Berlin`), required: the file has no offsets. A wall time a
///   DST change skips is refused; one it repeats is taken the first time, with a problem.
enum ScheduleCSVReader {
    static let requiredColumns = ["day", "room", "start", "duration", "title"]
    static let optionalColumns = ["speakers", "id", "guid"]
    /// The hour the programme day starts at, as pretalx's `DAY_START_HOUR`.
    static let dayStartHour = 4

    static func read(_ data: Data, zoneName: String?) throws(ScheduleImportError) -> ScheduleDraft {
        let parsed = try ScheduleCSVRecords(Array(data))
        guard let header = parsed.records.first else {
            throw ScheduleImportError(reason: .unreadable, location: .file, message: "the CSV is empty")
        }
        var draft = ScheduleDraft()
        let columns = header.fields.map { $0.trimmingCharacters(in: .whitespacesAndNewlines).lowercased() }
        var position: [String: Int] = [:]
        for (index, name) in columns.enumerated() where position[name] == nil { position[name] = index }
        for name in requiredColumns where position[name] == nil {
            throw ScheduleImportError(reason: .missingField, location: .line(header.line),
                                      message: "the header has no \"\(name)\" column (it needs \(requiredColumns.joined(separator: ", ")); speakers, id and guid are optional)")
        }
        let unknown = columns.filter { !requiredColumns.contains($0) && !optionalColumns.contains($0) && !$0.isEmpty }
        if !unknown.isEmpty {
            draft.problems.append(ScheduleProblem(location: .line(header.line),
                                                  message: "column(s) \(ScheduleDraft.list(unknown)) are not read"))
        }
        guard let zoneName, !zoneName.isEmpty else {
            throw ScheduleImportError(reason: .timeZone, location: .file,
                                      message: "a CSV has local times: name their zone (--time-zone Europe/Berlin)")
        }
        guard let zone = TimeZone(identifier: zoneName) else {
            throw ScheduleImportError(reason: .timeZone, location: .file, message: "\"\(zoneName)\" is not an IANA time zone name (Europe/Berlin)")
        }
        draft.timeZoneName = zoneName

        var rows: [(record: ScheduleCSVRecords.Record, day: String)] = []
        for record in parsed.records.dropFirst() {
            guard record.fields.count == columns.count else {
                throw ScheduleImportError(reason: .unreadable, location: .line(record.line),
                                          message: "\(record.fields.count) field(s) where the header has \(columns.count) (a comma inside a field needs quotes)")
            }
            let day = record.fields[position["day"]!].trimmingCharacters(in: .whitespaces)
            guard ScheduleTime.daysSinceEpoch(date: day) != nil else {
                throw ScheduleImportError(reason: .badTime, location: .line(record.line), message: "day \"\(day)\" is not a date (YYYY-MM-DD)")
            }
            rows.append((record, day))
        }
        let dates = Set(rows.map(\.day)).sorted()
        draft.days = dates.enumerated().map { ScheduleDay(index: $0.offset + 1, date: $0.element, startMs: nil, endMs: nil) }
        let dayIndex = Dictionary(uniqueKeysWithValues: dates.enumerated().map { ($0.element, $0.offset + 1) })
        for (record, day) in rows {
            func field(_ name: String) -> String {
                position[name].map { record.fields[$0].trimmingCharacters(in: .whitespacesAndNewlines) } ?? ""
            }
            func required(_ name: String) throws(ScheduleImportError) -> String {
                let value = field(name)
                guard !value.isEmpty else {
                    throw ScheduleImportError(reason: .missingField, location: .line(record.line), message: "no \(name)")
                }
                return value
            }
            let room = try required("room")
            let title = try required("title")
            let start = try required("start")
            guard let wallSeconds = wallSeconds(day: day, start: start) else {
                throw ScheduleImportError(reason: .badTime, location: .line(record.line),
                                          message: "start \"\(start)\" is not a time from 00:00 to 27:59 (HH:MM; 00:00-03:59 and 24:00-27:59 are after midnight)")
            }
            let startMs: Int64
            switch ScheduleTime.instant(wallSeconds: wallSeconds, in: zone) {
            case .unique(let ms):
                startMs = ms
            case .ambiguous(let ms):
                startMs = ms
                draft.problems.append(ScheduleProblem(location: .line(record.line),
                                                      message: "start \(start) happens twice in \(zoneName) (a DST change); the first is taken"))
            case .nonexistent:
                throw ScheduleImportError(reason: .badTime, location: .line(record.line),
                                          message: "start \(start) on \(day) does not exist in \(zoneName) (a DST change skips it)")
            }
            let durationText = try required("duration")
            guard let minutes = durationMinutes(durationText) else {
                throw ScheduleImportError(reason: .badDuration, location: .line(record.line),
                                          message: "duration \"\(durationText)\" is not minutes (45) or H:MM (1:30)")
            }
            let persons = field("speakers").split(separator: ";").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }.filter { !$0.isEmpty }
            let guid: String
            if !field("guid").isEmpty {
                guid = field("guid")
            } else if !field("id").isEmpty {
                guid = ScheduleGUID.make(name: "id:" + field("id"))
            } else {
                guid = ScheduleGUID.make(name: "slot:\(day)|\(room)|\(ScheduleTime.clock(wallSeconds: wallSeconds))")
            }
            draft.meet(room: ScheduleRoom(name: room, guid: nil))
            draft.talks.append(ScheduleDraft.Talk(
                talk: ScheduledTalk(guid: guid, title: title, persons: persons, room: room,
                                    startMs: startMs, endMs: startMs + minutes * 60_000, day: dayIndex[day]!),
                location: .line(record.line), roomLocation: .line(record.line), durationLocation: .line(record.line),
                offsetSeconds: ScheduleTime.offset(of: zone, atMs: startMs)))
        }
        return draft
    }

    /// The wall time (seconds, as if UTC) of `start` on programme day `day`, or nil when `start` is
    /// not a time from 00:00 to 27:59.
    static func wallSeconds(day: String, start: String) -> Int64? {
        guard let days = ScheduleTime.daysSinceEpoch(date: day), let fields = ScheduleTime.colonFields(start),
              fields[0] < 24 + dayStartHour, fields[1] < 60, fields.count == 2 || fields[2] < 60,
              start.split(separator: ":")[1].count == 2 else { return nil }
        var hour = fields[0]
        if hour < dayStartHour { hour += 24 }
        return Int64(days) * 86_400 + Int64(hour * 3600 + fields[1] * 60 + (fields.count == 3 ? fields[2] : 0))
    }

    /// Minutes of `45` or `1:30`; nil for anything else or for no time at all (zero is refused later
    /// as a talk that ends at its start, so it is let through here).
    static func durationMinutes(_ text: String) -> Int64? {
        if text.utf8.allSatisfy(ScheduleTime.isDigit), text.utf8.count <= 6, let minutes = Int64(text) { return minutes }
        guard let fields = ScheduleTime.colonFields(text), fields.count == 2, fields[1] < 60,
              text.split(separator: ":")[1].count == 2 else { return nil }
        return Int64(fields[0] * 60 + fields[1])
    }
}
