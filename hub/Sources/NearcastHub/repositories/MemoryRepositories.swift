import NearcastCore

/// The hub's projects, beacons, attachments and field checks in memory: what the router tests
/// run the API over (`HubServices.make(database:memory:)`), with the database stores' rules
/// (one project never sees another's beacons, a deleted beacon takes its attachments, a
/// beacon's attachments in the order added, field checks newest first and capped).
actor MemoryHubData {
    struct Project: Sendable {
        var name: String
        var apiKeyHash: String
        var secretKeyHash: String
    }

    private(set) var projects: [String: Project] = [:]
    /// Active beacons by project, then name.
    private var beacons: [String: [String: BeaconRecord]] = [:]
    /// Attachments by project and beacon name, in the order added.
    private var attachments: [String: [AttachmentStore.Record]] = [:]
    /// Field checks by project, newest last.
    private var fieldChecks: [String: [FieldCheckJSON]] = [:]
    let clock: HubClock
    /// Told of every change to a beacon's attachments, as the database's notifier tells it.
    let feed: ChangeFeed

    init(clock: HubClock, feed: ChangeFeed) {
        self.clock = clock
        self.feed = feed
    }

    // MARK: Projects

    func create(name: String) throws -> CreatedProject {
        let created = try ProjectStore.newKeys(for: name)
        guard projects[name] == nil else { throw APIError(.conflict, "project \(name) already exists", field: "project") }
        projects[name] = Project(name: name, apiKeyHash: ProjectStore.hash(created.apiKey),
                                 secretKeyHash: ProjectStore.hash(created.secretKey))
        return created
    }

    func access(forHash hash: String) -> ProjectStore.Access? {
        for project in projects.values {
            if project.secretKeyHash == hash { return .manage(project: project.name) }
            if project.apiKeyHash == hash { return .read(project: project.name) }
        }
        return nil
    }

    // MARK: Beacons

    func register(_ record: BeaconRecord) throws -> BeaconRecord {
        guard beacons[record.project]?[record.beaconName] == nil else {
            throw APIError(.conflict, "\(record.beaconName) is already registered in this project", field: "advertisedId")
        }
        beacons[record.project, default: [:]][record.beaconName] = record
        changed(project: record.project, beaconName: record.beaconName)
        return record
    }

    func beacons(project: String) -> [BeaconRecord] {
        (beacons[project] ?? [:]).values.sorted { ($0.createdMs, $0.beaconName) < ($1.createdMs, $1.beaconName) }
    }

    func beacon(project: String, beaconName: String) throws(APIError) -> BeaconRecord {
        guard let record = beacons[project]?[beaconName] else { throw APIError.notFound(beaconName) }
        return record
    }

    func deleteBeacon(project: String, beaconName: String) throws {
        _ = try beacon(project: project, beaconName: beaconName)
        beacons[project]?[beaconName] = nil
        attachments[Self.key(project, beaconName)] = nil
        changed(project: project, beaconName: beaconName)
    }

    func recordHeartbeat(project: String, beaconName: String, heartbeatJSON: String, clockValue: UInt32?, boxName: String?,
                         atMs: Int64) throws {
        var record = try beacon(project: project, beaconName: beaconName)
        record.heartbeat = heartbeatJSON
        record.heartbeatMs = atMs
        if let clockValue, record.kind == .eid {
            record.clockValue = Int64(clockValue)
            record.clockAtMs = atMs
        }
        if let boxName, !boxName.isEmpty { record.description = boxName }
        beacons[project]?[beaconName] = record
    }

    // MARK: Attachments

    func addAttachment(project: String, beaconName: String, namespacedType: String, data: String) throws -> AttachmentStore.Record {
        _ = try beacon(project: project, beaconName: beaconName)
        var generator = SystemRandomNumberGenerator()
        let record = AttachmentStore.Record(
            beaconName: beaconName, attachmentID: Hex.format(UInt64.random(in: 0...UInt64.max, using: &generator), byteCount: 8),
            namespacedType: namespacedType, data: data, createdMs: clock.nowMs())
        attachments[Self.key(project, beaconName), default: []].append(record)
        changed(project: project, beaconName: beaconName)
        return record
    }

    func attachments(project: String, beaconName: String, filter: NamespacedTypeFilter) throws -> [AttachmentStore.Record] {
        _ = try beacon(project: project, beaconName: beaconName)
        return (attachments[Self.key(project, beaconName)] ?? []).filter { filter.matches($0.namespacedType) }
    }

    func deleteAttachments(project: String, beaconName: String, attachmentID: String?, filter: NamespacedTypeFilter) throws -> Int {
        _ = try beacon(project: project, beaconName: beaconName)
        let key = Self.key(project, beaconName)
        let before = attachments[key] ?? []
        let kept = before.filter { record in !(attachmentID.map { $0 == record.attachmentID } ?? filter.matches(record.namespacedType)) }
        if let attachmentID, kept.count == before.count {
            throw APIError.notFound("\(beaconName)/attachments/\(attachmentID)")
        }
        attachments[key] = kept
        if kept.count != before.count { changed(project: project, beaconName: beaconName) }
        return before.count - kept.count
    }

    // MARK: Field checks

    func addFieldCheck(project: String, _ check: FieldCheckRequest, keptPerProject: Int) throws -> FieldCheckJSON {
        if let beaconName = check.beaconName, beacons[project]?[beaconName] == nil {
            throw APIError(.notFound, "beaconName: \(beaconName) is not a beacon of this project", field: "beaconName")
        }
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
        return Array(all.prefix(FieldCheckStore.maximumListed))
    }

    private func changed(project: String, beaconName: String) {
        feed.publish(project: project, beaconName: beaconName)
    }

    private static func key(_ project: String, _ beaconName: String) -> String { project + "\n" + beaconName }
}

/// Projects in memory (`MemoryHubData`).
struct MemoryProjectRepository: ProjectRepository {
    let data: MemoryHubData
    func create(name: String) async throws -> CreatedProject { try await data.create(name: name) }
    func access(forHash hash: String) async throws -> ProjectStore.Access? { await data.access(forHash: hash) }
}

/// Beacons in memory (`MemoryHubData`).
struct MemoryBeaconRepository: BeaconRepository {
    let data: MemoryHubData
    func register(_ record: BeaconRecord) async throws -> BeaconRecord { try await data.register(record) }
    func list(project: String) async throws -> [BeaconRecord] { await data.beacons(project: project) }
    func get(project: String, beaconName: String) async throws -> BeaconRecord {
        try await data.beacon(project: project, beaconName: beaconName)
    }
    func delete(project: String, beaconName: String) async throws { try await data.deleteBeacon(project: project, beaconName: beaconName) }
    func recordHeartbeat(project: String, beaconName: String, heartbeatJSON: String, clockValue: UInt32?, boxName: String?,
                         atMs: Int64) async throws {
        try await data.recordHeartbeat(project: project, beaconName: beaconName, heartbeatJSON: heartbeatJSON,
                                       clockValue: clockValue, boxName: boxName, atMs: atMs)
    }
}

/// Attachments in memory (`MemoryHubData`).
struct MemoryAttachmentRepository: AttachmentRepository {
    let data: MemoryHubData
    func add(project: String, beaconName: String, namespacedType: String, data text: String) async throws -> AttachmentStore.Record {
        try await data.addAttachment(project: project, beaconName: beaconName, namespacedType: namespacedType, data: text)
    }
    func list(project: String, beaconName: String, filter: NamespacedTypeFilter) async throws -> [AttachmentStore.Record] {
        try await data.attachments(project: project, beaconName: beaconName, filter: filter)
    }
    func delete(project: String, beaconName: String, attachmentID: String?, filter: NamespacedTypeFilter) async throws -> Int {
        try await data.deleteAttachments(project: project, beaconName: beaconName, attachmentID: attachmentID, filter: filter)
    }
}

/// Field checks in memory (`MemoryHubData`), at most `keptPerProject` a project.
struct MemoryFieldCheckRepository: FieldCheckRepository {
    let data: MemoryHubData
    let keptPerProject: Int
    func add(project: String, _ check: FieldCheckRequest) async throws -> FieldCheckJSON {
        try await data.addFieldCheck(project: project, check, keptPerProject: keptPerProject)
    }
    func list(project: String, beaconName: String?) async throws -> [FieldCheckJSON] {
        await data.fieldChecks(project: project, beaconName: beaconName)
    }
}
