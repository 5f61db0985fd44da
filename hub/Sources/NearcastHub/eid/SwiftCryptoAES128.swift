import Crypto
import CryptoExtras
import NearcastCore

/// AES-128 on one block for the core's Eddystone-EID maths, from swift-crypto (BoringSSL):
/// the hub's counterpart of the box's `OpenSSLAES128`.
struct SwiftCryptoAES128: BlockCipher128, Sendable {
    func encrypt(block: [UInt8], key: [UInt8]) throws -> [UInt8] {
        var output = block
        try AES.permute(&output, key: SymmetricKey(data: key))
        return output
    }
}
