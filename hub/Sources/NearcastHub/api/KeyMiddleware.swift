import Hummingbird

/// The key check for a group of routes: the caller as `AddressRateMiddleware` already found it
/// (or found now, with the limits off), put in the context; 401 without a key, 403 with an
/// unknown one or with a public key (or pass) where the secret key is needed; 429 past the key's
/// request rate.
struct KeyMiddleware: RouterMiddleware {
    typealias Context = HubRequestContext

    /// What the routes behind it need.
    enum Need: Sendable {
        /// The public key, a pass or the secret key.
        case read
        /// The secret key.
        case manage
    }

    let keys: KeyChecker
    let need: Need

    func handle(_ request: Request, context: Context,
                next: (Request, Context) async throws -> Response) async throws -> Response {
        var context = context
        let access = try await keys.access(request, context: context, manage: need == .manage)
        try keys.limiter.admitRequest(access)
        context.access = access
        return try await next(request, context)
    }
}

extension KeyChecker {
    /// Routes behind the key check: `.read` takes any of the project's keys or a pass,
    /// `.manage` the secret key.
    func group(_ routes: RouteCollection<HubRequestContext>, _ need: KeyMiddleware.Need) -> RouterGroup<HubRequestContext> {
        routes.group().add(middleware: KeyMiddleware(keys: self, need: need))
    }
}
