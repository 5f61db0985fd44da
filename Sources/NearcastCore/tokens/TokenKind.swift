/// What a token's eight bytes mean to a listener.
///
/// - `direct`: the payload itself, an event id of 1 to 8 bytes, for venues without a resolver.
/// - `eid`: an Eddystone ephemeral identifier, 8 bytes, which only a resolver holding the beacon's
///   identity key can map back to the beacon.
public enum TokenKind: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    case direct
    case eid

    public var description: String { rawValue }
}
