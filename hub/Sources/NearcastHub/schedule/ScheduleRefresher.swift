import Foundation
import Logging
import ServiceLifecycle

/// Keeps each schedule imported from an address in step with it: every half minute, the
/// schedules whose refresh is due (`ScheduleSubscription.isDue`) are fetched again and, when the
/// file changed, imported as `PUT /v1/schedule` would (talks matched by guid, a talk on stage
/// finishing first). A fetch or a file that fails leaves the schedule in force and records why,
/// which `GET /v1/schedule` and the operators' page show.
struct ScheduleRefresher: Sendable {
    static let checkEveryMilliseconds: Int64 = 30_000

    let schedules: any ScheduleRepository
    let fetcher: ScheduleFetcher
    let logger: Logger

    /// One look at every schedule with an address; what was refreshed (for tests).
    @discardableResult
    func tick(nowMs: Int64) async -> [String] {
        var refreshed: [String] = []
        guard let projects = try? await schedules.scheduledProjects() else { return [] }
        for project in projects {
            guard let subscription = try? await schedules.inForce(project: project).subscription,
                  subscription.isDue(atMs: nowMs) else { continue }
            do {
                _ = try await refresh(project: project, subscription, nowMs: nowMs)
                refreshed.append(project)
            } catch {
                logger.warning("schedule: \(project): refreshing from \(subscription.url) failed: \(error)")
            }
        }
        return refreshed
    }

    /// Fetches `subscription`'s address and imports what changed; nil when the file is unchanged.
    /// A failure is recorded on the schedule (unless `recordingFailure` is false: a first import
    /// that fails stores nothing) and thrown; the schedule in force stays.
    func refresh(project: String, _ subscription: ScheduleSubscription, nowMs: Int64,
                 recordingFailure: Bool = true) async throws -> ScheduleImportJSON? {
        var next = subscription
        next.lastCheckedMs = nowMs
        do {
            switch try await fetcher.fetch(subscription.url, etag: subscription.etag, lastModified: subscription.lastModified) {
            case .notModified:
                next.lastError = nil
                try await record(next, project: project)
                return nil
            case .file(let data, let format, let etag, let lastModified):
                (next.etag, next.lastModified, next.lastError) = (etag, lastModified, nil)
                let answer = try await HubSchedules.importSchedule(data, formatName: format?.rawValue, timeZone: subscription.timeZone,
                                                                   source: subscription.url, project: project, into: schedules,
                                                                   nowMs: nowMs, subscription: next)
                logger.info("schedule: \(project) refreshed from \(subscription.url): \(answer.changes)")
                return answer
            }
        } catch {
            next.lastError = (error as? APIError)?.message ?? String(describing: error)
            if recordingFailure { try? await record(next, project: project) }
            throw error
        }
    }

    private func record(_ subscription: ScheduleSubscription, project: String) async throws {
        try await schedules.replace(project: project) { inForce in
            var kept = inForce
            kept.subscription = subscription
            return (kept, ())
        }
    }
}

/// Runs `ScheduleRefresher` every half minute while the hub serves.
struct ScheduleRefreshService: Service {
    let refresher: ScheduleRefresher
    let clock: HubClock

    func run() async throws {
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            await refresher.tick(nowMs: clock.nowMs())
            // The wait ends at a graceful stop, which must not wait out the half minute.
            try? await cancelWhenGracefulShutdown {
                try await Task.sleep(for: .milliseconds(ScheduleRefresher.checkEveryMilliseconds))
            }
        }
    }
}
