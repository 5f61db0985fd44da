/// The rooms' reach in memory: a row's counts by project and key, added to as the database's
/// rows are.
extension MemoryHubData {
    func addReach(project: String, box: String?, _ rows: [ReachRow]) throws(APIError) {
        try requireActiveBeacon(project, box)
        for row in rows { reach[project, default: [:]][row.key] = (reach[project]?[row.key] ?? ReachCounts()) + row.counts }
    }

    func reachRows(project: String, fromDay: Int64) -> [ReachRow] {
        (reach[project] ?? [:]).filter { $0.key.day >= fromDay }.map { ReachRow(key: $0.key, counts: $0.value) }
    }

    func deleteReachDays(before day: Int64) -> Int {
        var deleted = 0
        for project in reach.keys {
            let old = reach[project]?.keys.filter { $0.day < day } ?? []
            for key in old { reach[project]?[key] = nil }
            deleted += old.count
        }
        return deleted
    }
}

/// The rooms' reach in memory (`MemoryHubData`).
struct MemoryReachRepository: ReachRepository {
    let data: MemoryHubData

    func add(project: String, box: String?, _ rows: [ReachRow]) async throws { try await data.addReach(project: project, box: box, rows) }
    func rows(project: String, fromDay: Int64) async throws -> [ReachRow] { await data.reachRows(project: project, fromDay: fromDay) }
    func deleteDays(before day: Int64) async throws -> Int { await data.deleteReachDays(before: day) }
}
