import HTTPTypes
import Hummingbird
import Logging

/// The plain-HTTP listener beside an HTTPS hub: every request, whatever its path or method, is
/// sent to the same address over HTTPS (308, so a POST stays a POST), the way Caddy's and
/// nginx's usual port-80 servers do. It serves nothing itself: a phone that typed the hub's
/// name lands on the page over HTTPS, where the browser gives it a microphone.
public struct HTTPSRedirect: HTTPResponder {
    public typealias Context = BasicRequestContext

    /// The HTTPS port the redirect points at (443 is left out of the address): asked per
    /// request, since with port 0 it is known only once the HTTPS server has bound one.
    let httpsPort: @Sendable () -> Int

    public init(httpsPort: @escaping @Sendable () -> Int) {
        self.httpsPort = httpsPort
    }

    public func respond(to request: Request, context: Context) async throws -> Response {
        // The same security headers as the hub's own answers (`SecurityHeaders`): this listener is
        // another server, outside the router and its middleware.
        guard let host = Self.host(of: request.head.authority) else {
            return SecurityHeaders.applied(to: Response(
                status: .badRequest, headers: [.contentType: "text/plain; charset=utf-8"],
                body: .init(byteBuffer: ByteBuffer(string: "This hub answers over HTTPS only; the request named no host (Host header) to send you to.\n"))))
        }
        let httpsPort = self.httpsPort()
        let port = httpsPort == 443 ? "" : ":\(httpsPort)"
        let target = "https://\(host)\(port)\(request.uri.description)"
        return SecurityHeaders.applied(to: Response(
            status: .permanentRedirect, headers: [.location: target, .contentType: "text/plain; charset=utf-8", .cacheControl: "no-store"],
            body: .init(byteBuffer: ByteBuffer(string: "This hub answers over HTTPS: \(target)\n"))))
    }

    /// The host of a Host header without its port ("hub.example:80" -> "hub.example",
    /// "[::1]:80" -> "[::1]"); nil when it is empty or holds what a host cannot. (HTTPTypes puts an
    /// HTTP/1.1 Host header in `authority`.)
    static func host(of header: String?) -> String? {
        guard var value = header?.trimmingSpaces(), !value.isEmpty else { return nil }
        if value.hasPrefix("[") {
            guard let close = value.firstIndex(of: "]") else { return nil }
            value = String(value[...close])
        } else if let colon = value.lastIndex(of: ":") {
            value = String(value[..<colon])
        }
        let allowed = value.unicodeScalars.allSatisfy {
            ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) || "-.[]:".unicodeScalars.contains($0)
        }
        return allowed && !value.isEmpty ? value : nil
    }
}

private extension String {
    func trimmingSpaces() -> String {
        var scalars = Substring(self)
        while scalars.first == " " { scalars.removeFirst() }
        while scalars.last == " " { scalars.removeLast() }
        return String(scalars)
    }
}
