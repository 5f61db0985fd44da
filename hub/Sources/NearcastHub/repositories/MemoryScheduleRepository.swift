import NIOConcurrencyHelpers

/// `ScheduleRepository` in memory, with the database's rules (`ScheduleInForce.replaced`).
struct MemoryScheduleRepository: ScheduleRepository {
    private struct Project {
        var inForce = ScheduleInForce.none
        var roomBoxes: [String: String] = [:]
        var talkDecks: [String: String] = [:]
    }

    private let projects = NIOLockedValueBox([String: Project]())

    func inForce(project: String) async throws -> ScheduleInForce {
        projects.withLockedValue { $0[project]?.inForce ?? .none }
    }

    func replace<Answer: Sendable>(project: String,
                                   _ body: @escaping @Sendable (ScheduleInForce) -> (ScheduleInForce, Answer)) async throws -> Answer {
        projects.withLockedValue { table in
            let (next, answer) = body(table[project]?.inForce ?? .none)
            table[project, default: Project()].inForce = next
            return answer
        }
    }

    func scheduledProjects() async throws -> [String] {
        projects.withLockedValue { $0.filter { $0.value.inForce.importedMs != nil }.keys.sorted() }
    }

    func talkDecks(project: String) async throws -> [String: String] {
        projects.withLockedValue { $0[project]?.talkDecks ?? [:] }
    }

    func setTalkDeck(project: String, guid: String, deckID: String) async throws {
        projects.withLockedValue { $0[project, default: Project()].talkDecks[guid] = deckID }
    }

    func roomBoxes(project: String) async throws -> [String: String] {
        projects.withLockedValue { $0[project]?.roomBoxes ?? [:] }
    }

    func setRoomBox(project: String, room: String, beaconName: String?) async throws {
        projects.withLockedValue { $0[project, default: Project()].roomBoxes[room] = beaconName }
    }
}
