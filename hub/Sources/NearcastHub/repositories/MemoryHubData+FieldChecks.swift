import NearcastCore

/// Field checks in memory: newest first, the oldest past the project's cap dropped, a result's
/// box one of the project's active beacons.
extension MemoryHubData {
    func addFieldCheck(project: String, _ check: FieldCheckRequest, keptPerProject: Int) throws -> FieldCheckJSON {
        try requireActiveBeacon(project, check.beaconName)
        var generator = SystemRandomNumberGenerator()
        let stored = FieldCheckJSON(id: Hex.format(UInt64.random(in: 0...UInt64.max, using: &generator), byteCount: 8),
                                    createTime: HubClock.timestamp(ms: clock.nowMs()), beaconName: check.beaconName,
                                    platform: check.platform, browser: check.browser, sampleRate: check.sampleRateHz,
                                    tones: check.tones, bands: check.bands, verdict: check.verdict)
        fieldChecks[project, default: []].append(stored)
        if let count = fieldChecks[project]?.count, count > keptPerProject {
            fieldChecks[project]?.removeFirst(count - keptPerProject)
        }
        return stored
    }

    func fieldChecks(project: String, beaconName: String?) -> [FieldCheckJSON] {
        let all = (fieldChecks[project] ?? []).reversed().filter { check in beaconName.map { check.beaconName == $0 } ?? true }
        return Array(all.prefix(FieldCheckJSON.maximumListed))
    }
}
