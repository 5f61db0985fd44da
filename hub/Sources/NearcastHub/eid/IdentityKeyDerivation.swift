import Crypto
import Foundation

/// The Eddystone-EID identity key both sides derive without sending it (eddystone-eid/
/// eid-computation.md, "Beacon registration"): the X25519 shared secret of the service's and
/// the beacon's keys, through HKDF-SHA256 with salt = service public key ‖ beacon public key and
/// empty info; the first 16 bytes.
enum IdentityKeyDerivation {
    struct LowOrderKey: Error {}

    static func identityKey(serviceKey: Curve25519.KeyAgreement.PrivateKey, beaconPublicKey: Data) throws -> [UInt8] {
        let beacon = try Curve25519.KeyAgreement.PublicKey(rawRepresentation: beaconPublicKey)
        let shared = try serviceKey.sharedSecretFromKeyAgreement(with: beacon)
        // RFC 7748 §6.1: a low-order public key makes the shared secret all zeros, which anyone
        // could compute; such a key is refused rather than registered.
        guard !shared.withUnsafeBytes({ $0.allSatisfy { $0 == 0 } }) else { throw LowOrderKey() }
        let salt = serviceKey.publicKey.rawRepresentation + beaconPublicKey
        let key = shared.hkdfDerivedSymmetricKey(using: SHA256.self, salt: salt, sharedInfo: Data(), outputByteCount: 32)
        return key.withUnsafeBytes { Array($0.prefix(16)) }
    }
}
