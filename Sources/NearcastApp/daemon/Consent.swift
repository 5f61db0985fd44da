import NearcastDrivers
import NearcastNearby

/// The operator's permission to broadcast (the Nearby permission), remembered in the state
/// directory across restarts.
final class Consent {
    private let manager: MessageManager
    private let stateDirectory: StateDirectory

    init(manager: MessageManager, stateDirectory: StateDirectory) {
        self.manager = manager
        self.stateDirectory = stateDirectory
    }

    var isGranted: Bool { manager.permission.isGranted }

    /// Grants or withdraws consent; saved first, so what the box does is what it remembers.
    func set(_ granted: Bool) throws(SystemError) {
        try stateDirectory.saveConsent(granted)
        manager.permission.set(granted)
    }
}
