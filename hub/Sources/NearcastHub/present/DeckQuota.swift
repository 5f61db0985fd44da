import Foundation
import HTTPTypes

/// How much of its storage a project's decks take, and the refusal when a deck does not fit: the
/// same rule for the database's `DeckStore` and for memory.
package enum DeckQuota {
    /// HTTP's 507: the project's storage is full (a client should not retry as it is).
    package static let insufficientStorage = HTTPResponse.Status(code: 507, reasonPhrase: "Insufficient Storage")

    /// A 507 naming the quota, what the project holds and what the deck would add, when they do
    /// not fit (with `adding` 0: when the project is already full).
    package static func check(used: Int, adding: Int, quota: Int) throws(APIError) {
        guard used + adding > quota || (adding == 0 && used >= quota) else { return }
        throw APIError(insufficientStorage, message(used: used, adding: adding, quota: quota), field: "(body)")
    }

    static func message(used: Int, adding: Int, quota: Int) -> String {
        // Two decimals under 10 MB, so a small quota's figures do not round into seeming to fit.
        func mb(_ bytes: Int) -> String {
            String(format: bytes < 10 * 1024 * 1024 ? "%.2f MB" : "%.1f MB", Double(bytes) / 1024 / 1024)
        }
        let what = adding == 0 ? "" : " and this deck's pages need \(mb(adding))"
        return "the project's decks already hold \(mb(used)) of page images\(what): the quota is \(mb(quota)) a project "
            + "(decks.storagePerProjectMB): delete decks the project no longer shows, or ask the hub's operator to raise it"
    }

    /// The size of `count` bytes as base64 text.
    package static func storedBytes(_ count: Int) -> Int { (count + 2) / 3 * 4 }

    /// What a rendered deck's images take as stored (base64 text, 4 characters for every 3 bytes).
    package static func storedBytes(_ rendered: DeckRenderer.Rendered) -> Int {
        rendered.pages.reduce(0) { $0 + storedBytes($1.full.count) + storedBytes($1.thumbnail.count) }
    }
}
