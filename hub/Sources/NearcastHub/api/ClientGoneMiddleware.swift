import HTTPTypes
import Hummingbird
import NIOCore
import NIOHTTP1

/// Inside the metrics middleware: a request whose client went away before it was read (a body
/// cut short, a closed connection) is counted as 499 Client Closed Request, nginx's name for
/// it, not as a 500: the hub did nothing wrong, and a dashboard's error rate should not say so.
struct ClientGoneMiddleware: RouterMiddleware {
    typealias Context = HubRequestContext

    static let clientClosedRequest = HTTPResponse.Status(code: 499, reasonPhrase: "Client Closed Request")

    func handle(_ request: Request, context: Context,
                next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error where Self.isClientGone(error) {
            throw APIError(Self.clientClosedRequest, "the client closed the connection before the request was read")
        }
    }

    /// Errors that mean the connection closed under the request, not a fault of the hub's.
    static func isClientGone(_ error: any Error) -> Bool {
        if error is any HTTPResponseError { return false }
        // HTTPParserError: the connection ended in the middle of a body (llhttp's invalid EOF state).
        if error is CancellationError || error is ChannelError || error is IOError || error is HTTPParserError { return true }
        // Hummingbird's own "the request body ended early" and "unexpected part" errors.
        let name = String(describing: type(of: error))
        return name.contains("HTTPChannelError") || name.contains("RequestBody")
    }
}
