import Foundation
import Hummingbird
import Logging
import NIOCore

/// A venue's day: the schedule imported as the conference tool exports it (`PUT /v1/schedule`),
/// read back counted (`GET /v1/schedule`), and the rooms with their boxes and talks
/// (`GET /v1/rooms`, `PUT /v1/rooms/NAME`), and every talk with its deck and upload address
/// (`GET /v1/talks`). All need the project's secret key.
struct ScheduleController: Sendable {
    let schedules: any ScheduleRepository
    let beacons: any BeaconRepository
    let rooms: RoomDirectory
    let clock: HubClock
    let logger: Logger
    let keys: KeyChecker

    var endpoints: RouteCollection<HubRequestContext> {
        let routes = RouteCollection(context: HubRequestContext.self)
        let managers = keys.group(routes, .manage)
        managers.put("/v1/schedule") { request, context in
            let project = try context.caller().project
            let format = try Self.format(request)
            let timeZone = request.uri.queryParameters["timeZone"].map(String.init)
            let body: ByteBuffer
            do {
                body = try await request.body.collect(upTo: ScheduleImport.maximumBytes)
            } catch is NIOTooManyBytesError {
                throw APIError(.contentTooLarge, "a schedule may be at most \(ScheduleImport.maximumBytes >> 20) MiB", field: "(body)")
            }
            let source = request.uri.queryParameters["source"].map(String.init) ?? "PUT /v1/schedule"
            let answer = try await HubSchedules.importSchedule(Data(body.readableBytesView), formatName: format?.rawValue, timeZone: timeZone,
                                                       source: source, project: project, into: schedules, nowMs: clock.nowMs())
            logger.info("schedule: \(project) imported \(answer.talks) talks in \(answer.rooms) rooms from \(source)")
            return answer
        }
        managers.put("/v1/schedule/source") { request, context in
            let project = try context.caller().project
            let body = try await request.decode(as: ScheduleSourceUpdate.self, context: context)
            let answer = try await HubSchedules.importURL(body.url, everyMinutes: body.everyMinutes ?? 15, timeZone: body.timeZone,
                                                          project: project, into: schedules, nowMs: clock.nowMs())
            logger.info("schedule: \(project) imported \(answer.talks) talks from \(body.url), every \(body.everyMinutes ?? 15) min")
            return answer
        }
        managers.delete("/v1/schedule/source") { _, context in
            let project = try context.caller().project
            try await schedules.replace(project: project) { inForce in
                var kept = inForce
                kept.subscription = nil
                return (kept, ())
            }
            return try await HubSchedules.summary(project: project, schedules: schedules)
        }
        managers.get("/v1/schedule") { _, context in
            try await HubSchedules.summary(project: try context.caller().project, schedules: schedules)
        }
        managers.get("/v1/rooms") { _, context in
            let project = try context.caller().project
            return try await rooms.rooms(project: project, nowMs: clock.nowMs())
        }
        managers.get("/v1/talks") { _, context in
            try await rooms.talks(project: try context.caller().project)
        }
        managers.put("/v1/rooms/:room") { request, context in
            let project = try context.caller().project
            guard let room = context.parameters.get("room")?.removingPercentEncoding, !room.isEmpty else {
                throw APIError.invalid("room", "name a room, its name percent-encoded in the path")
            }
            let body = try await request.decode(as: RoomBoxUpdate.self, context: context)
            let inForce = try await schedules.inForce(project: project)
            guard inForce.schedule.rooms.contains(where: { $0.name == room }) else {
                throw APIError(.notFound, "the schedule in force has no room \(room) (its rooms: \(inForce.schedule.rooms.map(\.name).joined(separator: ", ")))",
                               field: "room")
            }
            if let beaconName = body.beaconName {
                guard try await beacons.list(project: project).contains(where: { $0.beaconName == beaconName && $0.active }) else {
                    throw APIError.invalid("beaconName", "\(beaconName) is not a beacon of project \(project)")
                }
            }
            try await schedules.setRoomBox(project: project, room: room, beaconName: body.beaconName)
            logger.info("schedule: \(project) room \(room) box \(body.beaconName ?? "by name")")
            return try await rooms.rooms(project: project, nowMs: clock.nowMs())
        }
        return routes
    }

    /// The format a Content-Type names; nil (detect it from the content) for none or a generic one.
    static func format(_ request: Request) throws(APIError) -> ScheduleImport.Format? {
        guard let type = request.headers[.contentType]?.lowercased() else { return nil }
        let media = type.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
        switch media {
        case "application/json": return .json
        case "application/xml", "text/xml": return .xml
        case "text/csv": return .csv
        case "", "application/octet-stream", "text/plain": return nil
        default:
            throw APIError(.unsupportedMediaType, "send the schedule as application/json, application/xml or text/csv (pretalx's or frab's export, or a CSV), not \(media)",
                           field: "Content-Type")
        }
    }
}
