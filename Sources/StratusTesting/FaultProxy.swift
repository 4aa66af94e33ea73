import Foundation
import NIOCore
import NIOPosix
import Synchronization

/// A TCP proxy that breaks the network on demand, between a client and a server such as the
/// local backend: cut every connection, black-hole the traffic, slow it down, or drop
/// connections after a number of bytes.
///
/// The proxy listens on `127.0.0.1` on a free port and forwards each connection it accepts to
/// the target, both ways, chunk by chunk. Faults apply at once to open and new connections until
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
    public let targetHost: String
    /// The port connections are forwarded to.
    public let targetPort: Int

    private let state = Mutex(State())
    private let server: NIOAsyncChannel<NIOAsyncChannel<ByteBuffer, ByteBuffer>, Never>
    private let acceptLoop = Mutex<Task<Void, Never>?>(nil)
    private let accepted = Atomic<Int>(0)
    private let open = Atomic<Int>(0)
    private let fromClients = Atomic<Int>(0)
    private let fromTarget = Atomic<Int>(0)

    /// The faults in force and the open connections.
    private struct State {
        var isBlackHoled = false
        var delay: Duration?
        var dropAfter: Int?
        var nextConnection = 0
        /// The channels of each open connection: the client's, then the target's once connected.
        var connections: [Int: [any Channel]] = [:]
    }

    /// How many connections the proxy has accepted since it started.
    public var acceptedConnections: Int { accepted.load(ordering: .relaxed) }
    /// How many connections are open now (accepted and not yet closed).
    public var openConnections: Int { open.load(ordering: .relaxed) }
    /// How many bytes clients sent that were forwarded to the target.
    public var bytesFromClients: Int { fromClients.load(ordering: .relaxed) }
    /// How many bytes the target sent that were forwarded to clients.
    public var bytesFromTarget: Int { fromTarget.load(ordering: .relaxed) }

    private init(
        server: NIOAsyncChannel<NIOAsyncChannel<ByteBuffer, ByteBuffer>, Never>,
        port: Int,
        targetHost: String,
        targetPort: Int
    ) {
        self.server = server
        self.port = port
        self.targetHost = targetHost
        self.targetPort = targetPort
    }

    /// Starts a proxy on a free port of `127.0.0.1` that forwards to `targetHost:targetPort`.
    ///
    /// - Throws: NIO's `IOError` when the proxy cannot listen.
    public static func start(targetHost: String = "127.0.0.1", targetPort: Int) async throws -> FaultProxy {
        let server = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
            .bind(host: "127.0.0.1", port: 0) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
                }
            }
        guard let port = server.channel.localAddress?.port else {
            try? await server.channel.close()
            throw FaultProxyError(message: "The proxy's listening socket has no port.")
        }
        let proxy = FaultProxy(server: server, port: port, targetHost: targetHost, targetPort: targetPort)
        proxy.acceptLoop.withLock { $0 = Task { await proxy.acceptConnections() } }
        return proxy
    }

    /// Starts a proxy to the host and port of `url` (such as ``LocalBackend/endpoint``).
    ///
    /// - Throws: ``FaultProxyError`` when `url` has no host or port, or what
    ///   ``start(targetHost:targetPort:)`` throws.
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
        let channels = state.withLock { state in
            defer { state.connections = [:] }
            return state.connections.values.flatMap { $0 }
        }
        for channel in channels {
            channel.close(promise: nil)
        }
    }

    /// Forwards nothing until ``resume()``: connections stay open, what they send waits, and new
    /// connections are accepted but not connected to the target.
    public func blackHole() {
        state.withLock { $0.isBlackHoled = true }
    }

    /// Holds each chunk for `delay` before forwarding it, in both directions, until ``resume()``.
    public func delay(by delay: Duration) {
        state.withLock { $0.delay = delay }
    }

    /// Closes each connection once it has carried `bytes` bytes, both directions counted, until
    /// ``resume()``: the chunk that crosses the limit is cut at it.
    ///
    /// - Precondition: `bytes` is 0 or more.
    public func dropAfter(bytes: Int) {
        precondition(bytes >= 0, "dropAfter(bytes:) needs 0 or more bytes, not \(bytes).")
        state.withLock { $0.dropAfter = bytes }
    }

    /// Ends every fault: held traffic flows, waiting connections connect, no delay, no drop.
    public func resume() {
        state.withLock { state in
            state.isBlackHoled = false
            state.delay = nil
            state.dropAfter = nil
        }
    }

    /// Stops listening and closes every connection.
    public func stop() async {
        try? await server.channel.close()
        cutAllConnections()
        let task = acceptLoop.withLock { $0 }
        await task?.value
    }

    // MARK: - Forwarding

    private func acceptConnections() async {
        do {
            try await server.executeThenClose { inbound in
                try await withThrowingDiscardingTaskGroup { group in
                    for try await connection in inbound {
                        group.addTask { await self.relay(connection) }
                    }
                }
            }
        } catch {
            // The listening socket closed: the proxy stopped.
        }
    }

    /// Carries one client connection to the target and back until either side closes it or a
    /// fault does.
    private func relay(_ client: NIOAsyncChannel<ByteBuffer, ByteBuffer>) async {
        accepted.add(1, ordering: .relaxed)
        open.add(1, ordering: .relaxed)
        defer { open.subtract(1, ordering: .relaxed) }
        let id = state.withLock { state in
            defer { state.nextConnection += 1 }
            state.connections[state.nextConnection] = [client.channel]
            return state.nextConnection
        }
        defer { _ = state.withLock { $0.connections.removeValue(forKey: id) } }
        // Every channel is used through `executeThenClose`, which finishes its writer and closes
        // it however the relay ends.
        do {
            try await client.executeThenClose { clientInbound, clientOutbound in
                guard await passes(id) else { return }
                let target = try await ClientBootstrap(group: client.channel.eventLoop)
                    .channelOption(.socketOption(.tcp_nodelay), value: 1)
                    .connect(host: targetHost, port: targetPort) { channel in
                        channel.eventLoop.makeCompletedFuture {
                            try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
                        }
                    }
                try await target.executeThenClose { targetInbound, targetOutbound in
                    let registered = state.withLock { state in
                        guard state.connections[id] != nil else { return false }
                        state.connections[id]?.append(target.channel)
                        return true
                    }
                    guard registered else { return }
                    let carried = ByteCount()
                    try await withThrowingTaskGroup(of: Void.self) { group in
                        group.addTask {
                            try await self.pump(clientInbound, to: targetOutbound, id: id, carried: carried) {
                                self.fromClients.add($0, ordering: .relaxed)
                            }
                        }
                        group.addTask {
                            try await self.pump(targetInbound, to: clientOutbound, id: id, carried: carried) {
                                self.fromTarget.add($0, ordering: .relaxed)
                            }
                        }
                        // One side ended: the connection ends.
                        try await group.next()
                        client.channel.close(promise: nil)
                        target.channel.close(promise: nil)
                        group.cancelAll()
                    }
                }
            }
        } catch {
            // A side closed, the target refused the connection, or a fault cut it: the
            // connection is over either way.
        }
    }

    /// Forwards `inbound` to `outbound` chunk by chunk, applying the faults in force.
    private func pump(
        _ inbound: NIOAsyncChannelInboundStream<ByteBuffer>,
        to outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>,
        id: Int,
        carried: ByteCount,
        count: (Int) -> Void
    ) async throws {
        for try await chunk in inbound {
            guard await passes(id) else { return }
            var chunk = chunk
            let (delay, limit) = state.withLock { ($0.delay, $0.dropAfter) }
            if let delay { try await Task.sleep(for: delay) }
            let before = carried.bytes.add(chunk.readableBytes, ordering: .relaxed).oldValue
            if let limit, before + chunk.readableBytes >= limit {
                let allowed = max(limit - before, 0)
                if allowed > 0, let head = chunk.readSlice(length: allowed) {
                    try await outbound.write(head)
                    count(allowed)
                }
                return
            }
            let size = chunk.readableBytes
            try await outbound.write(chunk)
            count(size)
        }
    }

    /// Waits while the proxy is black-holed; `false` when the connection was cut meanwhile.
    private func passes(_ id: Int) async -> Bool {
        while true {
            let (isBlackHoled, isOpen) = state.withLock { ($0.isBlackHoled, $0.connections[id] != nil) }
            guard isOpen else { return false }
            guard isBlackHoled else { return true }
            do {
                try await Task.sleep(for: .milliseconds(5))
            } catch {
                return false
            }
        }
    }
}

/// The bytes one connection carried, both directions counted.
private final class ByteCount: Sendable {
    let bytes = Atomic<Int>(0)
}

/// The fault proxy could not start.
public struct FaultProxyError: Error, Sendable, CustomStringConvertible {
    /// What went wrong and what to do.
    public let message: String
    /// The message.
    public var description: String { message }
}
