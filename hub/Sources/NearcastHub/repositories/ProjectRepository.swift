/// Projects and their keys as the key check sees them. `ProjectStore` keeps them in the
/// database; `MemoryProjectRepository` in memory, for router tests.
package protocol ProjectRepository: Sendable {
    /// Makes a project and its keys (the only time they are shown); 409 for a name taken.
    func create(name: String) async throws -> CreatedProject
    /// What the key whose SHA-256 is `hash` grants, or nil for a key no project has.
    func access(forHash hash: String) async throws -> Access?
}
