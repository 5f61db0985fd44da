import CCrypto
import NearcastCore

/// AES-128 (one block, ECB) through libcrypto's AES core, for the EID maths. It uses the
/// low-level block function rather than EVP, whose provider start-up costs 3 MB of memory (see
/// CCrypto/shim.h).
public struct OpenSSLAES128: BlockCipher128, Sendable {
    public init() {}

    /// Encrypts one 16-byte block under a 16-byte key.
    public func encrypt(block: [UInt8], key: [UInt8]) throws(CipherFailure) -> [UInt8] {
        precondition(block.count == 16 && key.count == 16, "AES-128 takes 16-byte blocks and keys")
        var output = [UInt8](repeating: 0, count: 16)
        guard nearcast_aes128_encrypt_block(key, block, &output) == 0 else {
            throw CipherFailure(CryptoError(operation: "AES_set_encrypt_key").description)
        }
        return output
    }
}

/// libcrypto reported a failure; the message is OpenSSL's own error string.
public struct CryptoError: Error, CustomStringConvertible {
    public let operation: String
    public let reason: String

    init(operation: String) {
        self.operation = operation
        let code = ERR_get_error()
        var buffer = [CChar](repeating: 0, count: 256)
        ERR_error_string_n(code, &buffer, buffer.count)
        reason = code == 0 ? "unknown error" : String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    public var description: String { "\(operation) failed: \(reason)" }
}
