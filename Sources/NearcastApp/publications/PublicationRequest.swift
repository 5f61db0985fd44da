import NearcastCore
import NearcastNearby

/// One thing the box publishes: the message (a token, an EID identity, or content through the
/// hub) and the strategy it asks for, within the box's own.
public struct PublicationRequest: Sendable, Equatable {
    public var message: Message
    public var strategy: Strategy

    public init(message: Message, strategy: Strategy) {
        self.message = message
        self.strategy = strategy
    }

    /// The namespaced type of a hub message, nil for a token or EID publication.
    var namespacedType: String? {
        if case .content(let type, _) = message { return type }
        return nil
    }

    /// Whether it goes on air on the box's hub identity's EID (a message or the hub beacon), so
    /// waits for that identity.
    var needsHubIdentity: Bool {
        switch message {
        case .content, .hubBeacon: return true
        case .direct, .eid: return false
        }
    }
}
