/// Standard base64 (RFC 4648 §4, with padding), as the hub's JSON carries keys, ids and data.
/// Decoding also takes the URL-safe alphabet and missing padding, and refuses anything else.
///
/// ```swift
/// Base64.encode([0x4e, 0x43])   // "TkM="
/// Base64.decode("TkM=")          // [0x4e, 0x43]
/// ```
public enum Base64 {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    public static func encode(_ bytes: some Collection<UInt8>) -> String {
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count + 2) / 3 * 4)
        var iterator = bytes.makeIterator()
        while let first = iterator.next() {
            let second = iterator.next(), third = iterator.next()
            let value = UInt32(first) << 16 | UInt32(second ?? 0) << 8 | UInt32(third ?? 0)
            out.append(alphabet[Int(value >> 18 & 63)])
            out.append(alphabet[Int(value >> 12 & 63)])
            out.append(second == nil ? UInt8(ascii: "=") : alphabet[Int(value >> 6 & 63)])
            out.append(third == nil ? UInt8(ascii: "=") : alphabet[Int(value & 63)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The bytes, or nil when `text` is not base64.
    public static func decode(_ text: some StringProtocol) -> [UInt8]? {
        var values: [UInt8] = []
        var padding = 0
        for byte in text.utf8 {
            if byte == UInt8(ascii: "=") {
                padding += 1
                continue
            }
            guard padding == 0, let value = sextet(byte) else { return nil }
            values.append(value)
        }
        // Padding only completes a final group of 2 or 3 characters; one character alone is
        // never a group.
        guard padding <= 2, values.count % 4 != 1,
              padding == 0 || (values.count % 4 != 0 && (values.count + padding) % 4 == 0) else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(values.count * 3 / 4)
        var index = 0
        while index < values.count {
            let chunk = values[index..<min(index + 4, values.count)]
            var accumulator: UInt32 = 0
            for value in chunk { accumulator = accumulator << 6 | UInt32(value) }
            accumulator <<= UInt32(6 * (4 - chunk.count))
            // The bits below the last whole byte must be zero (RFC 4648 §3.5: canonical only).
            let unused = UInt32(6 * chunk.count % 8)
            guard accumulator >> UInt32(6 * (4 - chunk.count)) & ((1 << unused) - 1) == 0 else { return nil }
            out.append(UInt8(truncatingIfNeeded: accumulator >> 16))
            if chunk.count > 2 { out.append(UInt8(truncatingIfNeeded: accumulator >> 8)) }
            if chunk.count > 3 { out.append(UInt8(truncatingIfNeeded: accumulator)) }
            index += 4
        }
        return out
    }

    private static func sextet(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): return byte - UInt8(ascii: "A")
        case UInt8(ascii: "a")...UInt8(ascii: "z"): return byte - UInt8(ascii: "a") + 26
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0") + 52
        case UInt8(ascii: "+"), UInt8(ascii: "-"): return 62
        case UInt8(ascii: "/"), UInt8(ascii: "_"): return 63
        default: return nil
        }
    }
}
