import Hummingbird

/// Every request's first check: 429 with Retry-After past its client address's rate, before
/// its key is looked up or its body read.
struct AddressRateMiddleware: RouterMiddleware {
    typealias Context = HubRequestContext

    let limiter: HubLimiter

    func handle(_ request: Request, context: Context,
                next: (Request, Context) async throws -> Response) async throws -> Response {
        try limiter.admitRequest(from: context.remoteAddress)
        return try await next(request, context)
    }
}
