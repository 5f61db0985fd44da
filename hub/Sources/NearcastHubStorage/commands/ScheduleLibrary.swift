import Foundation
import NearcastHub

/// A project's schedule for the command line (`nearcast-hub schedule ...`): the same reading,
/// checks and storage as `PUT /v1/schedule` and `GET /v1/rooms`, against the database directly.
public struct ScheduleLibrary: Sendable {
    let store: ScheduleStore
    let beacons: BeaconStore
    let projects: ProjectStore
    /// For the talks' upload addresses, which its key signs.
    let backend: SQLBackend

    public init(database: HubDatabase) {
        store = ScheduleStore(database: database, clock: .system)
        // No instance hears of a beacon change from here: this only reads beacons.
        let quiet = ChangeNotifier(channel: ChangeNotifier.attachmentsChannel, isPostgres: database.isPostgres) { _ in }
        beacons = BeaconStore(database: database, notifier: quiet)
        projects = ProjectStore(database: database)
        backend = SQLBackend(database: database)
    }

    /// Imports a file (pretalx's or frab's schedule.json or schedule.xml, or a CSV) as the
    /// project's schedule in force; returns the answer as JSON text. A refusal throws an
    /// `APIError` naming the line or field, and the schedule in force stays as it was.
    public func importFile(_ path: String, project: String, timeZone: String?) async throws -> String {
        try await requireProject(project)
        guard let data = FileManager.default.contents(atPath: path) else {
            throw APIError(.badRequest, "\(path): cannot read the file")
        }
        // The file's extension names its format (.json, .xml, .csv); any other, the content does.
        let format = URL(fileURLWithPath: path).pathExtension.lowercased()
        let answer = try await HubSchedules.importSchedule(data, formatName: ["json", "xml", "csv"].contains(format) ? format : nil,
                                                           timeZone: timeZone,
                                                           source: path, project: project, into: store, nowMs: HubClock.system.nowMs())
        return try HubSchedules.text(answer)
    }

    /// Fetches the schedule at `url` and imports it; with `everyMinutes` over 0, the hub keeps it in
    /// step while it serves. Returns the answer as JSON text.
    public func importURL(_ url: String, everyMinutes: Int, project: String, timeZone: String?) async throws -> String {
        try await requireProject(project)
        return try HubSchedules.text(try await HubSchedules.importURL(url, everyMinutes: everyMinutes, timeZone: timeZone, project: project,
                                                                      into: store, nowMs: HubClock.system.nowMs()))
    }

    /// The schedule in force, counted, as JSON text.
    public func summaryJSON(project: String) async throws -> String {
        try await requireProject(project)
        return try HubSchedules.text(try await HubSchedules.summary(project: project, schedules: store))
    }

    /// Every room with its box, its talk now and next, and the problems, as JSON text.
    public func roomsJSON(project: String) async throws -> String {
        try await requireProject(project)
        return try HubSchedules.text(try await HubSchedules.rooms(project: project, schedules: store, beacons: beacons,
                                                                  serviceKey: try await backend.loadServiceKey(),
                                                                  nowMs: HubClock.system.nowMs()))
    }

    /// Every talk with its room, its deck (null until its speaker sends one) and its upload
    /// address, as JSON text.
    public func talksJSON(project: String) async throws -> String {
        try await requireProject(project)
        return try HubSchedules.text(try await HubSchedules.talks(project: project, schedules: store, beacons: beacons,
                                                                  serviceKey: try await backend.loadServiceKey()))
    }

    private func requireProject(_ project: String) async throws {
        guard try await projects.names().contains(project) else {
            throw APIError(.notFound, "project \(project) not found (nearcast-hub project list shows the projects)")
        }
    }
}
