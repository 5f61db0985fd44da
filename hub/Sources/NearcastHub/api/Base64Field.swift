import Foundation

/// Base64 values in request bodies: standard base64 as Google's API used, URL-safe accepted too,
/// padding optional. Only the canonical spelling of a value: no padding beyond what the length
/// needs (`AA=====`), no stray bits in the last character (`AB==` for the byte `AA==` holds), so
/// one value has one spelling. A bad value is a 400 naming its field.
enum Base64Field {
    static func decode(_ text: String, field: String) throws(APIError) -> [UInt8] {
        var unpadded = Substring(text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/"))
        var padding = 0
        while unpadded.last == "=" { unpadded.removeLast(); padding += 1 }
        var normalised = String(unpadded)
        while normalised.utf8.count % 4 != 0 { normalised += "=" }
        guard padding <= 2, unpadded.utf8.count % 4 != 1, let data = Data(base64Encoded: normalised) else {
            throw APIError.invalid(field, "is not base64")
        }
        // Padding, if any, must be exactly what the length needs; and re-encoding must give back
        // the same characters (this refuses non-zero bits after the last byte).
        let canonical = data.base64EncodedString()
        guard padding == 0 || normalised.utf8.count == unpadded.utf8.count + padding,
              canonical.prefix(while: { $0 != "=" }) == unpadded
        else {
            throw APIError.invalid(field, "is not canonical base64 (extra padding, or bits set past the last byte)")
        }
        return [UInt8](data)
    }

    static func decode(_ text: String, field: String, count: Int) throws(APIError) -> [UInt8] {
        let bytes = try decode(text, field: field)
        guard bytes.count == count else {
            throw APIError.invalid(field, "must be \(count) bytes in base64 (got \(bytes.count))")
        }
        return bytes
    }

    static func encode(_ bytes: some Sequence<UInt8>) -> String { Data(bytes).base64EncodedString() }
}
