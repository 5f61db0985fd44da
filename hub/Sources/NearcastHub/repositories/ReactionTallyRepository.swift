/// The shows' reactions counted by slide and minute (`ReactionTally`), as a talk's figures read
/// them (`TalkFigures`). They are written with the show's counts, batch by batch
/// (`ShowRepository.addReactions`); `ReactionTallyStore` keeps them in the database,
/// `MemoryReactionTallyRepository` in memory.
package protocol ReactionTallyRepository: Sendable {
    /// The tallies of `deckID` on any of the project's shows whose minute starts in
    /// `[fromMs, untilMs)`.
    func tallies(project: String, deckID: String, fromMs: Int64, untilMs: Int64) async throws -> [ReactionTally]
    /// The tallies of the show on `beacon`, whatever its deck, whose minute starts in
    /// `[fromMs, untilMs)`.
    func tallies(_ beacon: BeaconRef, fromMs: Int64, untilMs: Int64) async throws -> [ReactionTally]
}
