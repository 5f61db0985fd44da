/// The box's Eddystone-EID identity as registered with a hub: the identity key both derived
/// (X25519 and HKDF; it never leaves the box) and the rotation exponent the hub was told.
/// Content publications broadcast this identity's EID.
///
/// ```swift
/// manager.hubIdentity = HubIdentity(identityKey: derivedKey, exponent: 10)
/// let slide = try manager.publish(.content(namespacedType: "demo/slide", bytes: Array("3".utf8)))
/// ```
public struct HubIdentity: Sendable, Equatable {
    public var identityKey: [UInt8]
    public var exponent: Int

    public init(identityKey: [UInt8], exponent: Int) {
        self.identityKey = identityKey
        self.exponent = exponent
    }
}
