import Foundation

/// Base64 values in request bodies: standard base64 as Google's API used, URL-safe accepted too,
/// padding optional. A bad value is a 400 naming its field.
enum Base64Field {
    static func decode(_ text: String, field: String) throws(APIError) -> [UInt8] {
        var normalised = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while normalised.count % 4 != 0 { normalised += "=" }
        guard let data = Data(base64Encoded: normalised) else {
            throw APIError.invalid(field, "is not base64")
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
