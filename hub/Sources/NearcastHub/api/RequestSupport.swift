import Foundation
import HTTPTypes
import Hummingbird

/// What routes read from a request: its key and its beacon name.
enum RequestSupport {
    /// Bodies larger than this are refused before they are read: an attachment's 100 KiB of
    /// data is about 137 KB in base64, plus its type.
    static let maximumBodyBytes = 256 * 1024

    static let apiKeyHeader = HTTPField.Name("X-Api-Key")!

    /// The key from `X-Api-Key` or `?key=`, as Google's API took it.
    static func key(of request: Request) -> String? {
        if let header = request.headers[apiKeyHeader], !header.isEmpty { return header }
        if let query = request.uri.queryParameters["key"], !query.isEmpty { return String(query) }
        return nil
    }

    /// `beacons/N!hex` from the route's `:beacon` (`N!hex`); anything else is a 400.
    static func beaconName(_ context: some RequestContext) throws -> String {
        // A client that escapes the "!" (`4%214f…`, as encodeURIComponent-style encoders may) means the same.
        let raw = context.parameters.get("beacon") ?? ""
        let id = raw.removingPercentEncoding ?? raw
        let parts = id.split(separator: "!", omittingEmptySubsequences: false)
        guard parts.count == 2, parts[0] == "3" || parts[0] == "4", !parts[1].isEmpty, parts[1].count <= 32,
              parts[1].allSatisfy({ $0.isHexDigit && !$0.isUppercase })
        else {
            throw APIError(.badRequest, "beaconName beacons/\(id) must be beacons/3!HEX (Eddystone) or beacons/4!HEX (EID), lowercase hex",
                           field: "beaconName")
        }
        return "beacons/" + id
    }
}
