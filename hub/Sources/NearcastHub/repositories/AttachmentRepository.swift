/// A beacon's attachments (the messages a box publishes). `AttachmentStore` keeps them in the
/// database; `MemoryAttachmentRepository` in memory, for router tests. Every call names the
/// caller's project: a beacon of another project is a 404, as one that does not exist.
protocol AttachmentRepository: Sendable {
    /// Adds one; 404 when the beacon is not the project's, 400 past the beacon's cap.
    func add(project: String, beaconName: String, namespacedType: String, data: String) async throws -> Attachment
    /// The beacon's attachments matching `filter`, oldest first; 404 for an unknown beacon.
    func list(project: String, beaconName: String, filter: NamespacedTypeFilter) async throws -> [Attachment]
    /// Deletes the one with `attachmentID`, or every one matching `filter` when it is nil;
    /// returns how many went.
    func delete(project: String, beaconName: String, attachmentID: String?, filter: NamespacedTypeFilter) async throws -> Int
}

extension AttachmentRepository {
    func list(project: String, beaconName: String) async throws -> [Attachment] {
        try await list(project: project, beaconName: beaconName, filter: .all)
    }

    func delete(project: String, beaconName: String, attachmentID: String?) async throws -> Int {
        try await delete(project: project, beaconName: beaconName, attachmentID: attachmentID, filter: .all)
    }
}

extension AttachmentStore: AttachmentRepository {}
