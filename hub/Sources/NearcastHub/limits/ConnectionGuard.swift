import HummingbirdCore
import Logging
import NIOCore
import NIOHTTPTypes

/// A server child channel (HTTP/1, or TLS with HTTP/2 by ALPN) with the hub's connection limits
/// in front: a connection past the caps is refused before any byte is read, and one that does
/// not finish a request head in time, or sits with no request in progress for too long, is
/// closed. Counting happens on the TCP connection (`ConnectionGuardHandler`, first in its
/// pipeline), the requests in progress are reported by `RequestTracker`, which sits after the
/// HTTP decoding of each HTTP/1 connection or HTTP/2 stream.
///
/// A trusted proxy's connections count under the total cap only: each carries one client's
/// requests (an event stream holds one for as long as its phone follows), so capping them per
/// address would cap the whole venue behind the proxy as if it were one client. The clients'
/// own per-address rules apply to each request instead (`ClientAddressMiddleware`).
struct GuardedChildChannel<Inner: ServerChildChannel>: ServerChildChannel {
    typealias Value = Inner.Value

    let inner: Inner
    let limiter: HubLimiter
    let trustedProxies: TrustedProxies

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        let address = channel.remoteAddress?.ipAddress ?? ""
        if let refusal = limiter.connections.admit(address, perAddressCap: !trustedProxies.trusts(address)) {
            limiter.count(refusal == .total ? .connections : .addressConnections)
            // A failed set-up alone leaves the socket open: close it, so the refusal frees its descriptor.
            channel.close(promise: nil)
            return channel.eventLoop.makeFailedFuture(ConnectionRefused(refusal: refusal))
        }
        do {
            try channel.pipeline.syncOperations.addHandler(ConnectionGuardHandler(limiter: limiter, address: address), position: .first)
        } catch {
            limiter.connections.release(address)
            return channel.eventLoop.makeFailedFuture(error)
        }
        return inner.setup(channel: channel, logger: logger)
    }

    func handle(value: Value, logger: Logger) async {
        await inner.handle(value: value, logger: logger)
    }
}

/// Why a connection was closed at once.
struct ConnectionRefused: Error, CustomStringConvertible {
    let refusal: ConnectionCounter.Refusal
    var description: String {
        refusal == .total ? "connection refused: the hub's cap on open connections is reached"
            : "connection refused: this address's cap on open connections is reached"
    }
}

/// On a connection: gives its count back when it closes, and closes it when its deadline
/// passes: the header timeout from the start (a complete request head is due), the idle
/// timeout after each last response; no deadline while a request is in progress (an event
/// stream lives as long as its client).
final class ConnectionGuardHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = NIOAny

    private let limiter: HubLimiter
    private let address: String
    private var inProgress = 0
    private var deadline: Scheduled<Void>?
    private var context: ChannelHandlerContext?
    private var released = false

    init(limiter: HubLimiter, address: String) {
        self.limiter = limiter
        self.address = address
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        schedule(after: limiter.settings.connections.headerTimeoutSeconds, limit: .headerTimeout)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        finish()
    }

    func channelInactive(context: ChannelHandlerContext) {
        finish()
        context.fireChannelInactive()
    }

    /// A request head arrived (on this connection or one of its HTTP/2 streams).
    func requestStarted() {
        inProgress += 1
        deadline?.cancel()
        deadline = nil
    }

    /// A response ended.
    func requestEnded() {
        inProgress = max(0, inProgress - 1)
        if inProgress == 0 { schedule(after: limiter.settings.connections.idleTimeoutSeconds, limit: .idleTimeout) }
    }

    private func schedule(after seconds: Double, limit: HubLimiter.Limit) {
        deadline?.cancel()
        guard let context else { return }
        let limiter = self.limiter
        deadline = context.eventLoop.scheduleTask(in: .nanoseconds(Int64(seconds * 1e9))) { [weak self] in
            guard let self, let context = self.context, self.inProgress == 0 else { return }
            limiter.count(limit)
            context.close(promise: nil)
        }
    }

    private func finish() {
        deadline?.cancel()
        deadline = nil
        context = nil
        if !released {
            released = true
            limiter.connections.release(address)
        }
    }
}

/// After the HTTP decoding of an HTTP/1 connection or an HTTP/2 stream: tells the connection's
/// `ConnectionGuardHandler` when a request starts and when its response ends.
final class RequestTracker: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private var connection: ConnectionGuardHandler?
    private var open = 0

    func handlerAdded(context: ChannelHandlerContext) {
        // HTTP/1: the guard is on this channel; HTTP/2: on the stream's parent, the connection.
        connection = (try? context.channel.pipeline.syncOperations.handler(type: ConnectionGuardHandler.self))
            ?? (try? context.channel.parent?.pipeline.syncOperations.handler(type: ConnectionGuardHandler.self))
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        // A stream reset in the middle of a response: its request is over.
        while open > 0 { open -= 1; connection?.requestEnded() }
        connection = nil
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .head = unwrapInboundIn(data) {
            open += 1
            connection?.requestStarted()
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data), open > 0 {
            open -= 1
            connection?.requestEnded()
        }
        context.write(data, promise: promise)
    }
}
