import NearcastCore

/// What a publication sends: a fixed token, or Eddystone EIDs that rotate every 2^K seconds of
/// beacon time (computed from the box's identity key; only a resolver holding it can map them
/// back).
///
/// ```swift
/// let event = Message.direct(try Token(kind: .direct, hex: "c0ffee"))
/// let rotating = Message.eid(identityKey: key, exponent: 10)     // a new EID every 1024 s
/// ```
public enum Message: Sendable, Equatable, CustomStringConvertible {
    /// A direct token: the payload itself (an event id of 1 to 8 bytes).
    case direct(Token)
    /// Rotating EIDs from a 16-byte identity key and rotation exponent K (0-15).
    case eid(identityKey: [UInt8], exponent: Int)

    public var description: String {
        switch self {
        case .direct(let token): return "direct token \(token.hex)"
        case .eid(_, let exponent): return "EID, rotating every 2^\(exponent) = \(1 << exponent) s"
        }
    }
}
