import Logging
import ServiceLifecycle

/// Deletes the rooms' reach of the days past `limits.reachDaysKept`, at start and every hour
/// while the hub serves: a project no phone reports to any more loses its old days too. Every
/// instance runs it; a deletion another did first deletes nothing.
struct ReachSweepService: Service {
    static let everyMilliseconds: Int64 = 3_600_000

    let reach: any ReachRepository
    let daysKept: Int
    let clock: HubClock
    let logger: Logger

    /// The first day kept at `nowMs`: today and the `daysKept - 1` days before it.
    static func firstDayKept(nowMs: Int64, daysKept: Int) -> Int64 { ReachDay.day(ms: nowMs) - Int64(daysKept) + 1 }

    func run() async throws {
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            do {
                let deleted = try await reach.deleteDays(before: Self.firstDayKept(nowMs: clock.nowMs(), daysKept: daysKept))
                if deleted > 0 { logger.info("nearcast-hub: deleted \(deleted) rows of the rooms' reach older than \(daysKept) days") }
            } catch {
                // Tried again in an hour; the reads never show a day past the kept ones anyway.
                logger.warning("nearcast-hub: the rooms' old reach could not be deleted: \(error)")
            }
            try? await cancelWhenGracefulShutdown { try await Task.sleep(for: .milliseconds(Self.everyMilliseconds)) }
        }
    }
}
