import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1
import Synchronization

/// The open connections of one server, in all and by client address, so that one client
/// cannot hold them all, nor clients spread over many addresses every descriptor of the
/// process.
final class OpenConnections: Sendable {
    /// The most connections from one address.
    let limitPerAddress: Int
    /// The most connections in all.
    let limit: Int
    private struct State {
        var total = 0
        var byAddress: [String: Int] = [:]
    }
    private let state = Mutex(State())

    init(limitPerAddress: Int, limit: Int) {
        self.limitPerAddress = limitPerAddress
        self.limit = limit
    }

    /// Why a connection is refused.
    enum Refusal: Error {
        /// The address holds ``limitPerAddress`` connections.
        case address
        /// The server holds ``limit`` connections.
        case server

        /// The answer written to the refused connection.
        var answer: String {
            switch self {
            case .address: "HTTP/1.1 429 Too Many Requests\r\nconnection: close\r\ncontent-length: 0\r\n\r\n"
            case .server: "HTTP/1.1 503 Service Unavailable\r\nconnection: close\r\ncontent-length: 0\r\n\r\n"
            }
        }
    }

    /// Counts a connection from `address`, or says why it is refused.
    func open(_ address: String) -> Refusal? {
        state.withLock { state in
            let count = state.byAddress[address, default: 0]
            guard count < limitPerAddress else { return .address }
            guard state.total < limit else { return .server }
            state.byAddress[address] = count + 1
            state.total += 1
            return nil
        }
    }

    /// Forgets a connection `open(_:)` counted.
    func close(_ address: String) {
        state.withLock { state in
            let count = state.byAddress[address, default: 1] - 1
            state.byAddress[address] = count > 0 ? count : nil
            state.total -= 1
        }
    }

    /// The connections open, for tests.
    var count: Int { state.withLock { $0.total } }
}

/// An HTTP child channel with the guards Hummingbird's WebSocket upgrade channel lacks: caps on
/// connections in all and per client address, a deadline for the first request's head and one
/// for every whole request, and an answer to a head that does not parse.
///
/// Until the first head is read the upgrade channel has neither its idle timeout nor its parse
/// error answer, so a client sending a partial request, garbage or a huge header would hold the
/// connection, unanswered, for as long as it liked. Its idle timeout starts again at each byte,
/// so a client sending a byte now and then held a connection for ever.
struct GuardedChildChannel<Inner: ServerChildChannel>: ServerChildChannel {
    struct Value: ServerChildChannelValue {
        let channel: any Channel
        /// The inner channel's value; `nil` for a refused connection.
        let inner: Inner.Value?
    }

    let inner: Inner
    let connections: OpenConnections
    /// How long a client has to send the first request's head.
    let requestHeadTimeout: Duration
    /// How long a client has to send a whole request from its first byte.
    let requestTimeout: Duration

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        let address = channel.remoteAddress?.ipAddress ?? ""
        if let refusal = connections.open(address) {
            // Nothing reads from this channel: the answer goes straight to the socket.
            let answer = channel.allocator.buffer(string: refusal.answer)
            channel.writeAndFlush(answer).whenComplete { _ in channel.close(promise: nil) }
            return channel.eventLoop.makeSucceededFuture(Value(channel: channel, inner: nil))
        }
        let connections = connections
        channel.closeFuture.whenComplete { _ in connections.close(address) }
        let (headTimeout, requestTimeout) = (requestHeadTimeout, requestTimeout)
        return inner.setup(channel: channel, logger: logger).flatMapThrowing { value in
            let deadline = RequestDeadline(timeout: TimeAmount(requestTimeout))
            // First in the pipeline: it sees the bytes of a request before they parse.
            try channel.pipeline.syncOperations.addHandler(deadline, position: .first)
            try channel.pipeline.syncOperations.addHandler(
                RequestHeadGuard(timeout: TimeAmount(headTimeout), deadline: deadline)
            )
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
final class RequestHeadGuard: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    private let timeout: TimeAmount
    private var deadline: Scheduled<Void>?
    private var headRead = false
    /// The deadline of whole requests, told when each ends.
    private let requestDeadline: RequestDeadline

    init(timeout: TimeAmount, deadline: RequestDeadline) {
        self.timeout = timeout
        self.requestDeadline = deadline
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
        // After an upgrade the parts are WebSocket frames, which are not unwrapped here.
        if !requestDeadline.isUpgraded, case .end = unwrapInboundIn(data) { requestDeadline.requestEnded() }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        // After an upgrade the writes are WebSocket frames, which are not unwrapped here.
        if !requestDeadline.isUpgraded {
            switch unwrapOutboundIn(data) {
            case .head: requestDeadline.responseBegan()
            case .end: requestDeadline.responseEnded()
            case .body: break
            }
        }
        context.write(data, promise: promise)
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let upgrade = event as? HTTPServerUpgradeEvents, case .upgradeComplete = upgrade {
            noteHeadRead()
            // A WebSocket lives on; the real-time endpoint watches it.
            requestDeadline.upgraded()
        }
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

/// Closes a connection whose request does not arrive whole within the timeout, counted from
/// its first byte: a client sending a byte now and then would otherwise hold it for ever, as
/// the idle timeout starts again at each byte. When every earlier request was answered and no
/// answer is being written, the late request gets 408 first.
///
/// It sits first in the pipeline, where it sees the bytes before they parse: the first bytes
/// after a request ended start the next one's clock, or, when they come while the server still
/// owes an answer, the end of that answer does: a slow server is not the client's delay, and
/// cutting the connection would lose the answer. ``RequestHeadGuard``, after the parser,
/// tells it when a request ended, when an answer begins and ends, and when the connection
/// became a WebSocket, which it then leaves alone.
final class RequestDeadline: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    private let timeout: TimeAmount
    private var context: ChannelHandlerContext?
    /// The deadline of the request under way; `nil` between requests.
    private var deadline: Scheduled<Void>?
    /// The requests read whole, and the answers written whole.
    private var requestsEnded = 0
    private var answersEnded = 0
    /// Whether an answer is being written.
    private var answering = false
    /// Whether bytes of a request came while an answer was owed, its clock not started yet.
    private var waitingForAnswer = false
    private(set) var isUpgraded = false

    init(timeout: TimeAmount) {
        self.timeout = timeout
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        deadline?.cancel()
        deadline = nil
        self.context = nil
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if deadline == nil, !isUpgraded {
            if owesAnswer {
                waitingForAnswer = true
            } else {
                startClock()
            }
        }
        context.fireChannelRead(data)
    }

    /// Whether a request read whole has not been answered whole.
    private var owesAnswer: Bool { answering || answersEnded < requestsEnded }

    private func startClock() {
        guard let context else { return }
        waitingForAnswer = false
        deadline = context.eventLoop.assumeIsolated().scheduleTask(in: timeout) { [self] in expire() }
    }

    /// The request under way was read whole.
    func requestEnded() {
        requestsEnded += 1
        waitingForAnswer = false
        deadline?.cancel()
        deadline = nil
    }

    /// An answer's head is written.
    func responseBegan() {
        answering = true
    }

    /// An answer was written whole.
    func responseEnded() {
        answering = false
        answersEnded += 1
        if waitingForAnswer, deadline == nil, !owesAnswer, !isUpgraded { startClock() }
    }

    /// The connection is a WebSocket from now on.
    func upgraded() {
        isUpgraded = true
        requestEnded()
    }

    private func expire() {
        deadline = nil
        guard let context else { return }
        // An answer of its own would come in the middle of, or before, another's.
        guard !answering, answersEnded == requestsEnded else {
            context.close(promise: nil)
            return
        }
        let answer = context.channel.allocator.buffer(
            string: "HTTP/1.1 408 Request Timeout\r\nconnection: close\r\ncontent-length: 0\r\n\r\n"
        )
        context.writeAndFlush(NIOAny(answer)).assumeIsolated().whenComplete { _ in context.close(promise: nil) }
    }
}
