import NearcastCore

/// Listens for messages while this object lives (or until ``cancel()``), calling found once per
/// token heard and lost once it has not been heard for the manager's lost timeout.
///
/// ```swift
/// let subscription = try manager.subscribe(strategy: Strategy(mediums: .audio, mode: .scan),
///                                          onFound: { print("found \($0)") }, onLost: { print("lost \($0)") })
/// print(subscription.present.map { $0.hex })
/// subscription.cancel()
/// ```
public final class Subscription {
    /// Which mediums it listens on (its mode must include scan).
    public let strategy: Strategy
    let onFound: (FoundMessage) -> Void
    let onLost: (FoundMessage) -> Void
    var tracker: SightingTracker
    private weak var manager: (any SubscriptionOwner)?
    let identifier: Int

    init(strategy: Strategy, lostAfter: Int64, identifier: Int, manager: any SubscriptionOwner,
         onFound: @escaping (FoundMessage) -> Void, onLost: @escaping (FoundMessage) -> Void) {
        self.strategy = strategy
        self.tracker = SightingTracker(lostAfter: lostAfter)
        self.identifier = identifier
        self.manager = manager
        self.onFound = onFound
        self.onLost = onLost
    }

    deinit { manager?.remove(identifier) }

    /// Stops listening now; tokens still present are not reported lost.
    public func cancel() { manager?.remove(identifier) }

    /// Tokens present now.
    public var present: [Token] { (0..<tracker.count).map { tracker[$0].token } }
}

/// What a subscription asks of the manager that made it (``MessageManager``): to be forgotten.
/// Through this protocol, so the manager's file and the handle's do not depend on each other.
protocol SubscriptionOwner: AnyObject {
    /// Ends the subscription with this identifier.
    func remove(_ identifier: Int)
}
