import CCrypto

/// The beacon's half of Eddystone-EID registration, through libcrypto: a fresh X25519 key pair,
/// the shared secret with the hub's public key, and HKDF-SHA256 to the 16-byte identity key. The
/// private key is wiped at once; the identity key never leaves the box (the hub derives the same
/// one from the beacon's public key).
///
/// Costly in memory on first use (OpenSSL's EVP machinery), so the daemon calls it only in the
/// short-lived `nearcast hub-identity` process.
///
/// ```swift
/// let keys = try EddystoneKeyExchange.derive(servicePublicKey: hubKey)
/// register(beaconPublicKey: keys.beaconPublicKey)   // and keep keys.identityKey
/// ```
public enum EddystoneKeyExchange {
    /// Why the exchange failed.
    public enum Failure: Error, Equatable, CustomStringConvertible {
        case wrongKeyLength(Int)
        case lowOrderKey
        case libcrypto

        public var description: String {
            switch self {
            case .wrongKeyLength(let count): return "the hub's X25519 public key is \(count) bytes, not 32"
            case .lowOrderKey: return "the hub's public key is a low-order point (an all-zero shared secret): refused"
            case .libcrypto: return "libcrypto's X25519 or HKDF failed"
            }
        }
    }

    public static func derive(servicePublicKey: [UInt8]) throws(Failure) -> (beaconPublicKey: [UInt8], identityKey: [UInt8]) {
        guard servicePublicKey.count == 32 else { throw .wrongKeyLength(servicePublicKey.count) }
        var beaconPublic = [UInt8](repeating: 0, count: 32)
        var identity = [UInt8](repeating: 0, count: 16)
        let result = nearcast_eddystone_identity(servicePublicKey, &beaconPublic, &identity)
        switch result {
        case 0: return (beaconPublic, identity)
        case -2: throw .lowOrderKey
        default: throw .libcrypto
        }
    }
}
