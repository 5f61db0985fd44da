import NearcastHub
import SQLKit

/// The taps counted lately (table `reaction_receipts`, `ReactionBatch.Receipt`): recorded inside
/// a batch's transaction (`ShowStore.addReactions`), so a tap is counted and its receipt kept, or
/// neither. Every instance on one database reads the same receipts, so a tap HAProxy sends to a
/// second instance after the first died having counted it is not counted again. Old receipts go
/// with the heartbeat (`VenueStore`).
enum ReactionReceiptStore {
    /// Rows per INSERT (three parameters each), as for the tallies.
    static let rowsPerStatement = 200

    /// Records `receipts` at `atMs`; the ones not recorded before (the rest were counted already).
    static func record(_ db: any SQLDatabase, _ receipts: [ReactionBatch.Receipt], atMs: Int64) async throws -> Set<ReactionBatch.Receipt> {
        // In one order on every instance: two batches (two shows, on two instances) holding
        // receipts of one phone (one challenge's ids for two boxes share its identity) then take
        // the receipts' row locks in the same order and one waits, where in opposite orders
        // PostgreSQL would find a deadlock and fail one of them.
        let receipts = receipts.sorted { ($0.phone, $0.tap) < ($1.phone, $1.tap) }
        var fresh = Set<ReactionBatch.Receipt>()
        for start in stride(from: 0, to: receipts.count, by: rowsPerStatement) {
            let rows = receipts[start..<min(start + rowsPerStatement, receipts.count)].map { receipt -> SQLQueryString in
                "(\(bind: receipt.phone), \(bind: receipt.tap), \(bind: atMs))"
            }
            // Both dialects return only the rows inserted: a receipt already there is skipped.
            let inserted = try await db.raw("""
                INSERT INTO reaction_receipts (phone, tap, received_ms) VALUES \(rows.joined(separator: ", "))
                ON CONFLICT (phone, tap) DO NOTHING RETURNING phone, tap
                """).all()
            for row in inserted {
                fresh.insert(.init(phone: try row.decode(column: "phone", as: String.self), tap: try row.decode(column: "tap", as: String.self)))
            }
        }
        return fresh
    }

    /// Forgets receipts older than `ReactionBatch.receiptMilliseconds`.
    static func forgetOld(_ db: any SQLDatabase, nowMs: Int64) async throws {
        try await db.raw("DELETE FROM reaction_receipts WHERE received_ms < \(bind: nowMs - ReactionBatch.receiptMilliseconds)").run()
    }
}
