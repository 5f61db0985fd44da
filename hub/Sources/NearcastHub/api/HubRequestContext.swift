import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// The context every hub route runs in: who called (set by `KeyMiddleware` on the route groups
/// that need a key) and the framework's JSON coding in the API's shapes, so a handler takes a
/// decoded request type and returns an encodable response type.
public struct HubRequestContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    /// The caller's project and rights; nil on the routes that need no key.
    var access: Access?
    /// Who the request is, as `AddressRateMiddleware` found it (the key hashed and looked up
    /// once); `KeyMiddleware` reads it instead of looking again. Nil until then.
    var identity: CallerIdentity?
    /// The client's address, which every per-address rule reads (a reaction without a phone id
    /// is limited by it): the peer's, or behind a trusted proxy the one it forwarded
    /// (`ClientAddressMiddleware`).
    var remoteAddress: String?
    /// The address of the socket's other end (a trusted proxy's, or the client's).
    let peerAddress: String?
    /// `X-Forwarded-Proto` from a trusted proxy (`http` or `https`); nil from any other peer.
    var forwardedScheme: String?
    /// Completes when the request's channel closes (the HTTP/1 connection, or the HTTP/2
    /// stream): an event stream ends then, and gives back its slot at once, instead of at its
    /// next write (a keep-alive up to 15 s later).
    let channelClosed: EventLoopFuture<Void>
    /// The request's channel, for `clientGone()`.
    private let channel: any Channel

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        peerAddress = source.channel.remoteAddress?.ipAddress
        remoteAddress = peerAddress
        channelClosed = source.channel.closeFuture
        channel = source.channel
    }

    /// Completes when the client has gone, even while the connection is still open for the
    /// answer (`ClientGoneHandler`): a long answer stops then.
    func clientGone() -> EventLoopFuture<Void> { ClientGoneHandler.gone(on: channel) }

    public var requestDecoder: APIRequestDecoder { APIRequestDecoder() }
    public var responseEncoder: APIResponseEncoder { APIResponseEncoder() }
    /// JSON bodies; a deck's PDF is read by its own route, with its own limit.
    public var maxUploadSize: Int { RequestSupport.maximumBodyBytes }

    /// The caller, on a route behind `KeyMiddleware` (a 401 anywhere else: a route that forgot it
    /// refuses rather than serving everyone).
    func caller() throws(APIError) -> Access {
        guard let access else { throw APIError.unauthenticated }
        return access
    }

    /// The route's `:beacon` in the caller's project (a 400 for a malformed name).
    func beacon() throws -> BeaconRef {
        BeaconRef(project: try caller().project, beaconName: try RequestSupport.beaconName(self))
    }
}

/// Request bodies as JSON: a body over the context's limit is a 413, an empty one a 400, and a
/// decoding failure a 400 naming the field by its JSON path.
public struct APIRequestDecoder: RequestDecoder {
    public func decode<T: Decodable>(_ type: T.Type, from request: Request, context: some RequestContext) async throws -> T {
        try await Self.decode(type, from: request, limit: context.maxUploadSize)
    }

    /// The same with a smaller limit of its own (a route whose bodies are always small refuses
    /// a large one before reading it).
    static func decode<T: Decodable>(_ type: T.Type, from request: Request, limit: Int) async throws -> T {
        let buffer: ByteBuffer
        do {
            buffer = try await request.body.collect(upTo: limit)
        } catch is NIOTooManyBytesError {
            throw APIError(.contentTooLarge, "the body is larger than \(limit / 1024) KiB", field: "(body)")
        }
        guard buffer.readableBytes > 0 else { throw APIError(.badRequest, "a JSON body is needed", field: "(body)") }
        do {
            return try JSONDecoder().decode(T.self, from: Data(buffer.readableBytesView))
        } catch let error as DecodingError {
            throw APIError.from(error)
        }
    }
}

/// Response bodies as JSON with sorted keys (stable for clients and tests) and unescaped slashes
/// (beacon names hold them).
public struct APIResponseEncoder: ResponseEncoder {
    public func encode(_ value: some Encodable, from request: Request, context: some RequestContext) throws -> Response {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let data = try encoder.encode(value)
        return Response(status: .ok, headers: [.contentType: "application/json; charset=utf-8"],
                        body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }
}

/// `{}`: what a delete answers.
struct EmptyJSON: ResponseEncodable {}
