import Foundation
import Logging

/// What `PUT /v1/schedule`, `GET /v1/schedule` and `GET /v1/rooms` do, for the routes and for the
/// command line (`nearcast-hub schedule`), which works on the database directly.
package enum HubSchedules {
    /// Reads `data` and makes it the schedule in force, or refuses it as a whole (a 400 naming the
    /// line or field) and leaves the schedule in force as it was.
    /// `formatName`: json, xml or csv, or nil to tell from the content.
    /// `subscription`: the address the file came from, kept (nil for a file sent by hand, which
    /// ends any refreshing).
    package static func importSchedule(_ data: Data, formatName: String?, timeZone: String?, source: String,
                                       project: String, into schedules: any ScheduleRepository,
                                       nowMs: Int64, subscription: ScheduleSubscription? = nil) async throws -> ScheduleImportJSON {
        let result: ScheduleImport.Result
        do {
            result = try ScheduleImport.read(data, options: .init(timeZone: timeZone, format: formatName.flatMap(ScheduleImport.Format.init)))
        } catch {
            throw APIError(.badRequest, "the schedule is refused, nothing of it taken: \(error.description)",
                           field: error.location.description)
        }
        let change = try await schedules.replace(project: project) {
            $0.replaced(by: result.schedule, source: source, nowMs: nowMs, subscription: subscription,
                        fileProblems: result.summary.problems)
        }
        let summary = result.summary
        return ScheduleImportJSON(rooms: summary.rooms, talks: summary.talks, days: summary.days, problems: summary.problems,
                                  changes: ScheduleChangeCounts(change),
                                  finishingFirst: change.finishingFirst(atMs: nowMs).map { "\($0.title) (\($0.room))" })
    }

    /// Fetches a schedule from `url` and imports it, kept in step every `everyMinutes` (0: once).
    /// A 502 when the address cannot be fetched; a 400 (as a file's) when what it sent is refused.
    package static func importURL(_ url: String, everyMinutes: Int, timeZone: String?, project: String,
                                  into schedules: any ScheduleRepository, nowMs: Int64) async throws -> ScheduleImportJSON {
        guard everyMinutes == 0 || ScheduleSubscription.minutes.contains(everyMinutes) else {
            throw APIError.invalid("everyMinutes", "\(everyMinutes) is not 0 (import once) or 1-1440 minutes")
        }
        do {
            _ = try ScheduleFetcher.checked(url)
        } catch {
            throw APIError.invalid("url", error.description)
        }
        let subscription = ScheduleSubscription(url: url, everyMinutes: everyMinutes, timeZone: timeZone)
        let refresher = ScheduleRefresher(schedules: schedules, fetcher: ScheduleFetcher(), logger: Logger(label: "nearcast-hub"))
        do {
            guard let answer = try await refresher.refresh(project: project, subscription, nowMs: nowMs, recordingFailure: false) else {
                throw APIError(.badGateway, "\(url) answered 304 Not Modified to a first fetch")
            }
            return answer
        } catch let failure as ScheduleFetcher.Failure {
            throw APIError(.badGateway, failure.description, field: "url")
        }
    }

    /// The schedule in force, counted.
    package static func summary(project: String, schedules: any ScheduleRepository) async throws -> ScheduleSummaryJSON {
        let inForce = try await schedules.inForce(project: project)
        return ScheduleSummaryJSON(rooms: inForce.schedule.rooms.count, talks: inForce.schedule.talks.count,
                                   days: inForce.schedule.dayCount, importedAt: inForce.importedMs.map(HubClock.timestamp(ms:)),
                                   source: inForce.source, lastChange: inForce.lastChange,
                                   refresh: inForce.subscription.map(ScheduleSummaryJSON.Refresh.init))
    }

    /// Every room with its box, its talk now and next, and the problems (`RoomDirectory`).
    package static func rooms(project: String, schedules: any ScheduleRepository, beacons: any BeaconRepository,
                              serviceKey: ServiceKey, nowMs: Int64) async throws -> RoomsJSON {
        try await RoomDirectory(schedules: schedules, beacons: beacons, uploads: TalkUploads(serviceKey: serviceKey))
            .rooms(project: project, nowMs: nowMs)
    }

    /// Every talk with its room, deck and upload address.
    package static func talks(project: String, schedules: any ScheduleRepository, beacons: any BeaconRepository,
                              serviceKey: ServiceKey) async throws -> TalksJSON {
        try await RoomDirectory(schedules: schedules, beacons: beacons, uploads: TalkUploads(serviceKey: serviceKey)).talks(project: project)
    }

    /// An answer as the command line prints it: JSON, keys sorted.
    package static func text(_ value: some Encodable) throws -> String {
        String(decoding: try JSONText.encode(value), as: UTF8.self)
    }
}
