import HTTPTypes
import Hummingbird

/// The headers every answer of the hub carries, whatever it is (a page, a script, the decoder,
/// the API's JSON, an error, a redirect, a 404) and on either listener (the HTTPS one and the
/// plain-HTTP redirect beside it): one list, so no route can forget them.
///
/// - `Content-Security-Policy`: the hub's pages run only the hub's own script files and its
///   WebAssembly decoder, nothing inline, nothing from elsewhere. What each directive is for:
///   `script-src 'self' 'wasm-unsafe-eval'`: the page's modules, the AudioWorklet's module (worklets
///   are governed by `script-src`) and compiling `nearcast-modem.wasm` (Chromium refuses
///   `WebAssembly.instantiate` without it, in a page and in a dedicated worker, whose policy is the
///   one its own script was served with: these headers). `style-src 'self'`: the stylesheets;
///   scripts may still set `element.style` (the CSSOM is not inline style). `img-src 'self' data:
///   blob:`: the slides and reaction images, the favicon (`data:,`) and the presenter page's images
///   fetched with its key and shown as `blob:` URLs. `connect-src 'self'`: fetch and EventSource to
///   this hub only; a hub's page with `?hub=` naming another hub is refused (a link that sends a
///   hub's page to another server is a phishing aid; a page meant for another hub is served from a
///   static host, which sends its own headers). `worker-src 'self'`: the decoder's and the phone
///   id's workers are files. `frame-ancestors 'none'`: no other site frames a page (the presenter's
///   page holds the secret key).
/// - `X-Frame-Options: DENY`: the same for browsers that predate `frame-ancestors`.
/// - `X-Content-Type-Options: nosniff`: a browser takes every answer as the type it is sent as.
/// - `Referrer-Policy: no-referrer`: a page's address may hold `?key=`; no link or request sends it on.
///
/// None of them touches CORS: a script on another origin calling the API reads the answer as before.
enum SecurityHeaders {
    static let contentSecurityPolicy = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self'; "
        + "img-src 'self' data: blob:; connect-src 'self'; worker-src 'self'; object-src 'none'; base-uri 'none'; "
        + "form-action 'self'; frame-ancestors 'none'"

    static let fields: HTTPFields = [
        HTTPField.Name("Content-Security-Policy")!: contentSecurityPolicy,
        HTTPField.Name("X-Frame-Options")!: "DENY",
        HTTPField.Name("X-Content-Type-Options")!: "nosniff",
        HTTPField.Name("Referrer-Policy")!: "no-referrer",
    ]

    /// `response` with the headers set (replacing any a route set itself, so there is one value of each).
    static func applied(to response: Response) -> Response {
        var response = response
        for field in fields { response.headers[field.name] = field.value }
        return response
    }
}

/// Outermost of the router's middleware: sets ``SecurityHeaders`` on every answer, the
/// refusals included. A refusal is thrown (an ``APIError``, or the framework's 404 turned into
/// one by ``UnexpectedErrorMiddleware``) and becomes a response only after the middleware, so it
/// is turned into its response here to carry the headers too.
struct SecurityHeadersMiddleware: RouterMiddleware {
    typealias Context = HubRequestContext

    func handle(_ request: Request, context: Context,
                next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return SecurityHeaders.applied(to: try await next(request, context))
        } catch let error as any HTTPResponseError {
            return SecurityHeaders.applied(to: try error.response(from: request, context: context))
        }
    }
}
