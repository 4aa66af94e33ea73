import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOWebSocket
import StratusServer
import Synchronization

/// The fan-out benchmark's same-run baseline: a WebSocket server that does nothing but write the
/// benchmark's `data` messages, the way a bare SwiftNIO server would, so its figures are what the
/// sockets, SwiftNIO and the load generator cost on this machine without Stratus.
///
/// It speaks just enough of the AppSync protocol for ``FanoutClients``: `connection_ack` to
/// `connection_init`, `start_ack` to `start`, then every event posted after the `start`, as a
/// `data` message for that subscription's id. There is no GraphQL, no authorization, no
/// keep-alive and no slow-consumer rule, and one subscription per connection. Each event's
/// payload is encoded once. One task on the event loop visits every connection in turn and writes
/// each event posted up to that moment that the connection has not had yet: their frames in one
/// buffer, written below SwiftNIO's frame encoder with one flush (so one `write`), as Stratus
/// writes a connection's batch. It goes round again while events are posted. All its connections
/// share one event loop, as the Stratus server's do when `taskset` pins the benchmark to one CPU;
/// without it, Stratus spreads them over several loops and the comparison favours Stratus.
final class BareFanoutServer: Sendable {
    /// The port it listens on, on `127.0.0.1`.
    let port: Int
    private let server: any Channel
    private let shared: Shared

    /// The events and the connections that hear them.
    private final class Shared: Sendable {
        let loop: any EventLoop
        /// The events not yet written to every connection, the first being event number
        /// `base`, and whether a round over the connections is scheduled.
        let log = Mutex<(events: [ByteBuffer], base: Int, scheduled: Bool)>(([], 0, false))
        /// The subscribed connections and the number of the next event each should get, on
        /// `loop` only (made there too).
        let connections: NIOLoopBound<Connections>

        final class Connections {
            /// Each with the context of its frame encoder and its subscription's id as a JSON
            /// string.
            var channels: [(channel: any Channel, encoder: ChannelHandlerContext, quotedID: String, next: Int)] = []
        }

        init(loop: any EventLoop) {
            self.loop = loop
            connections = NIOLoopBound(Connections(), eventLoop: loop)
        }

        /// Adds `channel`'s subscription `quotedID`, which hears the events posted from now on;
        /// `encoder` is the context of its frame encoder. On `loop`.
        func subscribe(_ channel: any Channel, encoder: ChannelHandlerContext, quotedID: String) {
            let next = log.withLock { $0.base + $0.events.count }
            connections.value.channels.append((channel, encoder, quotedID, next))
        }

        func post(_ message: ByteBuffer) {
            let schedule = log.withLock { log in
                log.events.append(message)
                defer { log.scheduled = true }
                return !log.scheduled
            }
            if schedule { loop.execute { self.visitAll() } }
        }

        /// One round over the connections; another follows when an event was posted after a
        /// connection's visit.
        private func visitAll() {
            let connections = connections.value
            for index in connections.channels.indices {
                let (events, base) = log.withLock { ($0.events, $0.base) }
                let (channel, encoder, quotedID, next) = connections.channels[index]
                let end = base + events.count
                guard next < end, channel.isActive else { continue }
                // The frames in one buffer, written below the frame encoder, as Stratus writes a
                // connection's batch.
                let fresh = events[(next - base)...]
                var capacity = 0
                for payload in fresh {
                    let size = RealtimeDataMessage.size(quotedID: quotedID, payload: payload)
                    capacity += WebSocketTextFrameHeader.size(length: size) + size
                }
                var frames = channel.allocator.buffer(capacity: capacity)
                for payload in fresh {
                    WebSocketTextFrameHeader.write(
                        length: RealtimeDataMessage.size(quotedID: quotedID, payload: payload),
                        to: &frames
                    )
                    RealtimeDataMessage.write(quotedID: quotedID, payload: payload, to: &frames)
                }
                encoder.writeAndFlush(NIOAny(frames), promise: nil)
                connections.channels[index].next = end
            }
            connections.channels.removeAll { !$0.channel.isActive }
            let heard = connections.channels.map(\.next).min()
            let again = log.withLock { log in
                let end = log.base + log.events.count
                let trimmed = min(heard ?? end, end) - log.base
                log.events.removeFirst(trimmed)
                log.base += trimmed
                // What is left, some connection has not had yet.
                log.scheduled = !log.events.isEmpty
                return log.scheduled
            }
            if again { loop.execute { self.visitAll() } }
        }
    }

    private init(server: any Channel, port: Int, shared: Shared) {
        self.server = server
        self.port = port
        self.shared = shared
    }

    /// Listens on a free port of `127.0.0.1`, on one event loop of `group`.
    static func start(group: any EventLoopGroup) async throws -> BareFanoutServer {
        let loop = group.next()
        // Made on the loop, as its loop-bound connections must be.
        let shared = try await loop.submit { Shared(loop: loop) }.get()
        let server = try await ServerBootstrap(group: loop)
            .serverChannelOption(.backlog, value: 4096)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                let upgrader = NIOWebSocketServerUpgrader(
                    maxFrameSize: 1 << 16,
                    shouldUpgrade: { channel, _ in
                        channel.eventLoop.makeSucceededFuture(["Sec-WebSocket-Protocol": "graphql-ws"])
                    },
                    upgradePipelineHandler: { channel, _ in
                        channel.eventLoop.makeCompletedFuture {
                            try channel.pipeline.syncOperations.addHandler(ProtocolHandler(shared: shared))
                        }
                    }
                )
                return channel.pipeline.configureHTTPServerPipeline(
                    withServerUpgrade: (upgraders: [upgrader], completionHandler: { _ in })
                )
            }
            .bind(host: "127.0.0.1", port: 0)
            .get()
        guard let port = server.localAddress?.port else {
            throw FanoutError("The bare fan-out server has no local port.")
        }
        return BareFanoutServer(server: server, port: port, shared: shared)
    }

    /// Sends mutation `mutation`, update `sequence` of record `record`, sent at `sentAt`
    /// (wall-clock microseconds), to every subscribed connection.
    func post(mutation: Int, record: Int, sequence: Int, sentAt: Int64) {
        shared.post(
            ByteBuffer(
                string: #"{"data":{"onUpdatePost":{"id":"r\#(record)","title":"\#(mutation)","#
                    + #""rating":\#(sequence),"sentAt":"\#(sentAt)"}}}"#
            )
        )
    }

    func close() async throws {
        try await server.close()
    }

    /// Answers `connection_init` and `start`, subscribing the connection on `start`.
    private final class ProtocolHandler: ChannelInboundHandler {
        typealias InboundIn = WebSocketFrame
        typealias OutboundOut = WebSocketFrame

        private let shared: Shared

        init(shared: Shared) { self.shared = shared }

        /// The fields of a client message the bare server reads.
        private struct Message: Decodable {
            var type: String
            var id: String?
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            let frame = unwrapInboundIn(data)
            switch frame.opcode {
            case .text:
                // A message it cannot read closes the connection, which the clients report.
                do {
                    let message = try JSONDecoder().decode(
                        Message.self,
                        from: Data(frame.unmaskedData.readableBytesView)
                    )
                    switch (message.type, message.id) {
                    case ("connection_init", _):
                        reply(#"{"type":"connection_ack","payload":{"connectionTimeoutMs":300000}}"#, context: context)
                    case ("start", let id?):
                        let quotedID = JSON.string(id).text
                        let encoder = try context.pipeline.syncOperations.context(
                            handlerType: WebSocketFrameEncoder.self
                        )
                        // Subscribed before the acknowledgement is written: a client told of it
                        // hears every event posted after.
                        shared.subscribe(context.channel, encoder: encoder, quotedID: quotedID)
                        reply(#"{"id":\#(quotedID),"type":"start_ack"}"#, context: context)
                    default:
                        break
                    }
                } catch {
                    context.close(promise: nil)
                }
            case .connectionClose:
                context.close(promise: nil)
            default:
                break
            }
        }

        private func reply(_ text: String, context: ChannelHandlerContext) {
            let frame = WebSocketFrame(fin: true, opcode: .text, data: ByteBuffer(string: text))
            context.writeAndFlush(wrapOutboundOut(frame), promise: nil)
        }
    }
}
