import Foundation
import NIOCore
import NIOPosix
import Synchronization

/// A TCP proxy that breaks the network on demand, between a client and a server such as the
/// local backend: cut every connection, black-hole the traffic, slow it down, or drop
/// connections after a number of bytes.
///
/// The proxy listens on `127.0.0.1` on a free port and forwards each connection it accepts to
/// the target, both ways, chunk by chunk, on SwiftNIO's event loops (so a busy Swift concurrency
/// pool does not slow it down). Faults apply at once to open and new connections until
/// ``resume()``:
///
/// ```swift
/// let backend = try await LocalBackend.start(schema: schema)
/// let proxy = try await FaultProxy.start(forwardingTo: backend.endpoint)
/// let api = try backend.makeAPIPlugin(through: proxy)
/// proxy.cutAllConnections()  // requests under way fail, subscriptions drop
/// proxy.blackHole()          // nothing gets through; new connections hang
/// proxy.resume()             // traffic flows again
/// await proxy.stop()
/// ```
public final class FaultProxy: Sendable {
    /// The port the proxy listens on, on `127.0.0.1`.
    public let port: Int
    /// The host connections are forwarded to.
    public var targetHost: String { shared.targetHost }
    /// The port connections are forwarded to.
    public var targetPort: Int { shared.targetPort }

    private let shared: ProxyState
    private let server: any Channel

    /// How many connections the proxy has accepted since it started.
    public var acceptedConnections: Int { shared.accepted.load(ordering: .relaxed) }
    /// How many connections are open now (accepted and not yet closed).
    public var openConnections: Int { shared.open.load(ordering: .relaxed) }
    /// How many bytes clients sent that were forwarded to the target.
    public var bytesFromClients: Int { shared.fromClients.load(ordering: .relaxed) }
    /// How many bytes the target sent that were forwarded to clients.
    public var bytesFromTarget: Int { shared.fromTarget.load(ordering: .relaxed) }

    private init(server: any Channel, port: Int, shared: ProxyState) {
        self.server = server
        self.port = port
        self.shared = shared
    }

    /// Starts a proxy on a free port of `127.0.0.1` that forwards to `targetHost:targetPort`; its
    /// connections run on `group`'s event loops.
    ///
    /// - Throws: NIO's `IOError` when the proxy cannot listen.
    public static func start(
        targetHost: String = "127.0.0.1",
        targetPort: Int,
        group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton
    ) async throws -> FaultProxy {
        let shared = ProxyState(targetHost: targetHost, targetPort: targetPort)
        let server = try await ServerBootstrap(group: group)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let relay = Relay(client: channel, shared: shared)
                    try channel.pipeline.syncOperations.addHandler(
                        RelayHandler(relay: NIOLoopBound(relay, eventLoop: channel.eventLoop), side: .client)
                    )
                    relay.start()
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        guard let port = server.localAddress?.port else {
            try? await server.close()
            throw FaultProxyError(message: "The proxy's listening socket has no port.")
        }
        return FaultProxy(server: server, port: port, shared: shared)
    }

    /// Starts a proxy to the host and port of `url` (such as ``LocalBackend/endpoint``).
    ///
    /// - Throws: ``FaultProxyError`` when `url` has no host or port, or what
    ///   ``start(targetHost:targetPort:group:)`` throws.
    public static func start(forwardingTo url: URL) async throws -> FaultProxy {
        guard let host = url.host, let port = url.port else {
            throw FaultProxyError(
                message: "The URL '\(url)' has no host and port to forward to. Give one like http://127.0.0.1:20002."
            )
        }
        return try await start(targetHost: host, targetPort: port)
    }

    /// `url` with its host and port replaced by the proxy's: where a client sends what the proxy
    /// should carry.
    public func url(proxying url: URL) -> URL {
        var components = URLComponents(url: url, resolvingAgainstBaseURL: false) ?? URLComponents()
        components.host = "127.0.0.1"
        components.port = port
        return components.url ?? url
    }

    // MARK: - Faults

    /// Closes every open connection now, both ways; new connections are accepted as before.
    public func cutAllConnections() {
        for relay in shared.relays() {
            relay.eventLoop.execute { relay.value.close() }
        }
    }

    /// Forwards nothing until ``resume()``: connections stay open, what they send waits, and new
    /// connections are accepted but not connected to the target.
    public func blackHole() {
        shared.faults.withLock { $0.isBlackHoled = true }
    }

    /// Holds each chunk for `delay` before forwarding it, in both directions, until ``resume()``.
    public func delay(by delay: Duration) {
        shared.faults.withLock { $0.delay = delay }
    }

    /// Closes each connection once it has carried `bytes` bytes, both directions counted, until
    /// ``resume()``: the chunk that crosses the limit is cut at it.
    ///
    /// - Precondition: `bytes` is 0 or more.
    public func dropAfter(bytes: Int) {
        precondition(bytes >= 0, "dropAfter(bytes:) needs 0 or more bytes, not \(bytes).")
        shared.faults.withLock { $0.dropAfter = bytes }
    }

    /// Ends every fault: held traffic flows, waiting connections connect, no delay, no drop.
    public func resume() {
        shared.faults.withLock { $0 = Faults() }
        for relay in shared.relays() {
            relay.eventLoop.execute { relay.value.forward() }
        }
    }

    /// Stops listening and closes every connection.
    public func stop() async {
        try? await server.close()
        cutAllConnections()
    }
}

/// The faults in force.
private struct Faults {
    var isBlackHoled = false
    var delay: Duration?
    var dropAfter: Int?
}

/// What the proxy and its connections share: the target, the faults, the open connections and
/// the counters.
private final class ProxyState: Sendable {
    let targetHost: String
    let targetPort: Int
    let faults = Mutex(Faults())
    let accepted = Atomic<Int>(0)
    let open = Atomic<Int>(0)
    let fromClients = Atomic<Int>(0)
    let fromTarget = Atomic<Int>(0)
    private let connections = Mutex<(next: Int, relays: [Int: NIOLoopBound<Relay>])>((0, [:]))

    init(targetHost: String, targetPort: Int) {
        self.targetHost = targetHost
        self.targetPort = targetPort
    }

    func register(_ relay: NIOLoopBound<Relay>) -> Int {
        accepted.add(1, ordering: .relaxed)
        open.add(1, ordering: .relaxed)
        return connections.withLock { connections in
            defer { connections.next += 1 }
            connections.relays[connections.next] = relay
            return connections.next
        }
    }

    func unregister(_ id: Int) {
        if connections.withLock({ $0.relays.removeValue(forKey: id) }) != nil {
            open.subtract(1, ordering: .relaxed)
        }
    }

    /// Counts `bytes` forwarded from `side`.
    func count(_ bytes: Int, from side: RelayHandler.Side) {
        switch side {
        case .client: fromClients.add(bytes, ordering: .relaxed)
        case .target: fromTarget.add(bytes, ordering: .relaxed)
        }
    }

    func relays() -> [NIOLoopBound<Relay>] {
        connections.withLock { Array($0.relays.values) }
    }
}

/// One proxied connection: the client's channel, the target's once connected, and what waits
/// to be forwarded. Used on the client channel's event loop only; the target's channel runs on
/// the same loop.
private final class Relay {
    let eventLoop: any EventLoop
    let client: any Channel
    let shared: ProxyState
    private var id = -1
    private var target: (any Channel)?
    private var isConnecting = false
    private var isClosed = false
    /// The bytes forwarded both ways, for `dropAfter(bytes:)`.
    private var carried = 0
    private var toTarget: [ByteBuffer] = []
    private var toClient: [ByteBuffer] = []
    /// A chunk held for a delay: written to the other side at `deadline`, then the relay closes
    /// when it `closes` (the connection reached its byte limit).
    private struct Held {
        var deadline: NIODeadline
        var chunk: ByteBuffer
        var bytes: Int
        var closes: Bool
    }

    /// The chunks held for a delay, by the side they came from, in the order they came. A
    /// chunk is written at once only when none from its side is held: a chunk that came after a
    /// delay ended never overtakes the held ones, even when their scheduled write runs late (a
    /// write at once used to go out ahead of them, and a subscriber heard a record's newer
    /// version first).
    private var held: [RelayHandler.Side: [Held]] = [:]
    /// Whether the other side closed, once what is held towards this one was written.
    private var closesWhenDrained = false

    init(client: any Channel, shared: ProxyState) {
        self.client = client
        self.eventLoop = client.eventLoop
        self.shared = shared
    }

    private var bound: NIOLoopBound<Relay> { NIOLoopBound(self, eventLoop: eventLoop) }

    func start() {
        id = shared.register(bound)
        forward()
    }

    func received(_ buffer: ByteBuffer, from side: RelayHandler.Side) {
        switch side {
        case .client: toTarget.append(buffer)
        case .target: toClient.append(buffer)
        }
        forward()
    }

    /// Forwards what waits, unless black-holed; connects to the target first.
    func forward() {
        guard !isClosed else { return }
        let faults = shared.faults.withLock { $0 }
        guard !faults.isBlackHoled else { return }
        guard let target else {
            connect()
            return
        }
        if forward(from: .client, to: target, faults) {
            forward(from: .target, to: client, faults)
        }
    }

    /// Sends what waits from `side` to `channel` with the delay in force; `false` when the
    /// connection reached its byte limit and closes.
    ///
    /// A write may close a channel at once, which calls back into the relay: no property is
    /// held in place (`inout`) across one.
    @discardableResult
    private func forward(from side: RelayHandler.Side, to channel: any Channel, _ faults: Faults) -> Bool {
        let chunks: [ByteBuffer]
        switch side {
        case .client:
            chunks = toTarget
            toTarget = []
        case .target:
            chunks = toClient
            toClient = []
        }
        for var chunk in chunks {
            var size = chunk.readableBytes
            var reachesLimit = false
            if let limit = faults.dropAfter, carried + size >= limit {
                size = max(limit - carried, 0)
                chunk = chunk.getSlice(at: chunk.readerIndex, length: size) ?? ByteBuffer()
                reachesLimit = true
            }
            carried += size
            let delay = faults.delay.map { TimeAmount.nanoseconds(Int64($0 / .nanoseconds(1))) } ?? .zero
            let now = NIODeadline.now()
            let held = self.held[side, default: []]
            if held.isEmpty, delay <= .zero {
                write(chunk, bytes: size, from: side, to: channel)
                if reachesLimit {
                    close()
                    return false
                }
                continue
            }
            // Never before the chunks held already, which a shorter delay would overtake.
            let deadline = max(now + delay, held.last?.deadline ?? now)
            self.held[side, default: []].append(
                Held(deadline: deadline, chunk: chunk, bytes: size, closes: reachesLimit)
            )
            if held.isEmpty { scheduleDrain(from: side, at: deadline) }
            if reachesLimit { return false }
        }
        return true
    }

    private func write(_ chunk: ByteBuffer, bytes: Int, from side: RelayHandler.Side, to channel: any Channel) {
        guard bytes > 0 else { return }
        channel.writeAndFlush(chunk, promise: nil)
        shared.count(bytes, from: side)
    }

    private func scheduleDrain(from side: RelayHandler.Side, at deadline: NIODeadline) {
        let bound = bound
        eventLoop.scheduleTask(deadline: deadline) { bound.value.drain(from: side) }
    }

    /// Writes, in order, the chunks held from `side` whose time came, and schedules itself for
    /// the next one.
    private func drain(from side: RelayHandler.Side) {
        guard !isClosed, let channel = side == .client ? target : client else { return }
        let now = NIODeadline.now()
        while let first = held[side]?.first, first.deadline <= now {
            held[side]?.removeFirst()
            write(first.chunk, bytes: first.bytes, from: side, to: channel)
            if first.closes {
                close()
                return
            }
        }
        if let next = held[side]?.first {
            scheduleDrain(from: side, at: next.deadline)
        } else if closesWhenDrained, held.values.allSatisfy(\.isEmpty) {
            close()
        }
    }

    private func connect() {
        guard !isConnecting else { return }
        isConnecting = true
        let bound = bound
        ClientBootstrap(group: eventLoop)
            .channelOption(.socketOption(.tcp_nodelay), value: 1)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(RelayHandler(relay: bound, side: .target))
                }
            }
            .connect(host: shared.targetHost, port: shared.targetPort)
            .whenComplete { result in
                let relay = bound.value
                switch result {
                case .success(let channel):
                    guard !relay.isClosed else {
                        channel.close(promise: nil)
                        return
                    }
                    relay.target = channel
                    relay.forward()
                case .failure:
                    relay.close()
                }
            }
    }

    /// One side closed: the other gets what is on its way to it (delayed writes), then closes.
    func closed(_ side: RelayHandler.Side) {
        // What was held towards the closed side, which came from the other, is dropped with it.
        let other: RelayHandler.Side = side == .target ? .client : .target
        held[other] = nil
        guard held[side]?.isEmpty == false else {
            close()
            return
        }
        closesWhenDrained = true
    }

    /// Closes both sides, once.
    func close() {
        guard !isClosed else { return }
        isClosed = true
        client.close(promise: nil)
        target?.close(promise: nil)
        shared.unregister(id)
    }
}

/// Hands what one side of a connection reads to its ``Relay``, and closes the relay when that
/// side closes or fails.
private final class RelayHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer

    enum Side: Sendable {
        case client
        case target
    }

    private let relay: NIOLoopBound<Relay>
    private let side: Side

    init(relay: NIOLoopBound<Relay>, side: Side) {
        self.relay = relay
        self.side = side
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        relay.value.received(unwrapInboundIn(data), from: side)
    }

    func channelInactive(context: ChannelHandlerContext) {
        relay.value.closed(side)
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        relay.value.close()
    }
}

/// The fault proxy could not start.
public struct FaultProxyError: Error, Sendable, CustomStringConvertible {
    /// What went wrong and what to do.
    public let message: String
    /// The message.
    public var description: String { message }
}
