import Hummingbird
import Synchronization

/// An OTLP/HTTP endpoint in this process that reads each export of spans and answers 200, for
/// the benchmarks that measure what exporting costs: a collector that costs next to nothing.
final class SpanCollector: Sendable {
    private let received = Atomic<Int>(0)

    /// The bytes of spans received so far.
    var receivedBytes: Int { received.load(ordering: .relaxed) }

    private init() {}

    /// Starts a collector on a free port of the loopback address; `body` runs with its base URL
    /// (as `ServerTracing.otlp(endpoint:)` takes it) while it serves.
    static func run<T>(_ body: (SpanCollector, String) async throws -> T) async throws -> T {
        let collector = SpanCollector()
        let router = Router()
        router.post("v1/traces") { request, _ -> Response in
            let body = try await request.body.collect(upTo: 64 << 20)
            collector.received.add(body.readableBytes, ordering: .relaxed)
            return Response(status: .ok, headers: [.contentType: "application/x-protobuf"])
        }
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        let application = Application(
            router: router,
            configuration: ApplicationConfiguration(address: .hostname("127.0.0.1", port: 0)),
            onServerRunning: { continuation.yield($0.localAddress?.port ?? 0) }
        )
        let running = Task { try await application.run() }
        defer { running.cancel() }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next() else { throw CollectorError() }
        return try await body(collector, "http://127.0.0.1:\(port)")
    }

    private struct CollectorError: Error, CustomStringConvertible {
        var description: String { "The in-process span collector did not start." }
    }
}
