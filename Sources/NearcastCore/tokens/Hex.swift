/// Hex text to bytes and back, without Foundation.
public enum Hex {
    /// Parses 1 to 8 bytes of hex (an optional `0x` prefix, case-insensitive) into a packed
    /// big-endian value and its byte count.
    public static func parseUInt64(_ text: some StringProtocol) throws(TokenError) -> (value: UInt64, count: Int) {
        let bytes = try parse(text)
        guard (1...8).contains(bytes.count) else { throw .invalidHex(String(text)) }
        var value: UInt64 = 0
        for byte in bytes { value = value << 8 | UInt64(byte) }
        return (value, bytes.count)
    }

    /// Parses any even number of hex digits (an optional `0x` prefix) into bytes.
    public static func parse(_ text: some StringProtocol) throws(TokenError) -> [UInt8] {
        var digits = Substring(text)
        if digits.hasPrefix("0x") || digits.hasPrefix("0X") { digits = digits.dropFirst(2) }
        let utf8 = Array(digits.utf8)
        guard !utf8.isEmpty, utf8.count % 2 == 0 else { throw .invalidHex(String(text)) }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(utf8.count / 2)
        var index = 0
        while index < utf8.count {
            guard let high = digitValue(utf8[index]), let low = digitValue(utf8[index + 1]) else {
                throw .invalidHex(String(text))
            }
            bytes.append(high << 4 | low)
            index += 2
        }
        return bytes
    }

    /// Formats the low `byteCount` bytes of `value` as lower-case hex.
    public static func format(_ value: UInt64, byteCount: Int) -> String {
        var text = ""
        text.reserveCapacity(byteCount * 2)
        for index in stride(from: byteCount - 1, through: 0, by: -1) {
            let byte = UInt8(truncatingIfNeeded: value >> UInt64(index * 8))
            text.unicodeScalars.append(digit(byte >> 4))
            text.unicodeScalars.append(digit(byte & 0xF))
        }
        return text
    }

    /// Formats bytes as lower-case hex.
    public static func format(_ bytes: some Sequence<UInt8>) -> String {
        var text = ""
        for byte in bytes {
            text.unicodeScalars.append(digit(byte >> 4))
            text.unicodeScalars.append(digit(byte & 0xF))
        }
        return text
    }

    /// The value of one ASCII hex digit, or nil for any other byte.
    public static func digitValue(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return c - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return c - UInt8(ascii: "A") + 10
        default: return nil
        }
    }

    private static func digit(_ n: UInt8) -> Unicode.Scalar {
        Unicode.Scalar(n < 10 ? UInt8(ascii: "0") + n : UInt8(ascii: "a") + n - 10)
    }
}
