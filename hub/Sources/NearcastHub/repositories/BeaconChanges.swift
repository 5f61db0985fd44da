/// What the in-memory view of the beacons (`BeaconIndex`) reads to keep in step: a signal that moves whenever a change may have been committed, and the beacons
/// changed after a change number. Every change to a beacon (registered, re-anchored, renamed,
/// deleted, its attachments changed) gives it the next number, and a deleted beacon stays as a
/// tombstone (inactive, without its identity key), so "changed after N" finds deletions too.
/// `BeaconStore` reads the database (the signal is its `ChangeSignal`); `MemoryBeaconRepository`
/// reads `MemoryHubData`.
package protocol BeaconChanges: Sendable {
    /// Read before the changes: a change committed meanwhile moves it again.
    var signal: ChangeSignal { get }
    /// The beacons changed after `seq`, in change order, with the attachments of the active ones.
    func changed(after seq: Int64) async throws -> ChangedBeacons
}

/// Beacons changed since a change number, and the attachments of the active ones.
package struct ChangedBeacons: Sendable {
    package var beacons: [Beacon]
    /// By `ChangedBeacons.key(project, beacon name)`, oldest first.
    package var attachments: [String: [Attachment]]

    package init(beacons: [Beacon], attachments: [String: [Attachment]]) {
        self.beacons = beacons
        self.attachments = attachments
    }

    package static func key(_ project: String, _ beaconName: String) -> String { project + "\n" + beaconName }
}
