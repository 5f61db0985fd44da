import Hummingbird

/// Every request's first check: who it is (`KeyChecker.identify`, the key looked up once, kept
/// in the context for `KeyMiddleware`), then 429 with Retry-After past its client address's rate
/// for its class of caller (`CallerClass`: the presenter, the audience, keyless), before its
/// body is read.
struct AddressRateMiddleware: RouterMiddleware {
    typealias Context = HubRequestContext

    let keys: KeyChecker

    func handle(_ request: Request, context: Context,
                next: (Request, Context) async throws -> Response) async throws -> Response {
        guard keys.limiter.settings.enabled else { return try await next(request, context) }
        var context = context
        let identity = await keys.identify(request, address: context.remoteAddress)
        context.identity = identity
        try keys.limiter.admitRequest(from: context.remoteAddress, as: identity.callerClass)
        return try await next(request, context)
    }
}
