import SQLKit

/// Every project's active beacons and their attachments, in memory, for `getforobserved` and
/// the proof of presence: a resolve reads here, not the database.
///
/// Exact, not merely recent: before answering, the directory compares the database's
/// `ChangeSignal` with the value it last brought itself up to date at. Unchanged, nothing was
/// committed since (here, or on PostgreSQL through any instance), and the answer is from
/// memory; changed, one query reads the beacons whose change number is past the highest it has
/// seen (a beacon's number moves when it is registered, re-anchored or deleted and when its
/// attachments change) and one reads their attachments. Started empty, the first resolve loads
/// everything the same way. One hub per SQLite file: another process writing the file is not
/// seen (PostgreSQL is the shared store).
actor BeaconDirectory {
    /// An active beacon as a resolve answers it.
    struct Beacon: Sendable {
        var description: String?
        var attachments: [AttachmentStore.Record]
    }

    /// What a synchronisation did, for /metrics and the tests.
    private(set) var synchronisations = 0

    private let database: HubDatabase
    private var beacons: [String: [String: Beacon]] = [:]          // project -> beacon name -> beacon
    private var uids: [String: [String: String]] = [:]             // project -> advertised id hex -> beacon name
    private var lastSeq: Int64 = 0
    private var syncedAt: UInt64?
    private var running: Task<Void, any Error>?

    init(database: HubDatabase) {
        self.database = database
    }

    /// The active beacon `beaconName` of `project`, or nil.
    func beacon(project: String, beaconName: String) async throws -> Beacon? {
        try await synchronise()
        return beacons[project]?[beaconName]
    }

    /// The beacon name of the project's UID or direct token with this hex id, or nil.
    func uid(project: String, idHex: String) async throws -> String? {
        try await synchronise()
        return uids[project]?[idHex]
    }

    /// Brings the directory up to date if anything was committed since it last was. Concurrent
    /// callers share one synchronisation.
    func synchronise() async throws {
        while syncedAt != database.changes.current {
            if let running {
                try await running.value
                continue
            }
            let task = Task { try await self.refresh() }
            running = task
            try await task.value
        }
    }

    /// One synchronisation; its state lands on the actor before its task completes, so every
    /// caller waiting on it sees the result.
    private func refresh() async throws {
        defer { running = nil }
        let target = database.changes.current   // read first: a commit during the query moves it again
        apply(try await changes())
        syncedAt = target
    }

    private struct Changes: Sendable {
        var beacons: [BeaconRecord]
        var attachments: [String: [AttachmentStore.Record]]   // "project\nbeacon name" -> oldest first
    }

    private func changes() async throws -> Changes {
        let after = lastSeq
        return try await database.read { db in
            let beacons = try await db.raw("""
                SELECT \(unsafeRaw: BeaconRecord.columns) FROM beacons WHERE change_seq > \(bind: after) ORDER BY change_seq
                """).all().map(BeaconRecord.init(row:))
            var attachments: [String: [AttachmentStore.Record]] = [:]
            guard !beacons.isEmpty else { return Changes(beacons: [], attachments: [:]) }
            let rows = try await db.raw("""
                SELECT a.project AS project, a.beacon_name AS beacon_name, a.attachment_id AS attachment_id,
                       a.namespaced_type AS namespaced_type, a.data AS data, a.created_ms AS created_ms
                FROM attachments a JOIN beacons b ON a.project = b.project AND a.beacon_name = b.beacon_name
                WHERE b.change_seq > \(bind: after) AND b.status = 'ACTIVE'
                ORDER BY a.change_seq
                """).all()
            for row in rows {
                let project = try row.decode(column: "project", as: String.self)
                let record = AttachmentStore.Record(
                    beaconName: try row.decode(column: "beacon_name", as: String.self),
                    attachmentID: try row.decode(column: "attachment_id", as: String.self),
                    namespacedType: try row.decode(column: "namespaced_type", as: String.self),
                    data: try row.decode(column: "data", as: String.self),
                    createdMs: try row.decode(column: "created_ms", as: Int64.self))
                attachments[project + "\n" + record.beaconName, default: []].append(record)
            }
            return Changes(beacons: beacons, attachments: attachments)
        }
    }

    private func apply(_ changes: Changes) {
        synchronisations += 1
        for record in changes.beacons {
            lastSeq = max(lastSeq, record.changeSeq)
            let project = record.project
            if record.active {
                beacons[project, default: [:]][record.beaconName] = Beacon(
                    description: record.description,
                    attachments: changes.attachments[project + "\n" + record.beaconName] ?? [])
                if record.kind == .uid { uids[project, default: [:]][record.advertisedIDHex] = record.beaconName }
            } else {
                beacons[project]?[record.beaconName] = nil
                if record.kind == .uid, uids[project]?[record.advertisedIDHex] == record.beaconName {
                    uids[project]?[record.advertisedIDHex] = nil
                }
            }
        }
    }

    /// Beacons held (for /metrics).
    var count: Int { beacons.values.reduce(0) { $0 + $1.count } }
}
