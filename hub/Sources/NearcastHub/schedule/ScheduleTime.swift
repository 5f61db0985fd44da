import Foundation

/// The date and time arithmetic of schedule files, on plain integers: ISO 8601 date-times with or
/// without an offset, `YYYY-MM-DD` dates, civil days to epoch seconds, and a local wall time in an
/// IANA zone to an instant (the only part that asks Foundation, for the zone's rules).
enum ScheduleTime {
    /// A date-time as written: its wall-clock time (seconds since 1970-01-01T00:00 of the same
    /// calendar, as if it were UTC) and its offset from UTC in seconds, if it had one.
    struct Stamp: Sendable, Hashable {
        var wallSeconds: Int64
        var offsetSeconds: Int?

        /// The instant in milliseconds, when the stamp carries its offset.
        var instantMs: Int64? {
            offsetSeconds.map { (wallSeconds - Int64($0)) * 1000 }
        }
        /// `HH:MM` of the wall clock.
        var clock: String { ScheduleTime.clock(wallSeconds: wallSeconds) }
    }

    /// Reads `2020-12-14T09:00:00+01:00`, `2020-12-14T09:00+01:00`, `…Z`, `…+0100`, fractions of a
    /// second, a space for the `T`, and no offset at all; nil for anything else.
    static func stamp(_ text: String) -> Stamp? {
        let bytes = Array(text.utf8)
        guard bytes.count >= 16, let days = daysSinceEpoch(bytes[0..<10]) else { return nil }
        guard bytes[10] == UInt8(ascii: "T") || bytes[10] == UInt8(ascii: " ") else { return nil }
        var index = 11
        guard let hour = digits(bytes, &index, 2), colon(bytes, &index), let minute = digits(bytes, &index, 2),
              hour < 24, minute < 60 else { return nil }
        var second = 0
        if index < bytes.count, bytes[index] == UInt8(ascii: ":") {
            index += 1
            guard let value = digits(bytes, &index, 2), value < 60 else { return nil }
            second = value
            if index < bytes.count, bytes[index] == UInt8(ascii: ".") || bytes[index] == UInt8(ascii: ",") {
                index += 1
                let start = index
                while index < bytes.count, isDigit(bytes[index]) { index += 1 }
                guard index > start else { return nil }
            }
        }
        let wall = Int64(days) * 86_400 + Int64(hour * 3600 + minute * 60 + second)
        if index == bytes.count { return Stamp(wallSeconds: wall, offsetSeconds: nil) }
        if bytes[index] == UInt8(ascii: "Z"), index + 1 == bytes.count { return Stamp(wallSeconds: wall, offsetSeconds: 0) }
        let sign: Int
        switch bytes[index] {
        case UInt8(ascii: "+"): sign = 1
        case UInt8(ascii: "-"): sign = -1
        default: return nil
        }
        index += 1
        guard let offsetHours = digits(bytes, &index, 2) else { return nil }
        if index < bytes.count, bytes[index] == UInt8(ascii: ":") { index += 1 }
        guard let offsetMinutes = digits(bytes, &index, 2), index == bytes.count,
              offsetHours < 24, offsetMinutes < 60 else { return nil }
        return Stamp(wallSeconds: wall, offsetSeconds: sign * (offsetHours * 3600 + offsetMinutes * 60))
    }

    /// Days since 1970-01-01 of a `YYYY-MM-DD` date, nil unless it is one (months and days checked,
    /// leap years included).
    static func daysSinceEpoch(date text: String) -> Int? {
        let bytes = Array(text.utf8)
        return daysSinceEpoch(bytes[...])
    }

    private static func daysSinceEpoch(_ slice: ArraySlice<UInt8>) -> Int? {
        let bytes = Array(slice)
        var index = 0
        guard bytes.count == 10, let year = digits(bytes, &index, 4), bytes[4] == UInt8(ascii: "-") else { return nil }
        index = 5
        guard let month = digits(bytes, &index, 2), bytes[7] == UInt8(ascii: "-") else { return nil }
        index = 8
        guard let day = digits(bytes, &index, 2), (1...12).contains(month),
              (1...daysInMonth(year: year, month: month)).contains(day) else { return nil }
        return daysFromCivil(year: year, month: month, day: day)
    }

    /// Howard Hinnant's `days_from_civil`: days since 1970-01-01 of a proleptic Gregorian date.
    static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    static func daysInMonth(year: Int, month: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// `HH:MM` of a wall-clock time.
    static func clock(wallSeconds: Int64) -> String {
        let secondsOfDay = Int(((wallSeconds % 86_400) + 86_400) % 86_400)
        let hours = secondsOfDay / 3600, minutes = secondsOfDay / 60 % 60
        return (hours < 10 ? "0" : "") + "\(hours):" + (minutes < 10 ? "0" : "") + "\(minutes)"
    }

    /// `HH:MM` (UTC) of an instant, for messages that have no zone to speak in.
    static func clock(instantMs: Int64, offsetSeconds: Int = 0) -> String {
        clock(wallSeconds: instantMs / 1000 + Int64(offsetSeconds))
    }

    // MARK: Zones

    /// A local wall time in a zone, as an instant.
    enum LocalInstant: Sendable, Hashable {
        case unique(Int64)
        /// The wall time happens twice (the hour a DST change repeats): its earlier instant.
        case ambiguous(earlierMs: Int64)
        /// The wall time never happens (the hour a DST change skips).
        case nonexistent
    }

    /// The instant of `wallSeconds` in `zone`: the offsets in force a day before and a day after are
    /// each tried, so a DST change in between gives an ambiguous or a nonexistent time.
    static func instant(wallSeconds: Int64, in zone: TimeZone) -> LocalInstant {
        func offset(_ utcSeconds: Int64) -> Int {
            zone.secondsFromGMT(for: Date(timeIntervalSince1970: TimeInterval(utcSeconds)))
        }
        var found: [Int64] = []
        for candidate in [offset(wallSeconds - 86_400), offset(wallSeconds + 86_400)] {
            let utc = wallSeconds - Int64(candidate)
            if offset(utc) == candidate, !found.contains(utc) { found.append(utc) }
        }
        switch found.count {
        case 0: return .nonexistent
        case 1: return .unique(found[0] * 1000)
        default: return .ambiguous(earlierMs: found.min()! * 1000)
        }
    }

    /// The zone's offset from UTC at an instant, in seconds.
    static func offset(of zone: TimeZone, atMs instantMs: Int64) -> Int {
        zone.secondsFromGMT(for: Date(timeIntervalSince1970: TimeInterval(instantMs) / 1000))
    }

    // MARK: Small readers

    static func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

    /// Reads exactly `count` digits at `index`, moving past them.
    static func digits(_ bytes: [UInt8], _ index: inout Int, _ count: Int) -> Int? {
        guard index + count <= bytes.count else { return nil }
        var value = 0
        for byte in bytes[index..<index + count] {
            guard isDigit(byte) else { return nil }
            value = value * 10 + Int(byte - UInt8(ascii: "0"))
        }
        index += count
        return value
    }

    private static func colon(_ bytes: [UInt8], _ index: inout Int) -> Bool {
        guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { return false }
        index += 1
        return true
    }

    /// The parts of `A:B` or `A:B:C`, each one or more digits (at most 6, so nothing overflows), or nil.
    static func colonFields(_ text: String) -> [Int]? {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard (2...3).contains(parts.count) else { return nil }
        var values: [Int] = []
        for part in parts {
            guard (1...6).contains(part.utf8.count), part.utf8.allSatisfy(isDigit), let value = Int(part) else { return nil }
            values.append(value)
        }
        return values
    }
}
