/// What a request's key grants: the project's public key reads, its secret key manages, a pass
/// reads one beacon and proves presence in its room.
package enum Access: Equatable, Sendable {
    case read(project: String)
    case manage(project: String)
    /// A pass (`Presence.Pass`): reads like the public key, and proves its holder was in the
    /// room of its beacon lately, for as long as its show stands by it.
    case pass(Presence.Pass)

    package var project: String {
        switch self {
        case .read(let project), .manage(let project): return project
        case .pass(let pass): return pass.project
        }
    }
    package var canManage: Bool { if case .manage = self { return true } else { return false } }
    /// Which key it is, in words.
    package var kindName: String {
        switch self {
        case .read: return "public"
        case .manage: return "secret"
        case .pass: return "pass"
        }
    }
    /// What the limits count this caller's requests and streams under: its project's key
    /// of this kind (every pass of a project together).
    package var limitKey: String { project + "\n" + kindName }
}
