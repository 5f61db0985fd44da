import Hummingbird

/// CORS for the API (`/v1beta1/...` and Present's `/v1/...`) only: the listener page may be served from elsewhere and
/// call this hub (`?hub=`), so any origin may call the API. Nothing rides on cookies (keys are
/// sent explicitly), so this opens nothing a script could not already do with the key. The
/// hub's own pages, `/healthz` and `/metrics` stay same-origin: a web page on another site
/// cannot read a LAN hub's metrics.
struct APICORSMiddleware: RouterMiddleware {
    typealias Context = HubRequestContext

    private let cors = CORSMiddleware<HubRequestContext>(
        allowOrigin: .all, allowHeaders: [.contentType, RequestSupport.apiKeyHeader, RequestSupport.phoneHeader, RequestSupport.tapHeader],
        allowMethods: [.get, .post, .put, .delete, .options], maxAge: .seconds(600))

    func handle(_ request: Request, context: Context,
                next: (Request, Context) async throws -> Response) async throws -> Response {
        guard request.uri.path.hasPrefix("/v1beta1/") || request.uri.path.hasPrefix("/v1/") else { return try await next(request, context) }
        return try await cors.handle(request, context: context, next: next)
    }
}
