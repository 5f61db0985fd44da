#if canImport(Glibc)
import Glibc
#endif
import NIOCore
import NIOHTTP1
import NIOPosix

/// Where a connection goes: the balancer or one hub, `HOST:PORT` (IPv4 or IPv6 literal, no name
/// lookups: a name would cost a resolver call per phone).
struct Endpoint: Sendable, CustomStringConvertible {
    let host: String
    let port: Int
    let address: SocketAddress

    /// `text` as `HOST:PORT` ("[::1]:8080" for IPv6).
    init(_ text: String) throws(UsageError) {
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]), (1...65_535).contains(port) else {
            throw UsageError("\(text): give HOST:PORT (127.0.0.1:8080)")
        }
        var host = String(text[..<colon])
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard let address = try? SocketAddress(ipAddress: host, port: port) else {
            throw UsageError("\(text): \(host) is not an IP address")
        }
        self.host = host
        self.port = port
        self.address = address
    }

    var description: String { address.protocol == .inet6 ? "[\(host)]:\(port)" : "\(host):\(port)" }
}

/// A response, whole: the status, headers and body.
struct HTTPAnswer: Sendable {
    var status: Int
    var headers: HTTPHeaders
    var body: ByteBuffer

    var text: String { String(buffer: body) }
}

/// A request and the promise its answer fulfils: what `HTTPConnection.send` writes into its channel.
struct OutgoingRequest: Sendable {
    var head: HTTPRequestHead
    var body: ByteBuffer?
    var answer: EventLoopPromise<HTTPAnswer>
}

/// Why a connection could not be made or was lost, in a word the report counts by ("refused",
/// "timed out", "reset", "closed").
struct ConnectionFailure: Error, CustomStringConvertible {
    let reason: String
    var description: String { reason }

    /// The reason for any error NIO or the kernel gave.
    static func from(_ error: any Error) -> ConnectionFailure {
        if let failure = error as? ConnectionFailure { return failure }
        if let io = error as? IOError {
            switch io.errnoCode {
            case ECONNREFUSED: return ConnectionFailure(reason: "connection refused")
            case ECONNRESET: return ConnectionFailure(reason: "connection reset")
            case ETIMEDOUT: return ConnectionFailure(reason: "connect timed out")
            case EADDRNOTAVAIL: return ConnectionFailure(reason: "no local port left (EADDRNOTAVAIL)")
            case EMFILE, ENFILE: return ConnectionFailure(reason: "out of file descriptors")
            default: return ConnectionFailure(reason: "\(io.description)")
            }
        }
        if case .connectTimeout = error as? ChannelError { return ConnectionFailure(reason: "connect timed out") }
        if error is ChannelError { return ConnectionFailure(reason: "connection closed (\(error))") }
        return ConnectionFailure(reason: "\(error)")
    }
}

/// Answers requests in the order they were written on one HTTP/1.1 keep-alive connection: each
/// write enqueues its promise, each complete response fulfils the oldest. A lost connection fails
/// every promise still waiting.
final class RequestAnswerHandler: ChannelDuplexHandler {
    typealias InboundIn = HTTPClientResponsePart
    typealias OutboundIn = OutgoingRequest
    typealias OutboundOut = HTTPClientRequestPart

    private var waiting = CircularBuffer<EventLoopPromise<HTTPAnswer>>()
    private var head: HTTPResponseHead?
    private var body = ByteBuffer()

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        let request = unwrapOutboundIn(data)
        waiting.append(request.answer)
        context.write(wrapOutboundOut(.head(request.head)), promise: nil)
        if let body = request.body { context.write(wrapOutboundOut(.body(.byteBuffer(body))), promise: nil) }
        context.write(wrapOutboundOut(.end(nil)), promise: promise)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let received):
            head = received
            body.clear()
        case .body(var chunk):
            body.writeBuffer(&chunk)
        case .end:
            guard let head, let promise = waiting.popFirst() else { return }
            promise.succeed(HTTPAnswer(status: Int(head.status.code), headers: head.headers, body: body))
            self.head = nil
            body = ByteBuffer()
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        failAll(ConnectionFailure(reason: "connection closed"))
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        failAll(ConnectionFailure.from(error))
        context.close(promise: nil)
    }

    private func failAll(_ error: ConnectionFailure) {
        while let promise = waiting.popFirst() { promise.fail(error) }
    }
}

/// One HTTP/1.1 keep-alive connection from a phone, optionally bound to a source address (a
/// phone's Wi-Fi address: spread over 127.0.0.0/8 so each address's caps on the hub hold as they
/// would for a venue's NATs).
struct HTTPConnection: Sendable {
    let channel: any Channel
    let endpoint: Endpoint

    static let connectTimeout = TimeAmount.seconds(10)

    static func connect(to endpoint: Endpoint, from source: SocketAddress?, group: any EventLoopGroup) async throws -> HTTPConnection {
        var bootstrap = ClientBootstrap(group: group)
            .connectTimeout(connectTimeout)
            .channelOption(.socketOption(.tcp_nodelay), value: 1)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHTTPClientHandlers()
                    try channel.pipeline.syncOperations.addHandler(RequestAnswerHandler())
                }
            }
        if let source { bootstrap = bootstrap.bind(to: source) }
        do {
            return HTTPConnection(channel: try await bootstrap.connect(to: endpoint.address).get(), endpoint: endpoint)
        } catch {
            throw ConnectionFailure.from(error)
        }
    }

    /// Sends a request and waits for its whole answer. `headers` go with Host, and with
    /// Content-Type JSON when there is a body.
    func send(_ method: HTTPMethod, _ path: String, headers: [(String, String)] = [], body: ByteBuffer? = nil) async throws -> HTTPAnswer {
        var head = HTTPRequestHead(version: .http1_1, method: method, uri: path)
        head.headers.add(name: "Host", value: endpoint.description)
        for (name, value) in headers { head.headers.add(name: name, value: value) }
        if let body {
            head.headers.add(name: "Content-Type", value: "application/json")
            head.headers.add(name: "Content-Length", value: String(body.readableBytes))
        }
        let answer = channel.eventLoop.makePromise(of: HTTPAnswer.self)
        channel.writeAndFlush(OutgoingRequest(head: head, body: body, answer: answer)).cascadeFailure(to: answer)
        do {
            return try await answer.futureResult.get()
        } catch {
            throw ConnectionFailure.from(error)
        }
    }

    func close() {
        channel.close(promise: nil)
    }
}
