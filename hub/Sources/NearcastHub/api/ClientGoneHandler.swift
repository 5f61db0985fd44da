import NIOCore
import NIOHTTP1

/// Notices that the client has gone while its request is still being answered, so a long
/// answer (a deck's render) can be abandoned (`HubRequestContext.clientGone()`).
///
/// Hummingbird lets a client half-close its connection, and NIO's HTTP/1 handlers stop reading
/// while a request is answered, so the connection's `closeFuture` completes only at the
/// answer's write, minutes late for a render. This handler sits after the HTTP decoder and sees
/// the client's FIN (`ChannelEvent.inputClosed`) at once: on HTTP/1, a client that sends no
/// more is taken to have gone, as nginx does (its 499). On an HTTP/2 stream the end of the
/// request is a half-close too, so there only the stream's close (a reset, the connection
/// lost) counts.
final class ClientGoneHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = NIOAny

    private var gone: EventLoopPromise<Void>?
    private var fired = false
    private var watchesHalfClose = false

    func handlerAdded(context: ChannelHandlerContext) {
        gone = context.eventLoop.makePromise()
        // HTTP/1 over TCP has this decoder; an HTTP/2 stream does not.
        watchesHalfClose = (try? context.pipeline.syncOperations.handler(type: ByteToMessageHandler<HTTPRequestDecoder>.self)) != nil
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if watchesHalfClose, let event = event as? ChannelEvent, event == .inputClosed { fire() }
        context.fireUserInboundEventTriggered(event)
    }

    func channelInactive(context: ChannelHandlerContext) {
        fire()
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        fire()
    }

    private func fire() {
        guard !fired else { return }
        fired = true
        gone?.succeed()
    }

    /// Completes when the client on `channel` has gone: its FIN on HTTP/1, the channel's close
    /// otherwise (and always, for a channel without this handler, as in the router's tests).
    static func gone(on channel: any Channel) -> EventLoopFuture<Void> {
        channel.eventLoop.flatSubmit {
            guard let handler = try? channel.pipeline.syncOperations.handler(type: ClientGoneHandler.self),
                  let gone = handler.gone else { return channel.closeFuture }
            return gone.futureResult
        }
    }
}
