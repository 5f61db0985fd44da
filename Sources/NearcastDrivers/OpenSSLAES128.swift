import CCrypto
import NearcastCore

/// AES-128 (one block, ECB) through OpenSSL's libcrypto EVP interface, for the EID maths.
public struct OpenSSLAES128: BlockCipher128, Sendable {
    public init() {}

    /// Encrypts one 16-byte block under a 16-byte key.
    public func encrypt(block: [UInt8], key: [UInt8]) throws -> [UInt8] {
        precondition(block.count == 16 && key.count == 16, "AES-128 takes 16-byte blocks and keys")
        guard let context = EVP_CIPHER_CTX_new() else { throw CryptoError(operation: "EVP_CIPHER_CTX_new") }
        defer { EVP_CIPHER_CTX_free(context) }
        guard EVP_EncryptInit_ex(context, EVP_aes_128_ecb(), nil, key, nil) == 1 else {
            throw CryptoError(operation: "EVP_EncryptInit_ex")
        }
        EVP_CIPHER_CTX_set_padding(context, 0)
        var output = [UInt8](repeating: 0, count: 32)
        var written: Int32 = 0
        guard EVP_EncryptUpdate(context, &output, &written, block, 16) == 1, written == 16 else {
            throw CryptoError(operation: "EVP_EncryptUpdate")
        }
        return Array(output[0..<16])
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
