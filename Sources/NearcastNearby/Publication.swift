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
    private weak var manager: (any PublicationOwner)?

    init(message: Message, strategy: Strategy, slot: PublicationSlot, manager: any PublicationOwner, contentIdentifier: Int? = nil) {
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
    public var currentToken: Token? { manager?.currentToken(of: slot) }
}

/// What a publication asks of the manager that made it (``MessageManager``): the handle knows
/// its owner only through this, so the manager's file and the handle's do not depend on each other.
protocol PublicationOwner: AnyObject {
    /// Takes the publication off the air.
    func remove(_ publication: Publication)
    /// Whether the publication is still on the air.
    func isLive(_ publication: Publication) -> Bool
    /// The token the scheduler has in the publication's slot now.
    func currentToken(of slot: PublicationSlot) -> Token?
}
