/// A schedule imported from its conference tool's address and kept in step with it: the hub
/// fetches it again every `everyMinutes` (`ScheduleRefresher`), asking only for a changed file
/// (`If-None-Match`, `If-Modified-Since`), and imports it as `PUT /v1/schedule` would. A fetch
/// or a file that fails leaves the schedule in force as it was, and says why (`lastError`).
package struct ScheduleSubscription: Sendable, Hashable, Codable {
    var url: String
    /// 0: imported once, not refreshed.
    var everyMinutes: Int
    /// A CSV's zone, or an export's without offsets.
    var timeZone: String?
    /// What the server said of the file last fetched, to ask only for a changed one.
    var etag: String?
    var lastModified: String?
    var lastCheckedMs: Int64?
    var lastError: String?

    /// The most often a schedule is fetched again, and the least.
    static let minutes = 1...1_440

    func isDue(atMs nowMs: Int64) -> Bool {
        guard everyMinutes > 0 else { return false }
        return nowMs - (lastCheckedMs ?? 0) >= Int64(everyMinutes) * 60_000
    }
}
