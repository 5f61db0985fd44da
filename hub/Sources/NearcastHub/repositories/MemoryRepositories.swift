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
    func get(project: String, beaconName: String) async throws -> Beacon {
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
    func add(project: String, beaconName: String, namespacedType: String, data text: String) async throws -> Attachment {
        try await data.addAttachment(project: project, beaconName: beaconName, namespacedType: namespacedType, data: text)
    }
    func list(project: String, beaconName: String, filter: NamespacedTypeFilter) async throws -> [Attachment] {
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

/// The resolvers' view of the beacons in memory (`MemoryHubData`'s change numbers and signal).
extension MemoryBeaconRepository: BeaconChanges {
    var signal: ChangeSignal { data.changes }
    func changed(after seq: Int64) async throws -> ChangedBeacons { await data.beaconsChanged(after: seq) }
    func eidChanged(after seq: Int64) async throws -> [Beacon] { await data.eidBeaconsChanged(after: seq) }
}
