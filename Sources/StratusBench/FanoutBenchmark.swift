import Foundation
import HTTPTypes
import HummingbirdWSClient
import Logging
import StratusCodegen
import StratusServer
import Synchronization

/// Real-time fan-out: subscribers on loopback WebSockets, mutations at a steady rate, and the
/// time from each mutation's start to each subscriber's `data` message.
///
/// Prints p50 and p99 latency, deliveries per second, and the events lost or delivered twice.
struct FanoutBenchmark {
    /// Overridden by `STRATUS_FANOUT_SUBSCRIBERS`, `STRATUS_FANOUT_RATE` and `STRATUS_FANOUT_SECONDS`.
    var subscribers = Self.setting("STRATUS_FANOUT_SUBSCRIBERS") ?? 1000
    var mutationsPerSecond = Self.setting("STRATUS_FANOUT_RATE") ?? 100
    var duration: Duration = .seconds(Self.setting("STRATUS_FANOUT_SECONDS") ?? 30)

    private static func setting(_ name: String) -> Int? {
        ProcessInfo.processInfo.environment[name].flatMap { Int($0) }
    }

    private static let schema = """
        type Post @model {
          id: ID!
          title: String!
          rating: Int!
        }
        """

    /// What the subscribers received.
    private final class Tally: Sendable {
        struct State {
            var latencies: [Double] = []
            var seen: [[Bool]]
            var duplicates = 0
            var errors: [String] = []
        }

        let state: Mutex<State>
        let sentAt: Mutex<[ContinuousClock.Instant?]>
        /// Set when the run is over: subscribers stop reading.
        let stopped = Mutex(false)

        init(subscribers: Int, mutations: Int) {
            state = Mutex(State(seen: Array(repeating: Array(repeating: false, count: mutations), count: subscribers)))
            sentAt = Mutex(Array(repeating: nil, count: mutations))
        }

        func record(subscriber: Int, mutation: Int, at instant: ContinuousClock.Instant) {
            let sent = sentAt.withLock { $0[mutation] }
            state.withLock { state in
                if state.seen[subscriber][mutation] {
                    state.duplicates += 1
                    return
                }
                state.seen[subscriber][mutation] = true
                if let sent { state.latencies.append(Self.milliseconds(instant - sent)) }
            }
        }

        static func milliseconds(_ duration: Duration) -> Double {
            let (seconds, attoseconds) = duration.components
            return Double(seconds) * 1000 + Double(attoseconds) / 1e15
        }
    }

    /// The number in `"title":"<number>"` of a `data` message.
    private static func title(in text: String) -> Int? {
        let utf8 = text.utf8
        let marker = Array(#""title":""#.utf8)
        guard let start = utf8.firstRange(of: marker)?.upperBound else { return nil }
        var value = 0
        var index = start
        var digits = 0
        while index < utf8.endIndex, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(utf8[index]) {
            value = value * 10 + Int(utf8[index] - UInt8(ascii: "0"))
            digits += 1
            index = utf8.index(after: index)
        }
        return digits > 0 && index < utf8.endIndex && utf8[index] == UInt8(ascii: "\"") ? value : nil
    }

    func run() async throws {
        let mutations = Int(Tally.milliseconds(duration) / 1000 * Double(mutationsPerSecond))
        print("fanout: \(subscribers) subscribers, \(mutationsPerSecond) mutations/s for \(duration)")
        let directory = FileManager.default.temporaryDirectory.appending(path: "stratus-fanout-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let server = try StratusServer(
            schema: try SchemaParser().parse(Self.schema, fileName: "schema.graphql"),
            configuration: ServerConfiguration(conflictDetection: false),
            dataDirectory: directory
        )
        let http = StratusHTTPServer(
            server: server,
            authorization: ServerAuthorization(defaultMode: .apiKey, apiKeys: [APIKey(value: "da2-bench")]),
            // Every subscriber connects from the loopback address.
            limits: ServerLimits(maxConnectionsPerAddress: subscribers + 16),
            log: { print($0) }
        )
        let (ports, portContinuation) = AsyncStream.makeStream(of: Int.self)
        let serverTask = Task { try await http.run(port: 0) { portContinuation.yield($0) } }
        defer { serverTask.cancel() }
        var portIterator = ports.makeAsyncIterator()
        guard let port = await portIterator.next() else { return }

        let tally = Tally(subscribers: subscribers, mutations: mutations)
        let header = Data(#"{"host":"127.0.0.1:\#(port)","x-api-key":"da2-bench"}"#.utf8).base64EncodedString()
        let url = "ws://127.0.0.1:\(port)/graphql/realtime?header=\(header)&payload=e30="
        let (ready, readyContinuation) = AsyncStream.makeStream(of: Void.self)
        let start =
            #"{"id":"s","type":"start","payload":{"data":"{\"query\":\"subscription { onCreatePost { id title } }\"}","extensions":{}}}"#
        let clients = Task {
            await withTaskGroup(of: Void.self) { group in
                for subscriber in 0..<subscribers {
                    group.addTask {
                        var configuration = WebSocketClientConfiguration()
                        configuration.additionalHeaders[.secWebSocketProtocol] = "graphql-ws"
                        do {
                            try await WebSocketClient.connect(
                                url: url,
                                configuration: configuration,
                                logger: Logger(label: "stratus.bench.ws")
                            ) { inbound, outbound, _ in
                                try await outbound.writeTextMessage(#"{"type":"connection_init"}"#)
                                try await outbound.writeTextMessage(start)
                                for try await message in inbound.messages(maxSize: 1 << 20) {
                                    guard case .text(let text) = message else { continue }
                                    let now = ContinuousClock.now
                                    if text.hasPrefix(#"{"id":"s","type":"start_ack"#) {
                                        readyContinuation.yield()
                                        continue
                                    }
                                    guard text.hasPrefix(#"{"id":"s","type":"data"#) else {
                                        if text.contains("error") { tally.state.withLock { $0.errors.append(text) } }
                                        continue
                                    }
                                    // The mutation's number is the title; a scan for it keeps the
                                    // subscribers' share of the two cores small.
                                    if let mutation = Self.title(in: text) {
                                        tally.record(subscriber: subscriber, mutation: mutation, at: now)
                                    }
                                    if tally.stopped.withLock({ $0 }) { break }
                                }
                            }
                        } catch  where !tally.stopped.withLock({ $0 }) {
                            tally.state.withLock { $0.errors.append("subscriber \(subscriber): \(error)") }
                            readyContinuation.yield()
                        } catch {
                            readyContinuation.yield()
                        }
                    }
                }
            }
        }
        var connected = 0
        for await _ in ready {
            connected += 1
            if connected == subscribers { break }
        }
        print("fanout: \(connected) subscriptions acknowledged")

        let interval = Duration.seconds(1) / mutationsPerSecond
        let began = ContinuousClock.now
        await withTaskGroup(of: Void.self) { group in
            for mutation in 0..<mutations {
                try? await Task.sleep(until: began + interval * mutation, clock: .continuous)
                group.addTask {
                    tally.sentAt.withLock { $0[mutation] = .now }
                    _ = await server.execute(
                        query: "mutation { createPost(input: {title: \"\(mutation)\", rating: 1}) { id title } }",
                        identity: .apiKey
                    )
                }
            }
        }
        let elapsed = ContinuousClock.now - began
        // Let the last deliveries arrive.
        let expected = mutations * subscribers
        let drainDeadline = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < drainDeadline {
            let received = tally.state.withLock { $0.latencies.count }
            if received >= expected { break }
            try? await Task.sleep(for: .milliseconds(100))
        }
        let deliveryEnd = ContinuousClock.now
        tally.stopped.withLock { $0 = true }
        clients.cancel()
        serverTask.cancel()

        let state = tally.state.withLock { $0 }
        let latencies = state.latencies.sorted()
        func percentile(_ fraction: Double) -> Double {
            latencies.isEmpty ? .nan : latencies[min(latencies.count - 1, Int(Double(latencies.count) * fraction))]
        }
        let delivered = latencies.count
        let seconds = Tally.milliseconds(deliveryEnd - began) / 1000
        print(
            String(
                format: "fanout: %d mutations in %.1f s, %d deliveries of %d expected",
                mutations,
                Tally.milliseconds(elapsed) / 1000,
                delivered,
                expected
            )
        )
        print(String(format: "fanout: latency p50 %.2f ms, p99 %.2f ms", percentile(0.5), percentile(0.99)))
        print(String(format: "fanout: %.0f deliveries/s", Double(delivered) / seconds))
        print(
            "fanout: lost (not delivered 10 s after the last mutation) \(expected - delivered), duplicated \(state.duplicates)"
        )
        if !state.errors.isEmpty {
            print("fanout: \(state.errors.count) errors, first: \(state.errors[0].prefix(300))")
        }
        _ = await serverTask.result
        try server.close()
    }
}
