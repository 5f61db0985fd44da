import HTTPTypes
import Hummingbird

/// Sets the request's client address (`HubRequestContext.remoteAddress`, which every
/// per-address rule reads) and scheme: from a trusted proxy (`TrustedProxies`), the address its
/// `X-Forwarded-For` names and its `X-Forwarded-Proto`; from any other peer, the peer, and those
/// headers are ignored. Before every middleware that counts by address.
struct ClientAddressMiddleware: RouterMiddleware {
    typealias Context = HubRequestContext

    let trusted: TrustedProxies

    static let forwardedFor = HTTPField.Name("X-Forwarded-For")!
    static let forwardedProto = HTTPField.Name("X-Forwarded-Proto")!

    func handle(_ request: Request, context: Context,
                next: (Request, Context) async throws -> Response) async throws -> Response {
        guard trusted.trusts(context.peerAddress) else { return try await next(request, context) }
        var context = context
        context.remoteAddress = trusted.clientAddress(peer: context.peerAddress, forwardedFor: request.headers[values: Self.forwardedFor])
        if let scheme = request.headers[Self.forwardedProto], scheme == "https" || scheme == "http" {
            context.forwardedScheme = scheme
        }
        return try await next(request, context)
    }
}
