/// The rooms' reach: what the listener pages' visits heard, counted per project, box, day, kind
/// of phone and way in (`ReachRow`), kept for `limits.reachDaysKept` days. `ReachStore` keeps the
/// rows in the database, `MemoryReachRepository` in memory.
package protocol ReachRepository: Sendable {
    /// Adds each row's counts to its row (made at zero when it has none; negative counts take an
    /// earlier report back), all in one transaction. A report's `box` (nil: none) must be one of
    /// the project's active beacons: else a 404 naming `beaconName`, and nothing is written.
    func add(project: String, box: String?, _ rows: [ReachRow]) async throws
    /// The project's rows of `fromDay` and after.
    func rows(project: String, fromDay: Int64) async throws -> [ReachRow]
    /// Deletes every project's rows of the days before `day`; how many rows went.
    func deleteDays(before day: Int64) async throws -> Int
}
