import Foundation

/// The hub's wall clock, in one place: milliseconds and seconds since 1970, and Google's
/// timestamp text.
enum HubClock {
    static func nowMs() -> Int64 { Int64((Date().timeIntervalSince1970 * 1000).rounded()) }

    /// RFC 3339 in UTC with milliseconds, as Google's Timestamp fields were written.
    static func timestamp(ms: Int64) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: Date(timeIntervalSince1970: Double(ms) / 1000))
    }
}
