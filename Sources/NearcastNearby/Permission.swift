/// The operator's consent to broadcast and listen (Nearby's `GNSPermission`): while it is not
/// granted nothing goes on air and nothing heard is reported.
///
/// ```swift
/// manager.permission.onChange = { granted in print(granted ? "broadcasting" : "silent") }
/// manager.permission.grant()
/// ```
public final class Permission {
    /// Whether broadcasting and scanning are allowed.
    public private(set) var isGranted: Bool
    /// Called after every change, with the new state.
    public var onChange: ((Bool) -> Void)?
    /// Called by the manager before `onChange`, to apply the change to the scheduler.
    var apply: ((Bool) -> Void)?

    init(granted: Bool) { isGranted = granted }

    /// Allows broadcasting and scanning.
    public func grant() { set(true) }

    /// Stops broadcasting and scanning.
    public func deny() { set(false) }

    /// Sets the state; handlers run only when it changes.
    public func set(_ granted: Bool) {
        guard granted != isGranted else { return }
        isGranted = granted
        apply?(granted)
        onChange?(granted)
    }
}
