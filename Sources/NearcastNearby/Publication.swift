import NearcastCore

/// A message being broadcast. It stays on air while this object lives (or until
/// ``unpublish()``), as a Nearby publication did.
///
/// ```swift
/// let publication = try manager.publish(.direct(token), strategy: Strategy(mediums: .both, mode: .broadcast))
/// print(publication.currentToken?.hex ?? "not on air")
/// publication.unpublish()
/// ```
public final class Publication {
    /// What is sent.
    public let message: Message
    /// How it is sent now: as published, or as last changed with ``MessageManager/setStrategy(_:for:)``.
    public internal(set) var strategy: Strategy
    /// The scheduler's handle: its slot, which the scheduler's status and actions name.
    /// Content publications all share the hub identity's EID slot.
    public let slot: PublicationSlot
    /// For content: its entry in the manager's list of contents.
    let contentIdentifier: Int?
    private weak var manager: MessageManager?

    init(message: Message, strategy: Strategy, slot: PublicationSlot, manager: MessageManager, contentIdentifier: Int? = nil) {
        self.message = message
        self.strategy = strategy
        self.slot = slot
        self.manager = manager
        self.contentIdentifier = contentIdentifier
    }

    deinit { manager?.remove(self) }

    /// Stops broadcasting now rather than when the object goes away.
    public func unpublish() { manager?.remove(self) }

    /// True until unpublished.
    public var isPublished: Bool { manager?.isLive(self) ?? false }

    /// The token on air now (nil while unpublished or while an EID is being computed).
    public var currentToken: Token? { manager?.scheduler.status(of: slot)?.token }
}
