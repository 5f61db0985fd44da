import Foundation
import NearcastCore
import NearcastHub
import SQLKit

/// Field check results, per project: kept up to `keptPerProject` (each new one past it deletes
/// the oldest), listed newest first. Rows hold the phone's kind and what it measured, nothing
/// that identifies the phone or its owner.
struct FieldCheckStore: Sendable {
    let database: HubDatabase
    let clock: HubClock
    let keptPerProject: Int

    /// Stores a checked result (`FieldCheckRequest.validate`). A named beacon must be one of the
    /// project's active beacons (404 naming `beaconName` otherwise: another project's beacon is
    /// as unknown as none).
    func add(project: String, _ check: FieldCheckRequest) async throws -> FieldCheckJSON {
        var generator = SystemRandomNumberGenerator()
        let id = Hex.format(UInt64.random(in: 0...UInt64.max, using: &generator), byteCount: 8)
        let nowMs = clock.nowMs()
        let stored = FieldCheckJSON(id: id, createTime: HubClock.timestamp(ms: nowMs), beaconName: check.beaconName,
                                    platform: check.platform, browser: check.browser, sampleRate: check.sampleRateHz,
                                    tones: check.tones, bands: check.bands, verdict: check.verdict)
        let tones = try Self.text(check.tones), bands = try Self.text(check.bands)
        let kept = keptPerProject
        try await database.transaction { db in
            try await ActiveBeacon.require(db, project: project, beaconName: check.beaconName)
            try await db.raw("""
                INSERT INTO field_checks (project, check_id, beacon_name, platform, browser, sample_rate, tones, bands, verdict, created_ms)
                VALUES (\(bind: project), \(bind: id), \(bind: check.beaconName), \(bind: check.platform), \(bind: check.browser),
                        \(bind: Int64(check.sampleRateHz)), \(bind: tones), \(bind: bands), \(bind: check.verdict), \(bind: nowMs))
                """).run()
            // The cap: the newest one past it found through the index, it and everything older
            // deleted. Usually there is none (a project under the cap) and nothing is deleted.
            guard let cut = try await db.raw("""
                SELECT created_ms, check_id FROM field_checks WHERE project = \(bind: project)
                ORDER BY created_ms DESC, check_id DESC LIMIT 1 OFFSET \(unsafeRaw: String(kept))
                """).first() else { return }
            let cutMs = try cut.decode(column: "created_ms", as: Int64.self)
            let cutID = try cut.decode(column: "check_id", as: String.self)
            try await db.raw("""
                DELETE FROM field_checks WHERE project = \(bind: project)
                  AND (created_ms < \(bind: cutMs) OR (created_ms = \(bind: cutMs) AND check_id <= \(bind: cutID)))
                """).run()
        }
        return stored
    }

    /// The project's results, newest first, at most `FieldCheckJSON.maximumListed`; with `beaconName`, that
    /// box's only.
    func list(project: String, beaconName: String?) async throws -> [FieldCheckJSON] {
        let rows = try await database.read { db in
            let filter: SQLQueryString = beaconName.map { " AND beacon_name = \(bind: $0)" } ?? ""
            let query: SQLQueryString = """
                SELECT check_id, beacon_name, platform, browser, sample_rate, tones, bands, verdict, created_ms
                FROM field_checks WHERE project = \(bind: project)
                """
            return try await db.raw(query + filter + " ORDER BY created_ms DESC, check_id DESC LIMIT \(unsafeRaw: String(FieldCheckJSON.maximumListed))").all()
        }
        return try rows.map(Self.record(row:))
    }

    private static func text(_ value: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    private static func record(row: any SQLRow) throws -> FieldCheckJSON {
        let decoder = JSONDecoder()
        return FieldCheckJSON(
            id: try row.decode(column: "check_id", as: String.self),
            createTime: HubClock.timestamp(ms: try row.decode(column: "created_ms", as: Int64.self)),
            beaconName: try row.decode(column: "beacon_name", as: String?.self),
            platform: try row.decode(column: "platform", as: String.self),
            browser: try row.decode(column: "browser", as: String.self),
            sampleRate: try row.decode(column: "sample_rate", as: Int.self),
            tones: try decoder.decode([FieldCheckTone].self, from: Data(try row.decode(column: "tones", as: String.self).utf8)),
            bands: try decoder.decode([FieldCheckBand].self, from: Data(try row.decode(column: "bands", as: String.self).utf8)),
            verdict: try row.decode(column: "verdict", as: String.self))
    }
}

extension FieldCheckStore: FieldCheckRepository {}
