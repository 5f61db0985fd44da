import Foundation

/// The hub's JSON as text on the wire and in its events: keys sorted, slashes unescaped.
package enum JSONText {
    package static func encode(_ value: some Encodable) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(value)
    }
}
