import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1
import Synchronization

/// The open connections of one server by client address, so that one client cannot hold them
/// all.
final class ConnectionsPerAddress: Sendable {
    let limit: Int
    private let counts = Mutex<[String: Int]>([:])

    init(limit: Int) {
        self.limit = limit
    }

    /// Counts a connection from `address`, or returns `false` when the address has `limit` open.
    func open(_ address: String) -> Bool {
        counts.withLock { counts in
            let count = counts[address, default: 0]
            guard count < limit else { return false }
            counts[address] = count + 1
            return true
        }
    }

    /// Forgets a connection `open(_:)` counted.
    func close(_ address: String) {
        counts.withLock { counts in
            let count = counts[address, default: 1] - 1
            counts[address] = count > 0 ? count : nil
        }
    }
}

/// An HTTP child channel with the guards Hummingbird's WebSocket upgrade channel lacks before a
/// request's head is read: a cap on connections per client address, a deadline for the head,
/// and an answer to a head that does not parse.
///
/// Until the first head is read the upgrade channel has neither its idle timeout nor its parse
/// error answer, so a client sending a partial request, garbage or a huge header would hold the
/// connection, unanswered, for as long as it liked.
struct GuardedChildChannel<Inner: ServerChildChannel>: ServerChildChannel {
    struct Value: ServerChildChannelValue {
        let channel: any Channel
        /// The inner channel's value; `nil` for a refused connection.
        let inner: Inner.Value?
    }

    let inner: Inner
    let connections: ConnectionsPerAddress
    /// How long a client has to send the first request's head.
    let requestHeadTimeout: Duration

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        let address = channel.remoteAddress?.ipAddress ?? ""
        guard connections.open(address) else {
            // Nothing reads from this channel: the answer goes straight to the socket.
            let answer = channel.allocator.buffer(
                string: "HTTP/1.1 429 Too Many Requests\r\nconnection: close\r\ncontent-length: 0\r\n\r\n"
            )
            channel.writeAndFlush(answer).whenComplete { _ in channel.close(promise: nil) }
            return channel.eventLoop.makeSucceededFuture(Value(channel: channel, inner: nil))
        }
        let connections = connections
        channel.closeFuture.whenComplete { _ in connections.close(address) }
        let timeout = requestHeadTimeout
        return inner.setup(channel: channel, logger: logger).flatMapThrowing { value in
            try channel.pipeline.syncOperations.addHandler(RequestHeadGuard(timeout: TimeAmount(timeout)))
            return Value(channel: channel, inner: value)
        }
    }

    func handle(value: Value, logger: Logger) async {
        guard let innerValue = value.inner else { return }
        // The upgrade channel logs an error for every connection closed before its head was
        // read, which the guard does on purpose; requests log through the router's logger.
        var channelLogger = logger
        channelLogger.logLevel = .critical
        await inner.handle(value: innerValue, logger: channelLogger)
    }
}

/// Closes a connection whose first request head has not arrived within the timeout, and
/// answers a head that does not parse with 400 (431 for oversized headers) before closing.
///
/// It sits after the upgrade handler, which passes nothing on until it has decided about the
/// head: the first message or upgrade event through it means the head was read. It passes
/// everything on untouched, HTTP parts and WebSocket bytes alike.
final class RequestHeadGuard: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let timeout: TimeAmount
    private var deadline: Scheduled<Void>?
    private var headRead = false

    init(timeout: TimeAmount) {
        self.timeout = timeout
    }

    func handlerAdded(context: ChannelHandlerContext) {
        deadline = context.eventLoop.assumeIsolated().scheduleTask(in: timeout) {
            context.close(promise: nil)
        }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        deadline?.cancel()
        deadline = nil
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        noteHeadRead()
        context.fireChannelRead(data)
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let upgrade = event as? HTTPServerUpgradeEvents, case .upgradeComplete = upgrade { noteHeadRead() }
        context.fireUserInboundEventTriggered(event)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard !headRead, let error = error as? HTTPParserError else {
            context.fireErrorCaught(error)
            return
        }
        // Hummingbird answers parse errors of later requests; this one never reaches it.
        noteHeadRead()
        var status = HTTPResponseStatus.badRequest
        if case .headerOverflow = error { status = .requestHeaderFieldsTooLarge }
        let head = HTTPResponseHead(
            version: .http1_1,
            status: status,
            headers: HTTPHeaders([("connection", "close"), ("content-length", "0")])
        )
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil))).assumeIsolated().whenComplete { _ in
            context.close(promise: nil)
        }
    }

    private func noteHeadRead() {
        guard !headRead else { return }
        headRead = true
        deadline?.cancel()
        deadline = nil
    }
}
