import Foundation
import HTTPTypes
import Hummingbird

/// What routes read from a request: its key and its beacon name.
enum RequestSupport {
    /// Bodies larger than this are refused before they are read: an attachment's 100 KiB of
    /// data is about 137 KB in base64, plus its type.
    static let maximumBodyBytes = 256 * 1024

    static let apiKeyHeader = HTTPField.Name("X-Api-Key")!

    /// The key from `X-Api-Key` or `?key=`, as Google's API took it (the secret key only from
    /// the header: `KeyChecker` refuses it from an address).
    static func key(of request: Request) -> String? {
        if let header = request.headers[apiKeyHeader], !header.isEmpty { return header }
        if let query = request.uri.queryParameters["key"], !query.isEmpty { return String(query) }
        return nil
    }

    /// Whether the key `key(of:)` reads came from the address (`?key=`), not the header.
    static func keyIsInAddress(_ request: Request) -> Bool {
        (request.headers[apiKeyHeader] ?? "").isEmpty && !(request.uri.queryParameters["key"] ?? "").isEmpty
    }

    /// The header a phone sends its id in (`PhoneIDs`), so the limits give it a budget of its own.
    static let phoneHeader = HTTPField.Name("X-Nearcast-Phone")!

    /// The header a phone names a tap with, so that the tap sent again is counted once
    /// (`ReactionBatch`): the IETF's `Idempotency-Key` (draft-ietf-httpapi-idempotency-key-header).
    static let tapHeader = HTTPField.Name("Idempotency-Key")!

    /// The longest tap key taken: a UUID is 36 characters.
    static let tapKeyLimit = 64

    /// The tap's key from `Idempotency-Key`, nil without one; a 400 naming the header for one that
    /// is empty, too long, or holds anything but letters, digits and `-_.:+/=~`. The draft's form
    /// is a quoted string (`"8e03978e-…"`); the bare value, as clients often send it, is the same key.
    static func tap(of request: Request) throws(APIError) -> String? {
        guard let raw = request.headers[tapHeader] else { return nil }
        var value = Substring(raw)
        if value.count >= 2, value.first == "\"", value.last == "\"" { value = value.dropFirst().dropLast() }
        guard (1...tapKeyLimit).contains(value.utf8.count),
              value.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0)
                                      || "-_.:+/=~".utf8.contains($0) })
        else {
            throw APIError.invalid("Idempotency-Key", "a tap's key is 1 to \(tapKeyLimit) letters, digits or -_.:+/=~ "
                                   + "(a UUID, say), optionally in double quotes; got '\(raw.prefix(80))'")
        }
        return String(value)
    }

    /// The phone id from `X-Nearcast-Phone` or `?phone=` (an event stream cannot set headers).
    static func phone(of request: Request) -> String? {
        if let header = request.headers[phoneHeader], !header.isEmpty { return header }
        if let query = request.uri.queryParameters["phone"], !query.isEmpty { return String(query) }
        return nil
    }

    /// `beacons/N!hex` from the route's `:beacon` (`N!hex`); anything else is a 400.
    static func beaconName(_ context: some RequestContext) throws -> String {
        // A client that escapes the "!" (`4%214f…`, as encodeURIComponent-style encoders may) means the same.
        let raw = context.parameters.get("beacon") ?? ""
        return try beaconName(id: raw.removingPercentEncoding ?? raw)
    }

    /// `beacons/N!hex` from `N!hex` (a path's, or a body's name after `beacons/`); anything else
    /// is a 400 naming `beaconName`.
    static func beaconName(id: String) throws(APIError) -> String {
        let parts = id.split(separator: "!", omittingEmptySubsequences: false)
        guard parts.count == 2, parts[0] == "3" || parts[0] == "4", !parts[1].isEmpty, parts[1].count <= 32,
              parts[1].allSatisfy({ $0.isHexDigit && !$0.isUppercase })
        else {
            throw APIError(.badRequest, "beaconName beacons/\(id) must be beacons/3!HEX (Eddystone) or beacons/4!HEX (EID), lowercase hex",
                           field: "beaconName")
        }
        return "beacons/" + id
    }

    /// Free text a client gives and the hub stores and shows (a beacon's description, a deck's
    /// title): at most `characters` characters and four bytes each, no control character
    /// but tab and line breaks, and nothing that looks blank but white space and an emoji's own
    /// joiners and selectors (`VisibleText`: the hub's one rule), nor only white space. U+0000 in
    /// particular: PostgreSQL's text cannot hold it (the insert failed, a 500) and SQLite's reads
    /// cut the text there.
    static func checkFreeText(_ value: String, field: String, characters: Int) throws(APIError) {
        guard value.count <= characters, value.utf8.count <= characters * 4 else {
            throw APIError.invalid(field, "is longer than \(characters) characters")
        }
        if let control = value.unicodeScalars.first(where: {
            ($0.value < 0x20 && $0 != "\t" && $0 != "\n" && $0 != "\r") || (0x7F...0x9F).contains($0.value)
        }) {
            throw APIError.invalid(field, "holds the control character \(codePoint(control))")
        }
        if let hidden = VisibleText.firstHidden(in: value) {
            let name = hidden.properties.name.map { " " + $0 } ?? ""
            throw APIError.invalid(field, "holds \(codePoint(hidden))\(name), which shows as nothing or as blank space")
        }
        guard !VisibleText.looksEmpty(value) else {
            throw APIError.invalid(field, "holds no visible character")
        }
    }

    /// `U+00AD`: a code point as Unicode writes it (at least four hex digits).
    static func codePoint(_ scalar: Unicode.Scalar) -> String {
        let code = String(scalar.value, radix: 16, uppercase: true)
        return "U+" + String(repeating: "0", count: max(0, 4 - code.count)) + code
    }
}
