import Crypto
import CryptoExtras
import NearcastCore

/// AES-128 on one block for the core's Eddystone-EID maths, from swift-crypto (BoringSSL):
/// the hub's counterpart of the box's `OpenSSLAES128`.
struct SwiftCryptoAES128: BlockCipher128, Sendable {
    func encrypt(block: [UInt8], key: [UInt8]) throws(CipherFailure) -> [UInt8] {
        var output = block
        do { try AES.permute(&output, key: SymmetricKey(data: key)) } catch { throw CipherFailure("AES: \(error)") }
        return output
    }
}
