import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOWebSocket
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The subscribers of the fan-out benchmark, run as their own process (`StratusBench
/// fanout-clients`) so that their work does not mix with the server's.
///
/// Opens `subscribers` WebSockets to `ws://127.0.0.1:PORT/graphql/realtime` with API_KEY
/// authorization, starts one `onUpdatePost` subscription on each, prints
/// `fanout-clients: ready` when every connection is acknowledged or has failed, and counts each
/// delivery in its subscription's ``DeliveryLedger``. It ends when every subscription heard
/// every mutation, on SIGTERM, or after `STRATUS_FANOUT_TIMEOUT` seconds, printing one line
/// `fanout-clients-report: <JSON>` (a ``FanoutClientsReport``).
///
/// Settings come from the environment: `STRATUS_FANOUT_PORT` (several, comma-separated, spread
/// the subscribers over several servers in turn), `STRATUS_FANOUT_SUBSCRIBERS`,
/// `STRATUS_FANOUT_MUTATIONS`, `STRATUS_FANOUT_API_KEY` and `STRATUS_FANOUT_TIMEOUT`.
struct FanoutClients {
    var ports: [Int]
    var subscribers: Int
    var mutations: Int
    var apiKey: String
    var timeout: Duration
    /// Connections being opened at once.
    var connectConcurrency = 200

    /// The settings read from the environment.
    ///
    /// - Throws: ``FanoutError`` naming a missing or malformed variable.
    static func fromEnvironment() throws(FanoutError) -> FanoutClients {
        let environment = ProcessInfo.processInfo.environment
        func integer(_ name: String) throws(FanoutError) -> Int {
            guard let text = environment[name], let value = Int(text), value >= 0 else {
                throw FanoutError("\(name) must be a whole number; it is '\(environment[name] ?? "")'.")
            }
            return value
        }
        let ports = (environment["STRATUS_FANOUT_PORT"] ?? "").split(separator: ",").compactMap { Int($0) }
        guard !ports.isEmpty else {
            throw FanoutError(
                "STRATUS_FANOUT_PORT must be a port or ports separated by commas; it is "
                    + "'\(environment["STRATUS_FANOUT_PORT"] ?? "")'."
            )
        }
        return FanoutClients(
            ports: ports,
            subscribers: try integer("STRATUS_FANOUT_SUBSCRIBERS"),
            mutations: try integer("STRATUS_FANOUT_MUTATIONS"),
            apiKey: environment["STRATUS_FANOUT_API_KEY"] ?? "da2-bench",
            timeout: .seconds(try integer("STRATUS_FANOUT_TIMEOUT"))
        )
    }

    /// The `start` message each client sends: one `onUpdatePost` subscription.
    static let start =
        #"{"id":"s","type":"start","payload":{"data":"{\"query\":\"subscription { onUpdatePost { id title rating sentAt } }\"}","extensions":{}}}"#

    /// One subscription's ledger, locked by its own connection and by the final count.
    private final class Subscriber: Sendable {
        let ledger: Mutex<DeliveryLedger>
        /// The close code and reason the server sent, if it closed the connection.
        let closeReason = Mutex<String?>(nil)
        init(mutations: Int) { ledger = Mutex(DeliveryLedger(mutations: mutations)) }
    }

    /// Whether a connection was counted as acknowledged or failed.
    private final class Settlement: Sendable {
        let done = Atomic<Bool>(false)
    }

    /// What the connections have done so far.
    private final class Progress: Sendable {
        /// Connections acknowledged or failed.
        let settled = Atomic<Int>(0)
        let acknowledged = Atomic<Int>(0)
        /// Subscriptions that heard every mutation.
        let complete = Atomic<Int>(0)
        let stopping = Atomic<Bool>(false)
        /// When the last delivery arrived, in wall-clock microseconds.
        let lastDelivery = Atomic<Int64>(0)
        let errors = Mutex<[String]>([])
    }

    func run() async throws {
        let started = ProcessCPUTime.now()
        let uris = ports.map { port in
            let header = Data(#"{"host":"127.0.0.1:\#(port)","x-api-key":"\#(apiKey)"}"#.utf8).base64EncodedString()
            return "/graphql/realtime?header=\(header)&payload=e30="
        }
        // One event loop: the process is pinned to one core, and every handler then runs on
        // the thread that reads its socket.
        let eventLoops = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let subscribers = (0..<self.subscribers).map { _ in Subscriber(mutations: mutations) }
        let progress = Progress()
        signal(SIGTERM, SIG_IGN)
        let terminate = DispatchSource.makeSignalSource(signal: SIGTERM, queue: .global())
        terminate.setEventHandler { progress.stopping.store(true, ordering: .relaxed) }
        terminate.resume()

        let clients = Task {
            await withTaskGroup(of: Void.self) { group in
                for (index, subscriber) in subscribers.enumerated() {
                    while index - progress.settled.load(ordering: .relaxed) >= connectConcurrency {
                        try? await Task.sleep(for: .milliseconds(5))
                    }
                    group.addTask {
                        await Self.subscribe(
                            index: index,
                            port: ports[index % ports.count],
                            uri: uris[index % uris.count],
                            group: eventLoops,
                            subscriber: subscriber,
                            progress: progress
                        )
                    }
                }
            }
        }

        let deadline = ContinuousClock.now + timeout
        while progress.settled.load(ordering: .relaxed) < self.subscribers, ContinuousClock.now < deadline,
            !progress.stopping.load(ordering: .relaxed)
        {
            try await Task.sleep(for: .milliseconds(20))
        }
        let acknowledged = progress.acknowledged.load(ordering: .relaxed)
        print("fanout-clients: ready, \(acknowledged) subscriptions acknowledged")
        fflush(nil)
        let measured = ProcessCPUTime.now()
        while progress.complete.load(ordering: .relaxed) < acknowledged, ContinuousClock.now < deadline,
            !progress.stopping.load(ordering: .relaxed)
        {
            try await Task.sleep(for: .milliseconds(20))
        }
        let ended = ProcessCPUTime.now()
        progress.stopping.store(true, ordering: .relaxed)
        let errors = progress.errors.withLock { $0 }
        let report = FanoutClientsReport(
            deliveries: DeliverySummary(subscribers.map { $0.ledger.withLock { $0 } }),
            acknowledged: acknowledged,
            lastDelivery: progress.lastDelivery.load(ordering: .relaxed),
            cpuSeconds: ended.seconds - measured.seconds,
            connectCPUSeconds: measured.seconds - started.seconds,
            errors: errors.count,
            firstError: errors.first.map { String($0.prefix(300)) }
        )
        let text = String(decoding: try JSONEncoder().encode(report), as: UTF8.self)
        print("fanout-clients-report: \(text)")
        fflush(nil)
        clients.cancel()
        // Closing thousands of sockets one by one would only delay the report's reader.
        exit(0)
    }

    /// Opens one subscriber's WebSocket on `group` and has ``SubscriberHandler`` read its frames on
    /// the event loop; returns when the connection has closed.
    private static func subscribe(
        index: Int,
        port: Int,
        uri: String,
        group: any EventLoopGroup,
        subscriber: Subscriber,
        progress: Progress
    ) async {
        let settlement = Settlement()
        let settle: @Sendable (Bool) -> Void = { acknowledged in
            guard !settlement.done.exchange(true, ordering: .relaxed) else { return }
            if acknowledged { progress.acknowledged.add(1, ordering: .relaxed) }
            progress.settled.add(1, ordering: .relaxed)
        }
        let fail: @Sendable (String) -> Void = { problem in
            if !progress.stopping.load(ordering: .relaxed) {
                progress.errors.withLock { $0.append("subscriber \(index): \(problem)") }
            }
        }
        do {
            let channel = try await ClientBootstrap(group: group)
                .channelOption(.tcpOption(.tcp_nodelay), value: 1)
                .connect(host: "127.0.0.1", port: port)
                .get()
            let upgraded = try await channel.eventLoop.flatSubmit {
                // No error handler of SwiftNIO's in the pipeline, one hop less per frame: a
                // protocol error reaches `SubscriberHandler.errorCaught`, which counts it.
                let upgrader = NIOTypedWebSocketClientUpgrader<Bool>(
                    maxFrameSize: 1 << 20,
                    enableAutomaticErrorHandling: false
                ) { channel, _ in
                    channel.eventLoop.makeCompletedFuture {
                        let handler = SubscriberHandler(
                            subscriber: subscriber,
                            progress: progress,
                            settle: settle,
                            fail: fail
                        )
                        try channel.pipeline.syncOperations.addHandler(handler)
                        return true
                    }
                }
                var headers = HTTPHeaders()
                headers.add(name: "Host", value: "127.0.0.1:\(port)")
                headers.add(name: "Sec-WebSocket-Protocol", value: "graphql-ws")
                headers.add(name: "Content-Length", value: "0")
                let configuration = NIOTypedHTTPClientUpgradeConfiguration<Bool>(
                    upgradeRequestHead: HTTPRequestHead(version: .http1_1, method: .GET, uri: uri, headers: headers),
                    upgraders: [upgrader],
                    notUpgradingCompletionHandler: { channel in channel.eventLoop.makeSucceededFuture(false) }
                )
                do {
                    return try channel.pipeline.syncOperations.configureUpgradableHTTPClientPipeline(
                        configuration: .init(upgradeConfiguration: configuration)
                    )
                } catch {
                    return channel.eventLoop.makeFailedFuture(error)
                }
            }.get()
            if upgraded {
                // Written once the upgrade is done: the upgrade handler refuses writes until then.
                for text in [#"{"type":"connection_init"}"#, start] {
                    channel.write(
                        WebSocketFrame(fin: true, opcode: .text, maskKey: .random(), data: ByteBuffer(string: text)),
                        promise: nil
                    )
                }
                channel.flush()
            } else {
                fail("the server refused the WebSocket upgrade")
                channel.close(promise: nil)
            }
            try await channel.closeFuture.get()
            // A connection the server closed before every delivery is an error too.
            if upgraded, !subscriber.ledger.withLock({ $0.isComplete }) {
                fail("the server closed the connection (\(subscriber.closeReason.withLock { $0 } ?? "no close frame"))")
            }
        } catch {
            fail("\(error)")
        }
        settle(false)
    }

    /// Microseconds since 1970 by the wall clock, which both processes read alike.
    static func wallClockMicroseconds() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return Int64(now.tv_sec) * 1_000_000 + Int64(now.tv_nsec) / 1000
    }
}

/// What the load generator prints at its end.
struct FanoutClientsReport: Codable, Sendable {
    var deliveries: DeliverySummary
    var acknowledged: Int
    /// When the last delivery arrived, in wall-clock microseconds; 0 for none.
    var lastDelivery: Int64
    /// CPU time from the moment every subscription was ready to the end.
    var cpuSeconds: Double
    /// CPU time spent opening the connections.
    var connectCPUSeconds: Double
    var errors: Int
    var firstError: String?
}

/// The fields of a `data` message of the benchmark's subscription, found by a scan rather
/// than a JSON parse so the load generator's share of its core stays small.
///
/// The item is `{"id":"r<record>","title":"<mutation>","rating":<sequence>,"sentAt":"<µs>"}`.
struct DataMessage: Sendable, Hashable {
    var mutation: Int
    var record: Int
    var sequence: Int
    /// When the mutating side sent the mutation, in wall-clock microseconds.
    var sentAt: Int64

    init(mutation: Int, record: Int, sequence: Int, sentAt: Int64) {
        self.mutation = mutation
        self.record = record
        self.sequence = sequence
        self.sentAt = sentAt
    }

    /// The fields of `text`, or `nil` when it is not a `data` message with all of them.
    init?(_ text: String) {
        var text = text
        guard let message = text.withUTF8({ DataMessage(bytes: $0) }) else { return nil }
        self = message
    }

    /// The fields of a message's UTF-8 `bytes`, or `nil` when it is not a `data` message with
    /// all of them in the order the subscription selects them.
    init?(bytes: UnsafeBufferPointer<UInt8>) {
        guard Self.hasPrefix(bytes, Self.dataPrefix) else { return nil }
        var position = Self.dataPrefix.count
        guard let record = Self.integer(after: Self.recordMarker, in: bytes, from: &position),
            let mutation = Self.integer(after: Self.titleMarker, in: bytes, from: &position),
            let sequence = Self.integer(after: Self.ratingMarker, in: bytes, from: &position),
            let sentAt = Self.integer(after: Self.sentAtMarker, in: bytes, from: &position)
        else { return nil }
        (self.mutation, self.record, self.sequence, self.sentAt) = (mutation, record, sequence, Int64(sentAt))
    }

    private static let dataPrefix = Array(#"{"id":"s","type":"data""#.utf8)
    private static let recordMarker = Array(#""id":"r"#.utf8)
    private static let titleMarker = Array(#""title":""#.utf8)
    private static let ratingMarker = Array(#""rating":"#.utf8)
    private static let sentAtMarker = Array(#""sentAt":""#.utf8)

    private static func hasPrefix(_ bytes: UnsafeBufferPointer<UInt8>, _ prefix: [UInt8]) -> Bool {
        bytes.count >= prefix.count && zip(bytes, prefix).allSatisfy { $0 == $1 }
    }

    /// The decimal digits right after the first `marker` at or after `position`, which moves past
    /// them. Markers are found with `memchr` and `memcmp`, each search going on from the last:
    /// searching the whole message one byte at a time for each field was the load generator's
    /// largest cost.
    private static func integer(
        after marker: [UInt8],
        in bytes: UnsafeBufferPointer<UInt8>,
        from position: inout Int
    ) -> Int? {
        guard let base = bytes.baseAddress, let first = marker.first else { return nil }
        var start = position
        let found: Bool = marker.withUnsafeBytes { marker in
            guard let markerBase = marker.baseAddress else { return false }
            while start + marker.count <= bytes.count {
                guard let hit = memchr(base + start, Int32(first), bytes.count - marker.count + 1 - start) else {
                    return false
                }
                start = base.distance(to: hit.assumingMemoryBound(to: UInt8.self))
                if memcmp(base + start, markerBase, marker.count) == 0 { return true }
                start += 1
            }
            return false
        }
        guard found else { return nil }
        var index = start + marker.count
        var value = 0
        let digits = index
        while index < bytes.count, bytes[index] >= UInt8(ascii: "0"), bytes[index] <= UInt8(ascii: "9"),
            index - digits < 18
        {
            value = value * 10 + Int(bytes[index] - UInt8(ascii: "0"))
            index += 1
        }
        position = index
        return index > digits ? value : nil
    }
}

/// A fan-out setting that cannot be used.
struct FanoutError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// The CPU time this process has used, user and system together.
struct ProcessCPUTime {
    var seconds: Double

    static func now() -> ProcessCPUTime {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
        return ProcessCPUTime(seconds: seconds(usage.ru_utime) + seconds(usage.ru_stime))
    }
}

extension FanoutClients {
    /// Reads one subscriber's frames on its event loop, with no task hop per message: counts
    /// each `data` message in the ledger, and answers pings.
    private final class SubscriberHandler: ChannelInboundHandler {
        typealias InboundIn = WebSocketFrame
        typealias OutboundOut = WebSocketFrame

        private let subscriber: Subscriber
        private let progress: Progress
        private let settle: @Sendable (Bool) -> Void
        private let fail: @Sendable (String) -> Void

        init(
            subscriber: Subscriber,
            progress: Progress,
            settle: @escaping @Sendable (Bool) -> Void,
            fail: @escaping @Sendable (String) -> Void
        ) {
            self.subscriber = subscriber
            self.progress = progress
            self.settle = settle
            self.fail = fail
        }

        private static let startAckPrefix = Array(#"{"id":"s","type":"start_ack""#.utf8)

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            let frame = unwrapInboundIn(data)
            switch frame.opcode {
            case .text:
                let payload = frame.unmaskedData
                let kind = payload.withUnsafeReadableBytes { raw -> DataMessage? in
                    DataMessage(bytes: raw.assumingMemoryBound(to: UInt8.self))
                }
                if let fields = kind {
                    let now = FanoutClients.wallClockMicroseconds()
                    progress.lastDelivery.store(now, ordering: .relaxed)
                    let complete = subscriber.ledger.withLock {
                        $0.record(
                            mutation: fields.mutation,
                            record: fields.record,
                            sequence: fields.sequence,
                            latency: now - fields.sentAt
                        )
                        return $0.isComplete
                    }
                    if complete {
                        progress.complete.add(1, ordering: .relaxed)
                        context.close(promise: nil)
                    }
                    return
                }
                let isStartAck = payload.withUnsafeReadableBytes { raw in
                    raw.starts(with: Self.startAckPrefix)
                }
                if isStartAck {
                    settle(true)
                } else {
                    let text = String(buffer: payload)
                    if text.contains("error") { fail(text) }
                }
            case .ping:
                let pong = WebSocketFrame(fin: true, opcode: .pong, maskKey: .random(), data: frame.unmaskedData)
                context.writeAndFlush(wrapOutboundOut(pong), promise: nil)
            case .connectionClose:
                var data = frame.unmaskedData
                let code = data.readWebSocketErrorCode().map { "\($0)" } ?? "no code"
                let reason = data.readString(length: data.readableBytes) ?? ""
                subscriber.closeReason.withLock { $0 = "\(code) \(reason)" }
                context.close(promise: nil)
            default:
                break
            }
        }

        func errorCaught(context: ChannelHandlerContext, error: any Error) {
            fail("\(error)")
            context.close(promise: nil)
        }

    }
}
