/// Each project's reaction choices (`ReactionChoices`). `ReactionChoicesStore` keeps them in the
/// database; `MemoryReactionChoicesRepository` in memory, for router tests.
package protocol ReactionChoicesRepository: Sendable {
    /// The project's choices, or `ReactionChoices.defaults` when it set none.
    func get(project: String) async throws -> ReactionChoices
    func set(project: String, _ choices: ReactionChoices) async throws
}
