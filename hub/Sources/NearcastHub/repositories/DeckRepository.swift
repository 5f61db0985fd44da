/// A project's decks and their rendered pages. `DeckStore` keeps them in the database (so every
/// instance on one PostgreSQL serves the same deck); `MemoryDeckRepository` in memory, for router
/// tests. A deck never changes: a new upload is a new deck.
package protocol DeckRepository: Sendable {
    /// Stores a rendered deck and every page: all of it, or (the quota's 507 included) nothing.
    func add(project: String, title: String, sourceBytes: Int, rendered: DeckRenderer.Rendered) async throws -> Deck
    /// Refuses (507) before anything is rendered when the project's decks already fill its quota.
    func checkRoom(project: String) async throws
    /// The project's decks, newest first.
    func list(project: String) async throws -> [Deck]
    /// 404 for a deck the project does not have.
    func get(project: String, deckID: String) async throws -> Deck
    /// Deletes a deck, its pages and any show of it, telling those shows' streams (every
    /// instance's) that they ended; returns the beacons whose show ended.
    func delete(project: String, deckID: String) async throws -> [String]
    /// A page's image, JPEG bytes; nil when the deck or page does not exist.
    func image(project: String, deckID: String, page: Int, size: Deck.ImageSize) async throws -> [UInt8]?
    /// Whether the public key may see `page` of a deck: a show of the project has it open
    /// (`Show.openPages`).
    func pageWasShown(project: String, deckID: String, page: Int) async throws -> Bool
}
