/// Shows (a deck on a beacon, one per beacon) and what every instance shares of them: the live
/// page and the pages shown, the reaction counts, the sight code's settings and each instance's
/// follower counts. `ShowStore` keeps them in the database; `MemoryShowRepository` in memory,
/// for router tests. A write tells the show's streams (every instance's, on PostgreSQL).
package protocol ShowRepository: Sendable {
    /// Starts a show of `deckID` on the beacon at `page`, or moves (or switches) the running one
    /// (`Show.go`). 404 unless the beacon is active and the deck the project's; 400 for
    /// a page the deck does not have.
    func put(_ beacon: BeaconRef, deckID: String, page: Int) async throws -> Show
    func get(_ beacon: BeaconRef) async throws -> Show?
    /// Ends the beacon's show; false when it had none.
    func delete(_ beacon: BeaconRef) async throws -> Bool
    /// Adds a batch of reactions to the show's counts and to its tallies by slide, minute and
    /// value (`ReactionTallyRepository` reads them), in one step with the batch's receipts, so a
    /// tap whose receipt was recorded before is not counted again (`ReactionBatch.counting`);
    /// sends what the presenter's screen draws with the new counts to its presenters. Nil, and
    /// nothing counted, recorded or sent, when the show ended.
    func addReactions(_ beacon: BeaconRef, _ batch: ReactionBatch) async throws -> [String: Int]?
    /// Every show's beacon with its sight-code settings: only active EID beacons with an identity
    /// key (a show on a UID beacon has no sight code).
    func liveBeacons() async throws -> [Show.LiveBeacon]
    /// Changes how phones may join the show by its code: on or off, the share of its followers
    /// that may hold passes from the code, a new code at once (a new salt: every code shown so
    /// far stops working, and every pass given so far is revoked; turning joining off takes a
    /// new salt too, `SightCode.needsNewSalt`). False when the beacon has no show.
    func setCode(_ beacon: BeaconRef, joining: Bool?, share: Int?, rotate: Bool) async throws -> Bool
    /// A show's box as the presenter sees it (`Show.Box`), nil when the beacon was never
    /// registered.
    func box(_ beacon: BeaconRef) async throws -> Show.Box?
    /// Records this instance's follower count of each show (and keeps them fresh), and tells the
    /// shows' presenters everywhere.
    func recordFollowers(instance: String, _ counts: [BeaconRef: Int]) async throws
    /// The phones following a show across every instance that reported lately
    /// (`Show.followersFreshMs`).
    func followers(_ beacon: BeaconRef) async throws -> Int
}

extension ShowRepository {
    /// One show's beacon, as `liveBeacons` lists them.
    package func liveBeacon(_ beacon: BeaconRef) async throws -> Show.LiveBeacon? {
        try await liveBeacons().first { $0.project == beacon.project && $0.beaconName == beacon.beaconName }
    }
}
