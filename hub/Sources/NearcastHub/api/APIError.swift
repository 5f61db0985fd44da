import Foundation
import HTTPTypes
import Hummingbird

/// An error answered to a client, in the Proximity Beacon API's shape:
/// `{"error": {"code": 400, "message": "...", "status": "INVALID_ARGUMENT", "field": "advertisedId.id"}}`.
///
/// Everything a request can do wrong ends here, as a 4xx that names what and where; nothing is
/// stored by a request that fails. `field` is Nearcast's addition: the JSON path of the bad value.
public struct APIError: Error, HTTPResponseError, CustomStringConvertible {
    public let status: HTTPResponse.Status
    public let message: String
    public let field: String?
    /// For a 429: how long to wait, sent as Retry-After.
    public var retryAfterSeconds: Int?

    public init(_ status: HTTPResponse.Status, _ message: String, field: String? = nil) {
        self.status = status
        self.message = message
        self.field = field
    }

    /// A 429: past a rate limit, with how long to wait.
    public static func tooMany(_ message: String, retryAfter seconds: Int) -> APIError {
        var error = APIError(.tooManyRequests, message)
        error.retryAfterSeconds = seconds
        return error
    }

    public static func invalid(_ field: String, _ message: String) -> APIError {
        APIError(.badRequest, "\(field): \(message)", field: field)
    }
    public static func notFound(_ what: String) -> APIError { APIError(.notFound, "\(what) not found") }
    public static let unauthenticated = APIError(
        .unauthorized, "an API key is needed: send it in the X-Api-Key header or the key query parameter")
    public static let wrongKey = APIError(.forbidden, "the API key is not valid for this call")

    public var description: String { "\(status.code) \(message)" }

    /// Google's canonical status names, which clients of the Proximity Beacon API switch on.
    var canonicalStatus: String {
        switch status.code {
        case 400, 413: return "INVALID_ARGUMENT"
        case 401: return "UNAUTHENTICATED"
        case 403: return "PERMISSION_DENIED"
        case 404: return "NOT_FOUND"
        case 409: return "ALREADY_EXISTS"
        case 429, 507: return "RESOURCE_EXHAUSTED"
        case 503: return "UNAVAILABLE"
        default: return status.code >= 500 ? "INTERNAL" : "FAILED_PRECONDITION"
        }
    }

    public func response(from request: Request, context: some RequestContext) throws -> Response {
        var error: [String: Any] = ["code": Int(status.code), "message": message, "status": canonicalStatus]
        if let field { error["field"] = field }
        let body = try JSONSerialization.data(withJSONObject: ["error": error], options: [.sortedKeys])
        var headers: HTTPFields = [.contentType: "application/json; charset=utf-8", .cacheControl: "no-store"]
        if let retryAfterSeconds { headers[.retryAfter] = String(retryAfterSeconds) }
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: body)))
    }
}

extension APIError {
    /// Turns a JSONDecoder failure into a 400 that names the field by its JSON path.
    static func from(_ error: DecodingError) -> APIError {
        func path(_ codingPath: [any CodingKey], _ last: (any CodingKey)? = nil) -> String {
            let keys = codingPath + (last.map { [$0] } ?? [])
            let text = keys.map { key in key.intValue.map { "[\($0)]" } ?? ".\(key.stringValue)" }.joined()
            return text.hasPrefix(".") ? String(text.dropFirst()) : (text.isEmpty ? "(body)" : text)
        }
        switch error {
        case .keyNotFound(let key, let context):
            return .invalid(path(context.codingPath, key), "is required")
        case .typeMismatch(let type, let context):
            return .invalid(path(context.codingPath), "must be \(jsonName(type))")
        case .valueNotFound(let type, let context):
            return .invalid(path(context.codingPath), "must be \(jsonName(type)), not null")
        case .dataCorrupted(let context):
            if context.codingPath.isEmpty {
                return APIError(.badRequest, "the body is not valid JSON", field: "(body)")
            }
            return .invalid(path(context.codingPath), context.debugDescription)
        @unknown default:
            return APIError(.badRequest, "the body could not be read")
        }
    }

    private static func jsonName(_ type: Any.Type) -> String {
        switch type {
        case is String.Type: return "a string"
        case is Int.Type, is Int64.Type, is UInt32.Type, is Int32.Type: return "an integer"
        case is Bool.Type: return "true or false"
        case is Double.Type: return "a number"
        default:
            let name = String(describing: type)
            if name.hasPrefix("Array") { return "a list" }
            if name.hasPrefix("Dictionary") { return "an object" }
            return "an object"
        }
    }
}
