import Hummingbird

/// Every request's first check: 429 with Retry-After past its client address's rate for its
/// class of caller (`CallerClass`: the presenter, the audience, keyless), before its body is read.
struct AddressRateMiddleware: RouterMiddleware {
    typealias Context = HubRequestContext

    let hub: HubServices

    func handle(_ request: Request, context: Context,
                next: (Request, Context) async throws -> Response) async throws -> Response {
        guard hub.limiter.settings.enabled else { return try await next(request, context) }
        let caller = await hub.callerClass(of: request, address: context.remoteAddress)
        try hub.limiter.admitRequest(from: context.remoteAddress, as: caller)
        return try await next(request, context)
    }
}
