/// Every room of a project's schedule with its box, its talk now and its next, and what the
/// operator should put right: `GET /v1/rooms`.
///
/// A room's box is the one given by hand (`PUT /v1/rooms/NAME`), else the active beacon whose
/// box name (its description, as `--name` or the console set it) is the room's name.
struct RoomDirectory: Sendable {
    let schedules: any ScheduleRepository
    let beacons: any BeaconRepository
    let uploads: TalkUploads

    /// Each room's box (by hand, else by name; nil without one), in the schedule's order, with
    /// the schedule in force.
    func boxes(project: String) async throws -> (inForce: ScheduleInForce, boxes: [(room: String, beaconName: String?)]) {
        let answer = try await rooms(project: project, nowMs: 0)
        return (try await schedules.inForce(project: project), answer.rooms.map { ($0.name, $0.beaconName) })
    }

    /// The room whose box `beacon` is, with its talk now and next; nil when it is in none.
    func room(of beacon: BeaconRef, nowMs: Int64) async throws -> ShowRoomJSON? {
        guard !(try await schedules.inForce(project: beacon.project).schedule.rooms.isEmpty) else { return nil }
        return try await rooms(project: beacon.project, nowMs: nowMs).rooms.first { $0.beaconName == beacon.beaconName }
            .map { ShowRoomJSON(name: $0.name, now: $0.now.map(Self.public), next: $0.next.map(Self.public)) }
    }

    /// A talk as a phone may see it: no upload address.
    private static func `public`(_ talk: TalkJSON) -> TalkJSON {
        var talk = talk
        talk.uploadPath = nil
        return talk
    }

    /// Every talk in order with its room, deck and upload address (`GET /v1/talks`).
    func talks(project: String) async throws -> TalksJSON {
        let inForce = try await schedules.inForce(project: project)
        let decks = try await schedules.talkDecks(project: project)
        let talks = inForce.schedule.talks.map { talk in
            TalksJSON.Talk(room: talk.room, talk: TalkJSON(talk, deck: decks[talk.guid],
                                                            uploadPath: uploads.path(project: project, guid: talk.guid)))
        }
        return TalksJSON(talks: talks, withoutDeck: talks.filter { $0.talk.deck == nil }.count)
    }

    func rooms(project: String, nowMs: Int64) async throws -> RoomsJSON {
        let inForce = try await schedules.inForce(project: project)
        let byHand = try await schedules.roomBoxes(project: project)
        let active = try await beacons.list(project: project).filter(\.active)
        var byName: [String: [String]] = [:]
        for beacon in active {
            let name = Show.box(beaconName: beacon.beaconName, description: beacon.description, heartbeatMs: nil,
                                createdMs: beacon.createdMs).name
            byName[name, default: []].append(beacon.beaconName)
        }
        let timelines = inForce.timelines
        let decks = try await schedules.talkDecks(project: project)
        func json(_ talk: ScheduledTalk) -> TalkJSON {
            TalkJSON(talk, deck: decks[talk.guid], uploadPath: uploads.path(project: project, guid: talk.guid))
        }
        var rooms: [RoomsJSON.Room] = [], problems: [String] = [], placed = Set<String>()
        for room in inForce.schedule.rooms {
            let moment = timelines[room.name]?.moment(atMs: nowMs)
            var entry = RoomsJSON.Room(name: room.name, beaconName: nil, boxBy: nil, now: moment?.now.map(json),
                                       next: moment?.next.map(json))
            if let hand = byHand[room.name] {
                (entry.beaconName, entry.boxBy) = (hand, "hand")
                if !active.contains(where: { $0.beaconName == hand }) {
                    problems.append("room \(room.name): its box \(hand) is no longer registered")
                }
            } else if let named = byName[room.name] {
                (entry.beaconName, entry.boxBy) = (named.sorted()[0], "name")
                if named.count > 1 {
                    problems.append("room \(room.name): \(named.count) boxes are named \(room.name) (\(named.sorted().joined(separator: ", "))); give it one by hand")
                }
            } else {
                problems.append("room \(room.name) has no box: name a box \(room.name), or give it one (PUT /v1/rooms/NAME)")
            }
            if let beacon = entry.beaconName { placed.insert(beacon) }
            rooms.append(entry)
        }
        if !inForce.schedule.rooms.isEmpty {
            for beacon in active where beacon.kind == .eid && !placed.contains(beacon.beaconName) {
                let name = Show.box(beaconName: beacon.beaconName, description: beacon.description, heartbeatMs: nil,
                                    createdMs: beacon.createdMs).name
                problems.append("box \(name) (\(beacon.beaconName)) is in no room of the schedule")
            }
        }
        return RoomsJSON(rooms: rooms, problems: problems)
    }
}
