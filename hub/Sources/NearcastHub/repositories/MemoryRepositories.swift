/// Projects in memory (`MemoryHubData`).
struct MemoryProjectRepository: ProjectRepository {
    let data: MemoryHubData
    func create(name: String) async throws -> CreatedProject { try await data.create(name: name) }
    func access(forHash hash: String) async throws -> Access? { await data.access(forHash: hash) }
}

/// Beacons in memory (`MemoryHubData`).
struct MemoryBeaconRepository: BeaconRepository {
    let data: MemoryHubData
    func register(_ record: Beacon) async throws -> Beacon { try await data.register(record) }
    func list(project: String) async throws -> [Beacon] { await data.beacons(project: project) }
    func get(_ beacon: BeaconRef) async throws -> Beacon {
        let (project, beaconName) = (beacon.project, beacon.beaconName)
        return try await data.beacon(project: project, beaconName: beaconName)
    }
    func delete(_ beacon: BeaconRef) async throws { try await data.deleteBeacon(project: beacon.project, beaconName: beacon.beaconName) }
    func recordHeartbeat(_ beacon: BeaconRef, heartbeatJSON: String, clockValue: UInt32?, boxName: String?,
                         atMs: Int64) async throws {
        let (project, beaconName) = (beacon.project, beacon.beaconName)
        try await data.recordHeartbeat(project: project, beaconName: beaconName, heartbeatJSON: heartbeatJSON,
                                       clockValue: clockValue, boxName: boxName, atMs: atMs)
    }
}

/// Attachments in memory (`MemoryHubData`).
struct MemoryAttachmentRepository: AttachmentRepository {
    let data: MemoryHubData
    func add(_ beacon: BeaconRef, namespacedType: String, data text: String) async throws -> Attachment {
        let (project, beaconName) = (beacon.project, beacon.beaconName)
        return try await data.addAttachment(project: project, beaconName: beaconName, namespacedType: namespacedType, data: text)
    }
    func list(_ beacon: BeaconRef, filter: NamespacedTypeFilter) async throws -> [Attachment] {
        let (project, beaconName) = (beacon.project, beacon.beaconName)
        return try await data.attachments(project: project, beaconName: beaconName, filter: filter)
    }
    func delete(_ beacon: BeaconRef, attachmentID: String?, filter: NamespacedTypeFilter) async throws -> Int {
        let (project, beaconName) = (beacon.project, beacon.beaconName)
        return try await data.deleteAttachments(project: project, beaconName: beaconName, attachmentID: attachmentID, filter: filter)
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

/// The resolvers' view of the beacons in memory (`MemoryHubData`'s change numbers and signal).
extension MemoryBeaconRepository: BeaconChanges {
    var signal: ChangeSignal { data.changes }
    func changed(after seq: Int64) async throws -> ChangedBeacons { await data.beaconsChanged(after: seq) }
}
