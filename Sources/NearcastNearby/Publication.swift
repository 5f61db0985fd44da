import NearcastCore

/// A message being broadcast. It stays on air while this object lives (or until
/// ``unpublish()``), as a Nearby publication did.
public final class Publication {
    /// What is sent.
    public let message: Message
    /// How it is sent now: as published, or as last changed with ``MessageManager/setStrategy(_:for:)``.
    public internal(set) var strategy: Strategy
    /// The scheduler's handle: its slot, which the scheduler's status and actions name.
    public let slot: PublicationSlot
    private weak var manager: MessageManager?

    init(message: Message, strategy: Strategy, slot: PublicationSlot, manager: MessageManager) {
        self.message = message
        self.strategy = strategy
        self.slot = slot
        self.manager = manager
    }

    deinit { manager?.remove(self) }

    /// Stops broadcasting now rather than when the object goes away.
    public func unpublish() { manager?.remove(self) }

    /// True until unpublished.
    public var isPublished: Bool { manager?.isLive(self) ?? false }

    /// The token on air now (nil while unpublished or while an EID is being computed).
    public var currentToken: Token? { manager?.scheduler.status(of: slot)?.token }
}

/// Listens for messages while this object lives (or until ``cancel()``), calling found once per
/// token heard and lost once it has not been heard for the manager's lost timeout.
public final class Subscription {
    /// Which mediums it listens on (its mode must include scan).
    public let strategy: Strategy
    let onFound: (FoundMessage) -> Void
    let onLost: (FoundMessage) -> Void
    var tracker: SightingTracker
    private weak var manager: MessageManager?
    let identifier: Int

    init(strategy: Strategy, lostAfter: Int64, identifier: Int, manager: MessageManager,
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
