import Hummingbird

/// Every request's first check: 429 with Retry-After past its client address's rate for its
/// class of caller (`CallerClass`: the presenter, the audience, keyless), before its body is read.
struct AddressRateMiddleware: RouterMiddleware {
    typealias Context = HubRequestContext

    let keys: KeyChecker

    func handle(_ request: Request, context: Context,
                next: (Request, Context) async throws -> Response) async throws -> Response {
        guard keys.limiter.settings.enabled else { return try await next(request, context) }
        let caller = await keys.callerClass(of: request, address: context.remoteAddress)
        try keys.limiter.admitRequest(from: context.remoteAddress, as: caller)
        return try await next(request, context)
    }
}
