/// A 128-bit block cipher, encrypting one 16-byte block.
///
/// The core does not know how AES is computed: the drivers layer supplies one backed by
/// OpenSSL's libcrypto. Keeping the cipher behind this protocol keeps `NearcastCore` pure and
/// lets tests use any implementation.
public protocol BlockCipher128 {
    /// Encrypts `block` (16 bytes) under `key` (16 bytes) with AES-128 in ECB mode (one block).
    func encrypt(block: [UInt8], key: [UInt8]) throws(CipherFailure) -> [UInt8]
}

/// A ``BlockCipher128`` could not encrypt: `reason` is its implementation's own words (for
/// libcrypto, OpenSSL's error string). One concrete type, so the EID maths throw a typed error,
/// which Embedded Swift requires.
public struct CipherFailure: Error, Sendable, CustomStringConvertible {
    /// What failed and why.
    public let reason: String

    public init(_ reason: String) { self.reason = reason }

    public var description: String { reason }
}

/// The Eddystone-EID computation (google/eddystone, eddystone-eid/eid-computation.md).
///
/// 1. Temporary key: AES-128(identity key, 11 × 0x00 ‖ 0xFF ‖ 0x00 0x00 ‖ time[31:24] ‖ time[23:16]).
/// 2. EID: the first 8 bytes of AES-128(temporary key, 11 × 0x00 ‖ K ‖ time with its low K bits
///    cleared, big-endian).
///
/// The beacon time is a 32-bit count of seconds kept by the box; the EID changes every 2^K s.
///
/// ```swift
/// let eid = try EphemeralIdentifier.compute(identityKey: key, exponent: 9, time: 1_258_098_495,
///                                           cipher: OpenSSLAES128())
/// ```
public enum EphemeralIdentifier {
    /// Parses a 16-byte identity key from hex (an optional `0x` prefix).
    public static func identityKey(hex: some StringProtocol) throws(TokenError) -> [UInt8] {
        let key = try Hex.parse(hex)
        guard key.count == 16 else { throw .wrongKeyLength(count: key.count) }
        return key
    }

    /// The largest rotation exponent the Eddystone spec allows (2^15 s ≈ 9 hours).
    public static let maximumExponent = 15

    /// Computes the 8-byte EID for `time` as a token.
    public static func compute(
        identityKey: [UInt8], exponent: Int, time: UInt32, cipher: some BlockCipher128
    ) throws(CipherFailure) -> Token {
        let key = try temporaryKey(identityKey: identityKey, time: time, cipher: cipher)
        return try compute(temporaryKey: key, exponent: exponent, time: time, cipher: cipher)
    }

    /// The temporary key, which changes only every 2^16 s of beacon time (its input holds just
    /// the top 16 bits of the time), so a resolver can compute it once for many epochs.
    public static func temporaryKey(identityKey: [UInt8], time: UInt32, cipher: some BlockCipher128) throws(CipherFailure) -> [UInt8] {
        precondition(identityKey.count == 16, "an Eddystone identity key is 16 bytes")
        var keyData = [UInt8](repeating: 0, count: 16)
        keyData[11] = 0xFF
        keyData[14] = UInt8(truncatingIfNeeded: time >> 24)
        keyData[15] = UInt8(truncatingIfNeeded: time >> 16)
        return try cipher.encrypt(block: keyData, key: identityKey)
    }

    /// The EID for `time` from the temporary key of the same 2^16-second span.
    public static func compute(
        temporaryKey: [UInt8], exponent: Int, time: UInt32, cipher: some BlockCipher128
    ) throws(CipherFailure) -> Token {
        precondition((0...maximumExponent).contains(exponent), "rotation exponent must be 0...15")
        let quantised = epochStart(time: time, exponent: exponent)
        var eidData = [UInt8](repeating: 0, count: 16)
        eidData[11] = UInt8(exponent)
        eidData[12] = UInt8(truncatingIfNeeded: quantised >> 24)
        eidData[13] = UInt8(truncatingIfNeeded: quantised >> 16)
        eidData[14] = UInt8(truncatingIfNeeded: quantised >> 8)
        eidData[15] = UInt8(truncatingIfNeeded: quantised)
        let block = try cipher.encrypt(block: eidData, key: temporaryKey)
        guard block.count == 16 else { throw CipherFailure("the cipher returned \(block.count) bytes, not one 16-byte block") }
        var packed: UInt64 = 0
        for byte in block.prefix(8) { packed = packed << 8 | UInt64(byte) }
        return Token(kind: .eid, packed: packed, count: 8)!   // 8 bytes always make an EID
    }

    /// The beacon time at which the epoch containing `time` began (its low K bits cleared).
    public static func epochStart(time: UInt32, exponent: Int) -> UInt32 {
        time & ~((UInt32(1) << UInt32(exponent)) &- 1)
    }

    /// The beacon time at which the next EID takes over, or nil when it would pass 2^32.
    public static func nextEpoch(time: UInt32, exponent: Int) -> UInt32? {
        let next = UInt64(epochStart(time: time, exponent: exponent)) + (UInt64(1) << UInt64(exponent))
        return next <= UInt64(UInt32.max) ? UInt32(next) : nil
    }
}
