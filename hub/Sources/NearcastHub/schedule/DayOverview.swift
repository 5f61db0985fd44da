/// One programme day at a glance (`GET /v1/day`): each room's talks of the day and its box as the
/// hub knows it now, from what it already keeps: the box's last heartbeat (the database), the last
/// time a phone resolved it (`HeardBoxes`, this instance's memory) and its show's followers
/// (`ShowRepository.followers`, every instance).
struct DayOverview: Sendable {
    let schedules: any ScheduleRepository
    let beacons: any BeaconRepository
    let shows: any ShowRepository
    let heardBoxes: HeardBoxes
    let rooms: RoomDirectory

    /// `index`: the 1-based day asked for, or nil for the day on now (`ScheduleDayChoice`).
    func day(project: String, index: Int?, nowMs: Int64) async throws -> DayJSON {
        let inForce = try await schedules.inForce(project: project)
        let choice = ScheduleDayChoice(schedule: inForce.schedule, nowMs: nowMs, index: index)
        let directory = try await rooms.rooms(project: project, nowMs: nowMs)
        let registered = Dictionary(try await beacons.list(project: project).filter(\.active).map { ($0.beaconName, $0) },
                                    uniquingKeysWith: { first, _ in first })
        // The file's own problems first: what the conference tool's export should mend.
        var problems = inForce.fileProblems.map { "schedule file: " + $0 } + directory.problems
        var rooms: [DayJSON.Room] = []
        for room in directory.rooms {
            var box: BoxStatusJSON?
            if let name = room.beaconName, let beacon = registered[name] {
                let status = try await self.status(of: beacon, nowMs: nowMs)
                if !status.online {
                    let since = status.lastSeenTime.map { "since \($0)" } ?? "yet"
                    problems.append("room \(room.name): its box \(status.name) has not sent a heartbeat \(since)")
                }
                box = status
            }
            rooms.append(DayJSON.Room(name: room.name, beaconName: room.beaconName, boxBy: room.boxBy, box: box,
                                      talks: choice.talks(inRoom: room.name).map { TalkJSON($0) }, now: room.now, next: room.next))
        }
        let days = inForce.schedule.days.map { DayJSON.Day(index: $0.index, date: $0.date) }
        return DayJSON(day: choice.day.map { DayJSON.Day(index: $0.index, date: $0.date) }, days: days,
                       timeZone: inForce.schedule.timeZoneName, rooms: rooms, problems: problems)
    }

    private func status(of beacon: Beacon, nowMs: Int64) async throws -> BoxStatusJSON {
        let ref = BeaconRef(project: beacon.project, beaconName: beacon.beaconName)
        let seenMs = beacon.lastHeartbeat?.atMs, heardMs = heardBoxes.lastHeardMs(ref)
        let name = Show.box(beaconName: beacon.beaconName, description: beacon.description, heartbeatMs: seenMs,
                            createdMs: beacon.createdMs).name
        return BoxStatusJSON(name: name, online: seenMs.map { nowMs - $0 < BoxReach.silentAfterMs } ?? false,
                             lastSeenTime: seenMs.map(HubClock.timestamp(ms:)),
                             heardLately: heardMs.map { nowMs - $0 < BoxReach.unheardAfterMs } ?? false,
                             lastHeardTime: heardMs.map(HubClock.timestamp(ms:)),
                             followers: try await shows.followers(ref))
    }
}
