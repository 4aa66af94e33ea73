// What tracing costs: the same requests to a server without a tracer and to one exporting a span
// tree per request over OTLP/HTTP to a collector on loopback, in alternating rounds of the same run.
//
// Run with `swift run -c release StratusBench tracing`.
import AWSPluginsCore
import Foundation
import StratusServer
import StratusTesting

/// Requests per second and processor time per request (client, server and exporter, one
/// process) of ``MetricsBenchmark``'s creates and gets, against a server tracing nothing (the
/// baseline) and one exporting every request's spans in batches to a collector in the same
/// process that reads each export and answers 200. Five alternating rounds; medians.
struct TracingBenchmark {
    var requests = Int(ProcessInfo.processInfo.environment["STRATUS_BENCH_TRACING_REQUESTS"] ?? "") ?? 4_000
    var rounds = 5
    /// `off` or `on` runs that side alone (for a profile of one side); both otherwise.
    var side = ProcessInfo.processInfo.environment["STRATUS_BENCH_TRACING_SIDE"]

    func run() async throws {
        try await SpanCollector.run { collector, endpoint in try await run(collector, endpoint) }
    }

    private func run(_ collector: SpanCollector, _ endpoint: String) async throws {
        let plain = try await LocalBackend.start(schema: MetricsBenchmark.schema)
        defer { Task { await plain.stop() } }
        let traced = try await LocalBackend.start(
            schema: MetricsBenchmark.schema,
            tracing: try .otlp(endpoint: endpoint)
        )
        defer { Task { await traced.stop() } }
        let transport = AsyncHTTPClientTransport()
        let rounds = MetricsBenchmark(requests: requests, rounds: rounds)

        print(
            "tracing: \(requests) creates and \(requests) gets, four at a time, without and with OTLP export, same run"
        )
        var off: [(rate: Double, cpu: Double)] = []
        var on: [(rate: Double, cpu: Double)] = []
        for round in 0..<self.rounds {
            if side != "on" { off.append(try await rounds.measure(plain, transport: transport, prefix: "r\(round)")) }
            if side != "off" { on.append(try await rounds.measure(traced, transport: transport, prefix: "r\(round)")) }
        }
        if let side, let alone = side == "on" ? on : side == "off" ? off : nil {
            let (rate, cpu) = (median(alone.map(\.rate)), median(alone.map(\.cpu)))
            print(
                "  \(side == "on" ? "exporting" : "without tracing") alone: \(Int(rate)) requests/s, "
                    + "\(format(cpu * 1e6)) µs of processor per request"
            )
            return
        }
        let (offRate, onRate) = (median(off.map(\.rate)), median(on.map(\.rate)))
        let (offCPU, onCPU) = (median(off.map(\.cpu)), median(on.map(\.cpu)))
        print(
            "  without tracing \(Int(offRate)) requests/s, \(format(offCPU * 1e6)) µs of processor per request; "
                + "exporting \(Int(onRate)) requests/s, \(format(onCPU * 1e6)) µs"
        )
        print(
            "  exporting: processor per request \(format(onCPU / offCPU))x, throughput "
                + "\(format(onRate / offRate))x (target: within 1.10x)"
        )
        print("  the collector received \(collector.receivedBytes) bytes of spans")
    }

    private func format(_ value: Double) -> String {
        String(format: "%.3f", value)
    }
}
