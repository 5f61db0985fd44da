import NIOCore
import NIOHTTP1
import NIOPosix

/// What an event stream's owner hears of it, on the stream's event loop: its answer's status (and
/// the refusal's message), each event with the monotonic time its bytes were read from the
/// socket, and its end.
protocol EventStreamListener: Sendable {
    /// The answer's head came: 200 for a stream; any other status with its body's first bytes.
    func opened(status: Int, message: String)
    func received(_ event: ServerSentEvent, arrivalNs: UInt64)
    /// The connection closed; `status` is the answer's (0: none came, the connection was lost
    /// before an answer), which tells an EventSource whether to reconnect (0 or 200) or give up.
    func closed(status: Int)
}

/// Reads a Server-Sent Events response as it comes, timestamping each read before parsing it.
/// The streams of one event loop are read one after another, so the last phone's read of a page
/// turn comes after the tool's own work for every phone before it on that loop: that spread is
/// counted in the latency, which makes the figures an upper bound (the report prints the tool's
/// CPU beside them).
final class EventStreamHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPClientResponsePart

    private let listener: any EventStreamListener
    private var parser = ServerSentEventParser()
    private var status = 0
    private var refusal = ByteBuffer()

    init(listener: any EventStreamListener) { self.listener = listener }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            status = Int(head.status.code)
            if status == 200 { listener.opened(status: 200, message: "") }
        case .body(var chunk):
            if status == 200 {
                let arrival = Clocks.monotonicNs()
                for event in parser.feed(chunk) { listener.received(event, arrivalNs: arrival) }
            } else if refusal.readableBytes < 300 {
                refusal.writeBuffer(&chunk)
            }
        case .end:
            if status != 200 {
                listener.opened(status: status, message: String(buffer: refusal))
            }
            context.close(promise: nil)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        listener.closed(status: status)
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }
}

/// A `GET` held open for Server-Sent Events, as a browser's EventSource holds it (HTTP/1.1, its
/// own connection).
enum EventStream {
    /// Connects and sends the request; the listener hears the rest. Throws only when the
    /// connection cannot be made.
    static func open(_ path: String, headers: [(String, String)] = [], at endpoint: Endpoint, from source: SocketAddress?,
                     group: any EventLoopGroup, listener: any EventStreamListener) async throws -> any Channel {
        var bootstrap = ClientBootstrap(group: group)
            .connectTimeout(HTTPConnection.connectTimeout)
            .channelOption(.socketOption(.tcp_nodelay), value: 1)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHTTPClientHandlers()
                    try channel.pipeline.syncOperations.addHandler(EventStreamHandler(listener: listener))
                }
            }
        if let source { bootstrap = bootstrap.bind(to: source) }
        let channel: any Channel
        do {
            channel = try await bootstrap.connect(to: endpoint.address).get()
        } catch {
            throw ConnectionFailure.from(error)
        }
        var head = HTTPRequestHead(version: .http1_1, method: .GET, uri: path)
        head.headers.add(name: "Host", value: endpoint.description)
        head.headers.add(name: "Accept", value: "text/event-stream")
        head.headers.add(name: "Cache-Control", value: "no-cache")
        for (name, value) in headers { head.headers.add(name: name, value: value) }
        channel.write(HTTPClientRequestPart.head(head), promise: nil)
        channel.writeAndFlush(HTTPClientRequestPart.end(nil), promise: nil)
        return channel
    }
}
