import HTTPTypes
import Hummingbird

/// The listener page: `GET /listen?key=API_KEY` (and the field check's, `GET /check?key=API_KEY`)
/// and their files beside it (`/listener.js`,
/// `/nearcast-modem.wasm`, ..., and `/decode.html`, which decodes a recording in the browser),
/// and `/listener-hub.json`, which tells the page that this origin is its hub.
///
/// Every file is sent with the headers that make the page cross-origin isolated
/// (`Cross-Origin-Opener-Policy: same-origin`, `Cross-Origin-Embedder-Policy: require-corp`):
/// without them a browser gives the page no SharedArrayBuffer, which carries the microphone's
/// samples from the AudioWorklet to the decoder's Worker. (`nosniff`, the CSP and the framing
/// refusal are on every answer of the hub: `SecurityHeaders`.)
struct ListenerController: Sendable {
    static let isolation: HTTPFields = [
        HTTPField.Name("Cross-Origin-Opener-Policy")!: "same-origin",
        HTTPField.Name("Cross-Origin-Embedder-Policy")!: "require-corp",
        HTTPField.Name("Cross-Origin-Resource-Policy")!: "same-origin",
    ]

    /// The pages' files; nil when the hub serves none (`/listen` then says how to build them).
    let listener: ListenerFiles?

    var endpoints: RouteCollection<HubRequestContext> {
        let router = RouteCollection(context: HubRequestContext.self)
        guard let listener else {
            router.get("/listen") { _, _ in
                Response(status: .notFound, headers: [.contentType: "text/plain; charset=utf-8"],
                         body: .init(byteBuffer: ByteBuffer(string: "This hub serves no listener page: build it with "
                             + "tools/setup/build-web, or start the hub with --listener DIR.\n")))
            }
            return router
        }
        for (name, file) in listener.files {
            let response = { @Sendable (_: Request, _: HubRequestContext) -> Response in
                var headers = Self.isolation
                headers[.contentType] = file.contentType
                headers[.cacheControl] = "no-cache"
                return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: file.bytes)))
            }
            router.get(RouterPath("/" + name), use: response)
            if name == "listen.html" { router.get("/listen", use: response) }
            if name == "present.html" { router.get("/present", use: response) }
            if name == "check.html" { router.get("/check", use: response) }
        }
        // Tells the page it came from a hub, so it asks this origin (a static copy has no such file).
        router.get("/listener-hub.json") { _, _ in
            var headers = Self.isolation
            headers[.contentType] = "application/json"
            headers[.cacheControl] = "no-cache"
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: #"{"servedByHub":true}"#)))
        }
        return router
    }
}
