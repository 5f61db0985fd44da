import CCrypto

/// PBKDF2-HMAC-SHA256 through libcrypto, for the technician PIN: only a salted, stretched hash
/// is ever stored, and the comparison takes the same time whichever byte differs.
public enum PINHasher {
    /// Iterations for new PINs. Each check costs about this many SHA-256 pairs: measured at
    /// ~5 ms on this x86 core (Python hashlib over the same libcrypto), an estimated (not measured) 40 ms on a Pi 3, short enough to run in the
    /// daemon's loop (the audio ring holds 4 periods and the output keeps playing), long enough
    /// that an offline guess of every 4-8 digit PIN costs hours rather than seconds.
    public static let iterations = 20_000
    /// Salt bytes for new PINs (from the kernel's random source).
    public static let saltLength = 16
    /// Hash bytes stored.
    public static let hashLength = 32

    /// The PBKDF2-HMAC-SHA256 of `pin` with `salt`.
    public static func hash(pin: [UInt8], salt: [UInt8], iterations: Int) throws(CryptoError) -> [UInt8] {
        var output = [UInt8](repeating: 0, count: hashLength)
        let ok = pin.withUnsafeBufferPointer { pinBytes in
            pinBytes.withMemoryRebound(to: CChar.self) { pinChars in
                PKCS5_PBKDF2_HMAC(pinChars.baseAddress, Int32(pinChars.count), salt, Int32(salt.count),
                                  Int32(iterations), EVP_sha256(), Int32(hashLength), &output)
            }
        }
        guard ok == 1 else { throw CryptoError(operation: "PKCS5_PBKDF2_HMAC") }
        return output
    }

    /// Whether `a` and `b` are equal, in time that depends only on their length.
    public static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        return CRYPTO_memcmp(a, b, a.count) == 0
    }
}
