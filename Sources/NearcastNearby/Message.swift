import NearcastCore

/// What a publication sends: a fixed token, or Eddystone EIDs that rotate every 2^K seconds of
/// beacon time (computed from the box's identity key; only a resolver holding it can map them
/// back).
///
/// ```swift
/// let event = Message.direct(try Token(kind: .direct, hex: "c0ffee"))
/// let rotating = Message.eid(identityKey: key, exponent: 10)     // a new EID every 1024 s
/// let slide = Message.content(namespacedType: "demo/slide", bytes: Array("slide 3".utf8))
/// ```
public enum Message: Sendable, Equatable, CustomStringConvertible {
    /// A direct token: the payload itself (an event id of 1 to 8 bytes).
    case direct(Token)
    /// Rotating EIDs from a 16-byte identity key and rotation exponent K (0-15).
    case eid(identityKey: [UInt8], exponent: Int)
    /// Content (up to 100 KiB) with a namespaced type, as a Nearby message was: the box broadcasts
    /// the EID of its hub identity (``MessageManager/hubIdentity``) and a hub turns that EID into
    /// this content for whoever hears it. Every content publication shares the one EID.
    case content(namespacedType: String, bytes: [UInt8])
    /// The EID of the box's hub identity with nothing attached: the box's beacon on its hub, which
    /// a phone resolves to what the hub keeps for it (a Present show). A box given a hub and no
    /// publication sends this, so phones find it; it shares the one EID with ``content``.
    case hubBeacon

    /// Nearby's limit on a message's content.
    public static let maximumContentBytes = 100 * 1024

    public var description: String {
        switch self {
        case .direct(let token): return "direct token \(token.hex)"
        case .eid(_, let exponent): return "EID, rotating every 2^\(exponent) = \(1 << exponent) s"
        case .content(let type, let bytes): return "message \(type) (\(bytes.count) bytes)"
        case .hubBeacon: return "the hub identity's EID (the box's beacon on its hub)"
        }
    }
}
