/// A token as it travels over audio or BLE: a kind and up to 8 payload bytes.
///
/// Stored inline (no heap) so that tokens can move through the modem and scheduler on hot paths.
///
/// ```swift
/// let token = try Token(kind: .direct, hex: "0102030405060708")
/// token.hex        // "0102030405060708"
/// ```
public struct Token: Sendable, Hashable, CustomStringConvertible {
    /// The largest payload a token carries, in bytes.
    public static let maximumLength = 8

    /// What the payload means.
    public let kind: TokenKind
    /// Payload bytes packed big-endian into the low `count` bytes (byte 0 is the most significant).
    public let packed: UInt64
    /// Number of payload bytes, 1...8 (always 8 for EIDs).
    public let count: Int

    /// Makes a token from packed bytes; returns nil when the length does not suit the kind.
    public init?(kind: TokenKind, packed: UInt64, count: Int) {
        guard (1...Self.maximumLength).contains(count) else { return nil }
        if kind == .eid && count != 8 { return nil }
        if count < 8 && packed >> UInt64(count * 8) != 0 { return nil }
        self.kind = kind
        self.packed = packed
        self.count = count
    }

    /// Makes a token from a hex string (case-insensitive, an optional `0x` prefix).
    public init(kind: TokenKind, hex: some StringProtocol) throws(TokenError) {
        let parsed = try Hex.parseUInt64(hex)
        if kind == .eid && parsed.count != 8 {
            throw .wrongLength(kind: kind, count: parsed.count)
        }
        // parseUInt64 already guarantees 1...8 bytes.
        self.init(kind: kind, packed: parsed.value, count: parsed.count)!
    }

    /// Makes a token from bytes.
    public init(kind: TokenKind, bytes: some Collection<UInt8>) throws(TokenError) {
        guard (1...Self.maximumLength).contains(bytes.count) else {
            throw .wrongLength(kind: kind, count: bytes.count)
        }
        if kind == .eid && bytes.count != 8 { throw .wrongLength(kind: kind, count: bytes.count) }
        var value: UInt64 = 0
        for byte in bytes { value = value << 8 | UInt64(byte) }
        self.init(kind: kind, packed: value, count: bytes.count)!
    }

    /// Payload byte `index` (0 is the first).
    public subscript(index: Int) -> UInt8 {
        precondition(index >= 0 && index < count, "token byte index out of range")
        return UInt8(truncatingIfNeeded: packed >> UInt64((count - 1 - index) * 8))
    }

    /// The payload as lower-case hex, two digits a byte.
    public var hex: String { Hex.format(packed, byteCount: count) }

    /// The payload as an array of bytes.
    public var bytes: [UInt8] { (0..<count).map { self[$0] } }

    public var description: String { "\(kind) \(hex)" }
}
