import Foundation
import NIOCore
import HTTPTypes
import Hummingbird

/// What every route needs from a request: its key, its JSON body, its beacon name; and JSON out.
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

    static func decode<T: Decodable>(_ type: T.Type, from request: Request) async throws -> T {
        let buffer: ByteBuffer
        do {
            buffer = try await request.body.collect(upTo: maximumBodyBytes)
        } catch is NIOTooManyBytesError {
            throw APIError(.contentTooLarge, "the body is larger than \(maximumBodyBytes / 1024) KiB", field: "(body)")
        }
        guard buffer.readableBytes > 0 else { throw APIError(.badRequest, "a JSON body is needed", field: "(body)") }
        do {
            return try JSONDecoder().decode(T.self, from: Data(buffer.readableBytesView))
        } catch let error as DecodingError {
            throw APIError.from(error)
        }
    }

    static func json<T: Encodable>(_ value: T, status: HTTPResponse.Status = .ok) throws -> Response {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let data = try encoder.encode(value)
        return Response(status: status, headers: [.contentType: "application/json; charset=utf-8"],
                        body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }

    /// `beacons/N!hex` from the route's `:beacon` (`N!hex`); anything else is a 400.
    static func beaconName(_ context: some RequestContext) throws -> String {
        let id = context.parameters.get("beacon") ?? ""
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
