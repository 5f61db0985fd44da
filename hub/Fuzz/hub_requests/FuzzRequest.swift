import Foundation
import HTTPTypes

/// A request made from fuzz bytes: a route of the hub (its method and path template), its path
/// parameters, its query, its key and its body.
struct FuzzRequest: Sendable, CustomStringConvertible {
    var method: HTTPRequest.Method
    var uri: String
    var key: String?
    var body: [UInt8]

    /// Every route that answers and ends (the two event streams, `attachments:watch` and
    /// `shows/{beacon}/events`, stay open by design and are left to test_watch_grant.py).
    static let routes: [(HTTPRequest.Method, String)] = [
        (.get, "/v1beta1/eidparams"), (.post, "/v1beta1/beacons:register"), (.get, "/v1beta1/beacons"),
        (.get, "/v1beta1/beacons/{1}"), (.delete, "/v1beta1/beacons/{1}"), (.post, "/v1beta1/beacons/{1}/heartbeat"),
        (.post, "/v1beta1/beacons/{1}/attachments"), (.get, "/v1beta1/beacons/{1}/attachments"),
        (.delete, "/v1beta1/beacons/{1}/attachments/{2}"), (.post, "/v1beta1/beacons/{1}/attachments:batchDelete"),
        (.post, "/v1beta1/beaconinfo:getforobserved"), (.post, "/v1/decks"), (.get, "/v1/decks"), (.get, "/v1/decks/{1}"),
        (.delete, "/v1/decks/{1}"), (.get, "/v1/decks/{1}/pages/{2}"), (.put, "/v1/shows/{1}"), (.get, "/v1/shows/{1}"),
        (.delete, "/v1/shows/{1}"), (.get, "/v1/shows/{1}/qr.svg"), (.get, "/v1/reactions/choices"),
        (.put, "/v1/reactions/choices"), (.get, "/v1/reactions/images/{1}"), (.post, "/v1/reactions"),
        (.post, "/v1/presence"), (.get, "/j/{1}"), (.put, "/v1/shows/{1}/code"), (.get, "/v1/phones/challenge"),
        (.post, "/v1/phones"), (.put, "/v1/schedule"), (.get, "/v1/schedule"), (.get, "/v1/rooms"), (.put, "/v1/rooms/{1}"),
        (.get, "/v1/talks"), (.delete, "/v1/schedule/source"), (.get, "/upload/{1}"), (.post, "/upload/{1}"),
        (.get, "/upload/{1}/reactions.csv"), (.get, "/upload/{1}/reactions.json"), (.post, "/v1/reach"), (.get, "/v1/reach"),
        (.get, "/healthz"), (.get, "/{1}"), (.post, "/{1}"),
    ]

    init(method: HTTPRequest.Method, uri: String, key: String?, body: [UInt8]) {
        self.method = method
        self.uri = uri
        self.key = key
        self.body = body
    }

    init(_ bytes: [UInt8], world: World) {
        let (method, template) = Self.routes[Int(bytes[0]) % Self.routes.count]
        var fields = bytes.dropFirst().split(separator: 0xFF, maxSplits: 4, omittingEmptySubsequences: false)
            .map { Array($0) }
        while fields.count < 5 { fields.append([]) }
        let path = template.replacingOccurrences(of: "{1}", with: Self.escaped(fields[0], keeping: "!/"))
            .replacingOccurrences(of: "{2}", with: Self.escaped(fields[1], keeping: "!"))
        var query = Self.escaped(fields[2], keeping: "=&")
        var key: String?
        let keyField = fields[3]
        switch keyField.first.map({ $0 % 5 }) {
        case 1: key = world.keys.apiKey
        case 2: key = world.keys.secretKey
        case 3: key = String(decoding: keyField.dropFirst().filter { (0x21...0x7E).contains($0) }, as: UTF8.self)
        case 4: query += (query.isEmpty ? "" : "&") + "key=" + Self.escaped(Array(keyField.dropFirst()), keeping: "")
        default: break
        }
        self.init(method: method, uri: path + (query.isEmpty ? "" : "?" + query), key: key, body: fields[4])
    }

    /// Percent-encodes every byte but the unreserved characters and `keeping`: the URI parses,
    /// and the hub sees the bytes after decoding.
    static func escaped(_ bytes: [UInt8], keeping: String) -> String {
        let kept = Set(keeping.utf8)
        var text = ""
        for byte in bytes {
            let unreserved = (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
                || byte == 0x2D || byte == 0x2E || byte == 0x5F || byte == 0x7E
            if unreserved || kept.contains(byte) {
                text.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                let digits = Array("0123456789ABCDEF".unicodeScalars)
                text.unicodeScalars.append("%")
                text.unicodeScalars.append(digits[Int(byte >> 4)])
                text.unicodeScalars.append(digits[Int(byte & 0xF)])
            }
        }
        return text
    }

    var description: String {
        let shownBody = String(decoding: body.prefix(200), as: UTF8.self)
        return "\(method) \(uri)\(key.map { " key \($0.prefix(12))" } ?? "") body \(shownBody.debugDescription)"
    }
}
