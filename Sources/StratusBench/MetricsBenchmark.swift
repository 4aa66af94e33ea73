// What counting costs: the same requests to a server without metrics and to one with `/metrics`,
// in alternating rounds of the same run.
//
// Run with `swift run -c release StratusBench metrics`.
import AWSPluginsCore
import Foundation
import StratusServer
import StratusTesting

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Requests per second and processor time per request (client and server, one process) of
/// creates and gets sent four at a time over keep-alive with AsyncHTTPClient, to two servers of
/// the same schema: one counting nothing (the baseline) and one counting every request,
/// connection and conflict in a Prometheus registry. Five alternating rounds; medians.
struct MetricsBenchmark {
    var requests = Int(ProcessInfo.processInfo.environment["STRATUS_BENCH_METRICS_REQUESTS"] ?? "") ?? 4_000
    var rounds = 5

    static let schema = "type Note @model { id: ID! text: String! }"

    func run() async throws {
        let plain = try await LocalBackend.start(schema: Self.schema)
        defer { Task { await plain.stop() } }
        let exported = MetricsEndpoint()
        let counted = try await LocalBackend.start(schema: Self.schema, metrics: exported)
        defer { Task { await counted.stop() } }
        let transport = AsyncHTTPClientTransport()

        print("metrics: \(requests) creates and \(requests) gets, four at a time, without and with /metrics, same run")
        var off: [(rate: Double, cpu: Double)] = []
        var on: [(rate: Double, cpu: Double)] = []
        for round in 0..<rounds {
            off.append(try await measure(plain, transport: transport, prefix: "r\(round)"))
            on.append(try await measure(counted, transport: transport, prefix: "r\(round)"))
        }
        let (offRate, onRate) = (median(off.map(\.rate)), median(on.map(\.rate)))
        let (offCPU, onCPU) = (median(off.map(\.cpu)), median(on.map(\.cpu)))
        print(
            "  without metrics \(Int(offRate)) requests/s, \(format(offCPU * 1e6)) µs of processor per request; "
                + "with metrics \(Int(onRate)) requests/s, \(format(onCPU * 1e6)) µs"
        )
        print(
            "  with metrics: processor per request \(format(onCPU / offCPU))x, throughput "
                + "\(format(onRate / offRate))x (target: within 1.05x)"
        )
        let scrape = try await transport.send(URLRequest(url: counted.origin.appending(path: "metrics")))
        print("  /metrics after the run: \(scrape.body.count) bytes")
    }

    /// One round against `backend`: the creates, then the gets of what they created (shared with
    /// ``TracingBenchmark``).
    func measure(
        _ backend: LocalBackend,
        transport: AsyncHTTPClientTransport,
        prefix: String
    ) async throws -> (rate: Double, cpu: Double) {
        let create = "mutation($input: CreateNoteInput!) { createNote(input: $input) { id text } }"
        let get = "query($id: ID!) { getNote(id: $id) { id text } }"
        @Sendable func send(_ query: String, _ variables: [String: Any]) async throws {
            var request = URLRequest(url: backend.endpoint)
            request.httpMethod = "POST"
            request.setValue("application/json", forHTTPHeaderField: "content-type")
            request.setValue(backend.apiKey, forHTTPHeaderField: "x-api-key")
            request.httpBody = try JSONSerialization.data(withJSONObject: ["query": query, "variables": variables])
            let response = try await transport.send(request)
            precondition(response.statusCode == 200 && !response.body.isEmpty)
        }
        let count = requests
        let cpuStart = ProcessCPUTime.now().seconds
        let start = ContinuousClock.now
        for query in [create, get] {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for lane in 0..<4 {
                    group.addTask {
                        for index in stride(from: lane, to: count, by: 4) {
                            let id = "\(prefix)-\(index)"
                            if query == create {
                                try await send(query, ["input": ["id": id, "text": "Note \(index)"]])
                            } else {
                                try await send(query, ["id": id])
                            }
                        }
                    }
                }
                try await group.waitForAll()
            }
        }
        let elapsed = ContinuousClock.now - start
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        return (Double(2 * count) / seconds, (ProcessCPUTime.now().seconds - cpuStart) / Double(2 * count))
    }

    private func format(_ value: Double) -> String {
        String(format: "%.3f", value)
    }
}
