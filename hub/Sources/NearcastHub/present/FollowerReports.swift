/// What this instance last wrote to `show_followers`, per show.
actor FollowerReports {
    private var reported: [BeaconRef: Int] = [:]
    private var lastFullReportMs: Int64 = 0

    func lastReported(_ key: BeaconRef) -> Int { reported[key] ?? 0 }

    /// The counts to write now: those that changed, and all of them every `refreshMs` (so the
    /// rows stay fresh while nothing changes). Shows whose followers all left are written as 0.
    func due(_ counts: [BeaconRef: Int], nowMs: Int64, refreshMs: Int64) -> [BeaconRef: Int] {
        var current = counts
        for key in reported.keys where current[key] == nil { current[key] = 0 }
        let full = nowMs - lastFullReportMs >= refreshMs
        if full { lastFullReportMs = nowMs }
        let due = current.filter { full || reported[$0.key] != $0.value }
        for (key, count) in due { reported[key] = count == 0 ? nil : count }
        return due
    }
}
