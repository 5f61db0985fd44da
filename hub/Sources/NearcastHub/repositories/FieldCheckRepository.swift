/// What the audience's phones heard of the boxes' test sounds. `FieldCheckStore` keeps them in
/// the database; `MemoryFieldCheckRepository` in memory, for router tests.
package protocol FieldCheckRepository: Sendable {
    /// Stores a checked result and returns it as the API shows it (the oldest past the
    /// project's cap are dropped).
    func add(project: String, _ check: FieldCheckRequest) async throws -> FieldCheckJSON
    /// The project's results, newest first, of one beacon when `beaconName` is given.
    func list(project: String, beaconName: String?) async throws -> [FieldCheckJSON]
}
