import Foundation

/// The hub's wall clock: milliseconds since 1970. It is passed in (`HubServices.clock`, the
/// stores' `clock`) rather than read from `Date()` where it is used, so a test can set the time
/// (a reaction's EID judged against a beacon's rotation, a pass that expires).
public struct HubClock: Sendable {
    private let read: @Sendable () -> Int64

    /// A clock reading `read` (milliseconds since 1970).
    public init(_ read: @escaping @Sendable () -> Int64) { self.read = read }

    /// The host's clock.
    public static let system = HubClock { Int64((Date().timeIntervalSince1970 * 1000).rounded()) }

    public func nowMs() -> Int64 { read() }

    /// RFC 3339 in UTC with milliseconds, as Google's Timestamp fields were written.
    package static func timestamp(ms: Int64) -> String { RFC3339.format(ms: ms) }

    /// A time a client sent: Google's Timestamp (RFC 3339: `2014-10-02T15:01:23.045123456Z`, any
    /// number of fraction digits, `Z` or an offset), or milliseconds since 1970 as a number in
    /// text (what Nearcast's own clients send). Nil for anything else.
    static func parseMs(_ text: String) -> Int64? {
        if let ms = Int64(text) { return ms }
        if let double = Double(text), double.isFinite, abs(double) < 1e15 { return Int64(double.rounded()) }
        return RFC3339.parseMs(text)
    }
}

/// RFC 3339 date-times (`YYYY-MM-DDTHH:MM:SS[.fraction](Z|+HH:MM|-HH:MM)`) to milliseconds since
/// 1970. Written out rather than through ISO8601DateFormatter, which takes at most three fraction
/// digits and Google's timestamps carry up to nine.
enum RFC3339 {
    static func parseMs(_ text: String) -> Int64? {
        let c = Array(text.utf8)
        func number(_ range: Range<Int>) -> Int? {
            guard range.upperBound <= c.count else { return nil }
            var value = 0
            for i in range {
                guard (48...57).contains(c[i]) else { return nil }
                value = value * 10 + Int(c[i] - 48)
            }
            return value
        }
        guard c.count >= 20, c[4] == UInt8(ascii: "-"), c[7] == UInt8(ascii: "-"),
              c[10] == UInt8(ascii: "T") || c[10] == UInt8(ascii: "t") || c[10] == UInt8(ascii: " "),
              c[13] == UInt8(ascii: ":"), c[16] == UInt8(ascii: ":"),
              let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
              let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19),
              (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second <= 60
        else { return nil }
        var index = 19
        var fractionMs = 0
        if index < c.count, c[index] == UInt8(ascii: ".") {
            index += 1
            var digits = 0
            while index < c.count, (48...57).contains(c[index]) {
                if digits < 3 { fractionMs = fractionMs * 10 + Int(c[index] - 48) }
                digits += 1
                index += 1
            }
            guard digits > 0 else { return nil }
            if digits < 3 { for _ in digits..<3 { fractionMs *= 10 } }
        }
        guard index < c.count else { return nil }
        var offsetMinutes = 0
        switch c[index] {
        case UInt8(ascii: "Z"), UInt8(ascii: "z"):
            index += 1
        case UInt8(ascii: "+"), UInt8(ascii: "-"):
            guard index + 6 == c.count, c[index + 3] == UInt8(ascii: ":"),
                  let hours = number(index + 1..<index + 3), let minutes = number(index + 4..<index + 6),
                  hours < 24, minutes < 60 else { return nil }
            offsetMinutes = (hours * 60 + minutes) * (c[index] == UInt8(ascii: "+") ? 1 : -1)
            index += 6
        default:
            return nil
        }
        guard index == c.count else { return nil }
        // Days from 1970-01-01 in the proleptic Gregorian calendar (Howard Hinnant's days_from_civil).
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        let days = Int64(era * 146_097 + dayOfEra - 719_468)
        let seconds = days * 86_400 + Int64(hour * 3600 + minute * 60 + min(second, 59)) - Int64(offsetMinutes * 60)
        return seconds * 1000 + Int64(fractionMs)
    }

    /// `YYYY-MM-DDTHH:MM:SS.mmmZ` for milliseconds since 1970 (years 0-9999). Arithmetic, not a
    /// date formatter: every attachment in every answer carries one, and making an
    /// ISO8601DateFormatter (ICU underneath) per call cost more than the rest of a resolve.
    static func format(ms: Int64) -> String {
        let days = ms >= 0 ? ms / 86_400_000 : (ms - 86_399_999) / 86_400_000
        let msOfDay = Int(ms - days * 86_400_000)
        // Howard Hinnant's civil_from_days.
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shiftedMonth = (5 * dayOfYear + 2) / 153
        let day = Int(dayOfYear - (153 * shiftedMonth + 2) / 5 + 1)
        let month = Int(shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9)
        let year = Int(yearOfEra + era * 400) + (month <= 2 ? 1 : 0)
        var out = [UInt8]()
        out.reserveCapacity(24)
        func digits(_ value: Int, _ count: Int) {
            var divisor = 1
            for _ in 1..<count { divisor *= 10 }
            var rest = max(0, value)
            while divisor > 0 {
                out.append(UInt8(ascii: "0") + UInt8(rest / divisor % 10))
                rest %= divisor
                divisor /= 10
            }
        }
        digits(year, 4); out.append(UInt8(ascii: "-")); digits(month, 2); out.append(UInt8(ascii: "-")); digits(day, 2)
        out.append(UInt8(ascii: "T"))
        digits(msOfDay / 3_600_000, 2); out.append(UInt8(ascii: ":")); digits(msOfDay / 60_000 % 60, 2)
        out.append(UInt8(ascii: ":")); digits(msOfDay / 1000 % 60, 2); out.append(UInt8(ascii: "."))
        digits(msOfDay % 1000, 3); out.append(UInt8(ascii: "Z"))
        return String(decoding: out, as: UTF8.self)
    }
}
