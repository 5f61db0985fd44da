/// A beacon's attachments (the messages a box publishes). `AttachmentStore` keeps them in the
/// database; `MemoryAttachmentRepository` in memory, for router tests. Every call names the
/// caller's project: a beacon of another project is a 404, as one that does not exist.
package protocol AttachmentRepository: Sendable {
    /// Adds one; 404 when the beacon is not the project's, 400 past the beacon's cap.
    func add(_ beacon: BeaconRef, namespacedType: String, data: String) async throws -> Attachment
    /// The beacon's attachments matching `filter`, oldest first; 404 for an unknown beacon.
    func list(_ beacon: BeaconRef, filter: NamespacedTypeFilter) async throws -> [Attachment]
    /// Deletes the one with `attachmentID`, or every one matching `filter` when it is nil;
    /// returns how many went.
    func delete(_ beacon: BeaconRef, attachmentID: String?, filter: NamespacedTypeFilter) async throws -> Int
}

extension AttachmentRepository {
    package func list(_ beacon: BeaconRef) async throws -> [Attachment] {
        try await list(beacon, filter: .all)
    }

    package func delete(_ beacon: BeaconRef, attachmentID: String?) async throws -> Int {
        try await delete(beacon, attachmentID: attachmentID, filter: .all)
    }
}
