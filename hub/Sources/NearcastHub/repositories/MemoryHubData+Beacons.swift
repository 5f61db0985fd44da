import NearcastCore

/// Beacons and their attachments in memory: one project never sees another's beacons, a deleted
/// beacon takes its attachments and stays as a tombstone, attachments list in the order added.
extension MemoryHubData {
    func register(_ record: Beacon) throws -> Beacon {
        guard activeBeacon(record.project, record.beaconName) == nil else {
            throw APIError(.conflict, "\(record.beaconName) is already registered in this project", field: "advertisedId")
        }
        // A deleted beacon's tombstone is replaced: the beacon is registered afresh.
        var stored = record
        stored.active = true
        beacons[record.project, default: [:]][record.beaconName] = stored
        changed(record.project, record.beaconName)
        return try beacon(project: record.project, beaconName: record.beaconName)
    }

    func beacons(project: String) -> [Beacon] {
        (beacons[project] ?? [:]).values.filter(\.active)
            .sorted { ($0.createdMs, $0.beaconName) < ($1.createdMs, $1.beaconName) }
    }

    func beacon(project: String, beaconName: String) throws(APIError) -> Beacon {
        guard let record = activeBeacon(project, beaconName) else { throw APIError.notFound(beaconName) }
        return record
    }

    /// A report's box (none: nil) must be one of the project's active beacons: else the 404
    /// naming `beaconName` (`ReportFields.unknownBeacon`).
    func requireActiveBeacon(_ project: String, _ beaconName: String?) throws(APIError) {
        if let beaconName, activeBeacon(project, beaconName) == nil { throw ReportFields.unknownBeacon(beaconName) }
    }

    func activeBeacon(_ project: String, _ beaconName: String) -> Beacon? {
        beacons[project]?[beaconName].flatMap { $0.active ? $0 : nil }
    }

    func deleteBeacon(project: String, beaconName: String) throws {
        _ = try beacon(project: project, beaconName: beaconName)
        beacons[project]?[beaconName]?.active = false
        beacons[project]?[beaconName]?.eidRegistration?.identityKeyHex = nil
        attachments[ChangedBeacons.key(project, beaconName)] = nil
        changed(project, beaconName)
    }

    func recordHeartbeat(project: String, beaconName: String, heartbeatJSON: String, clockValue: UInt32?, boxName: String?,
                         atMs: Int64) throws {
        var record = try beacon(project: project, beaconName: beaconName)
        record.lastHeartbeat = Beacon.LastHeartbeat(json: heartbeatJSON, atMs: atMs)
        // A re-anchored clock or the venue's new name for the box: the resolvers read it again.
        var renumber = false
        if let clockValue, record.kind == .eid {
            record.eidRegistration?.clock = Beacon.ClockReading(value: Int64(clockValue), atMs: atMs)
            renumber = true
        }
        if let boxName, !boxName.isEmpty, record.description != boxName {
            record.description = boxName
            renumber = true
        }
        beacons[project]?[beaconName] = record
        if renumber { renumbered(project, beaconName) }
    }

    // MARK: Attachments

    func addAttachment(project: String, beaconName: String, namespacedType: String, data: String) throws -> Attachment {
        _ = try beacon(project: project, beaconName: beaconName)
        var generator = SystemRandomNumberGenerator()
        let record = Attachment(
            beaconName: beaconName, attachmentID: Hex.format(UInt64.random(in: 0...UInt64.max, using: &generator), byteCount: 8),
            namespacedType: namespacedType, data: data, createdMs: clock.nowMs())
        attachments[ChangedBeacons.key(project, beaconName), default: []].append(record)
        changed(project, beaconName)
        return record
    }

    func attachments(project: String, beaconName: String, filter: NamespacedTypeFilter) throws -> [Attachment] {
        _ = try beacon(project: project, beaconName: beaconName)
        return (attachments[ChangedBeacons.key(project, beaconName)] ?? []).filter { filter.matches($0.namespacedType) }
    }

    func deleteAttachments(project: String, beaconName: String, attachmentID: String?, filter: NamespacedTypeFilter) throws -> Int {
        _ = try beacon(project: project, beaconName: beaconName)
        let key = ChangedBeacons.key(project, beaconName)
        let before = attachments[key] ?? []
        let kept = before.filter { record in !(attachmentID.map { $0 == record.attachmentID } ?? filter.matches(record.namespacedType)) }
        if let attachmentID, kept.count == before.count {
            throw APIError.notFound("\(beaconName)/attachments/\(attachmentID)")
        }
        attachments[key] = kept
        if kept.count != before.count { changed(project, beaconName) }
        return before.count - kept.count
    }

    // MARK: Changes (`BeaconChanges`)

    func beaconsChanged(after seq: Int64) -> ChangedBeacons {
        let changed = beacons.values.flatMap(\.values).filter { $0.changeSeq > seq }.sorted { $0.changeSeq < $1.changeSeq }
        var found = ChangedBeacons(beacons: changed, attachments: [:])
        for record in changed where record.active {
            let key = ChangedBeacons.key(record.project, record.beaconName)
            found.attachments[key] = attachments[key]
        }
        return found
    }


    /// The beacon or its attachments changed: a new change number, and its watchers are told.
    private func changed(_ project: String, _ beaconName: String) {
        renumbered(project, beaconName)
        feed.publish(BeaconRef(project: project, beaconName: beaconName))
    }

    /// The beacon takes the next change number, and the resolvers' views will read it again.
    private func renumbered(_ project: String, _ beaconName: String) {
        lastChangeSeq += 1
        beacons[project]?[beaconName]?.changeSeq = lastChangeSeq
        changes.bump()
    }
}
