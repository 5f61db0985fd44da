import Foundation

/// How the JSON and the XML reader turn an event's `date`, `start`, `duration` and `end` into
/// instants, the same for both (the two formats carry the same fields):
///
/// - the start is `date` with its own offset (both tools write the offset in force at that instant,
///   so a DST change inside a conference needs nothing more); a `date` without an offset is read in
///   `time_zone_name`'s zone, else in the zone the import was given, else it is refused;
/// - the end is `end` when given (pretalx JSON since 2026.2), else the start plus `duration`
///   (`ScheduleDuration`; a three-part one read as days when the file's generator is pretalx);
/// - `start` (`HH:MM`) only cross-checks `date`: a disagreement is a problem, `date` wins;
/// - an offset that disagrees with `time_zone_name`'s zone at that instant is a problem, said once
///   for the file (pretalx's DemoCon export says `UTC` and writes `+01:00`).
struct FrabEventClock {
    /// `time_zone_name`, as written.
    let zoneName: String?
    /// Its zone, when Foundation knows the name.
    let zone: TimeZone?
    /// The zone to read offset-less dates in.
    let localZone: TimeZone?
    /// The file's generator is pretalx: a three-part duration is `D:HH:MM`.
    let pretalx: Bool

    private var zoneMismatches = 0
    private var firstZoneMismatch: ScheduleLocation?
    private var guessedDurations = 0
    private var firstGuessedDuration: ScheduleLocation?

    /// - Parameters:
    ///   - zoneName: the file's `time_zone_name`, if any.
    ///   - fallbackZone: the zone the import was told (`--time-zone`), for dates with no offset in a
    ///     file with no `time_zone_name`.
    init(zoneName: String?, fallbackZone: TimeZone?, generator: String?, problems: inout [ScheduleProblem],
         zoneLocation: ScheduleLocation) {
        self.zoneName = zoneName
        zone = zoneName.flatMap(TimeZone.init(identifier:))
        localZone = zone ?? fallbackZone
        pretalx = generator?.lowercased().hasPrefix("pretalx") ?? false
        if let zoneName, zone == nil {
            problems.append(ScheduleProblem(location: zoneLocation,
                                            message: "time zone \"\(zoneName)\" is not an IANA zone name; times are read from each date's offset"))
        }
    }

    /// The start instant (ms) and the offset it was written in.
    mutating func start(date: String, at location: ScheduleLocation, clock: String?, clockLocation: ScheduleLocation,
                        problems: inout [ScheduleProblem]) throws(ScheduleImportError) -> (ms: Int64, offset: Int) {
        let (ms, offset, stamp) = try instant(date, at: location, field: "date", problems: &problems)
        if let clock, !clock.isEmpty, clock != stamp.clock, clock != stamp.clock + ":00" {
            problems.append(ScheduleProblem(location: clockLocation,
                                            message: "start \(clock) disagrees with date \(date); the date is taken"))
        }
        return (ms, offset)
    }

    /// The end instant (ms): `end` if given, else start + `duration`.
    mutating func end(startMs: Int64, end: String?, endLocation: ScheduleLocation, duration: String?,
                      durationLocation: ScheduleLocation, problems: inout [ScheduleProblem]) throws(ScheduleImportError) -> Int64 {
        var durationMs: Int64?
        if let duration {
            if let (seconds, reading) = ScheduleDuration.seconds(duration, threePartsAreDays: pretalx) {
                durationMs = seconds * 1000
                if reading == .hoursMinutesSeconds {
                    guessedDurations += 1
                    if firstGuessedDuration == nil { firstGuessedDuration = durationLocation }
                }
            } else if end == nil {
                throw ScheduleImportError(reason: .badDuration, location: durationLocation,
                                          message: "duration \"\(duration)\" is not H:MM (or D:HH:MM from pretalx, H:MM:SS from others)")
            }
        }
        if let end {
            let (endMs, _, _) = try instant(end, at: endLocation, field: "end", problems: &problems)
            if let durationMs, startMs + durationMs != endMs {
                problems.append(ScheduleProblem(location: durationLocation,
                                                message: "duration \(duration ?? "") disagrees with end \(end); the end is taken"))
            }
            return endMs
        }
        guard let durationMs else {
            throw ScheduleImportError(reason: .missingField, location: durationLocation, message: "the talk has no duration (nor end)")
        }
        return startMs + durationMs
    }

    /// A day's bound (`day_start`, `day_end`), or nil with a problem when unreadable: days only
    /// serve a check, so a bad one refuses nothing.
    mutating func dayBound(_ text: String?, at location: ScheduleLocation, problems: inout [ScheduleProblem]) -> Int64? {
        guard let text else { return nil }
        do {
            return try instant(text, at: location, field: "day bound", problems: &problems).ms
        } catch {
            problems.append(ScheduleProblem(location: location, message: "day bound \"\(text)\" is not a date-time with an offset; not checked"))
            return nil
        }
    }

    /// The problems said once for the whole file.
    func finish(problems: inout [ScheduleProblem]) {
        if let firstZoneMismatch, let zoneName {
            problems.append(ScheduleProblem(location: firstZoneMismatch,
                                            message: "time_zone_name \"\(zoneName)\" disagrees with the offsets of \(zoneMismatches) date(s); each date's own offset is taken"))
        }
        if let firstGuessedDuration {
            problems.append(ScheduleProblem(location: firstGuessedDuration,
                                            message: "\(guessedDurations) duration(s) of three parts read as H:MM:SS (pretalx would mean D:HH:MM)"))
        }
    }

    private mutating func instant(_ text: String, at location: ScheduleLocation, field: String,
                                  problems: inout [ScheduleProblem]) throws(ScheduleImportError) -> (ms: Int64, offset: Int, stamp: ScheduleTime.Stamp) {
        guard let stamp = ScheduleTime.stamp(text) else {
            throw ScheduleImportError(reason: .badTime, location: location,
                                      message: "\(field) \"\(text)\" is not an ISO 8601 date-time (2026-11-28T14:00:00+01:00)")
        }
        if let ms = stamp.instantMs, let offset = stamp.offsetSeconds {
            if let zone, ScheduleTime.offset(of: zone, atMs: ms) != offset {
                zoneMismatches += 1
                if firstZoneMismatch == nil { firstZoneMismatch = location }
            }
            return (ms, offset, stamp)
        }
        guard let localZone else {
            throw ScheduleImportError(reason: .timeZone, location: location,
                                      message: "\(field) \"\(text)\" has no offset and the file no time_zone_name: give the zone it is in")
        }
        switch ScheduleTime.instant(wallSeconds: stamp.wallSeconds, in: localZone) {
        case .unique(let ms):
            return (ms, ScheduleTime.offset(of: localZone, atMs: ms), stamp)
        case .ambiguous(let ms):
            problems.append(ScheduleProblem(location: location,
                                            message: "\(field) \"\(text)\" happens twice in \(localZone.identifier) (a DST change); the first is taken"))
            return (ms, ScheduleTime.offset(of: localZone, atMs: ms), stamp)
        case .nonexistent:
            throw ScheduleImportError(reason: .badTime, location: location,
                                      message: "\(field) \"\(text)\" does not exist in \(localZone.identifier) (a DST change skips it)")
        }
    }
}
