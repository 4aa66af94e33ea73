import Foundation
import GraphQL
import StratusCodegen

// Benchmarks for Stratus. Run with
// `swift run -c release StratusBench [codegen] [datastore] [datastore-transaction] [sync] [api] [sigv4]
// [appsync-cache] [appsync-queue] [fanout] [functions] [metrics] [tracing] [server] [server-stores]`,
// or `swift run -c release StratusBench chaos [--devices N] [--operations N] [--seed N] ...` (see
// Chaos/ChaosHarness.swift and the README's "Chaos" section).
//
// Each benchmark prints its figures next to a baseline measured in the same run, so the ratio
// means something on a shared, noisy machine.

let arguments = CommandLine.arguments.dropFirst()
let selected = Set(arguments.isEmpty ? ["codegen"] : arguments)

/// Runs the benchmarks named on the command line.
func runSelected() async throws {
    if selected.contains("codegen") {
        CodegenBenchmark(models: 200).run()
    }

    if selected.contains("api") {
        try await APIBenchmark().run()
    }

    if selected.contains("sigv4") {
        SigV4Benchmark().run()
    }

    #if STRATUS_BENCH_DATASTORE
        if selected.contains("datastore") {
            try await DataStoreBenchmark().run()
        } else if selected.contains("datastore-transaction") {
            try await DataStoreBenchmark().runTransaction()
        }
        if selected.contains("sync") {
            try await SyncBenchmark().run()
        }
    #endif

    if selected.contains("appsync-cache") {
        try await AppSyncCacheBenchmark().run()
    }

    if selected.contains("appsync-queue") {
        try await AppSyncQueueBenchmark().run()
    }

    if selected.contains("fanout") {
        try await FanoutBenchmark().run()
    }

    // The subscribers of `fanout`, which starts this program again with this argument.
    if selected.contains("fanout-clients") {
        try await FanoutClients.fromEnvironment().run()
    }

    if selected.contains("metrics") {
        try await MetricsBenchmark().run()
    }

    if selected.contains("tracing") {
        try await TracingBenchmark().run()
    }

    if selected.contains("functions") {
        try await FunctionsBenchmark().run()
    }

    if selected.contains("server") {
        try await ServerBenchmark().run()
    }

    if selected.contains("server-sync") {
        try await ServerBenchmark(syncOnly: true).run()
    }

    if selected.contains("server-stores") {
        try await StoreBenchmark().run()
    }
}

// A benchmark that cannot run says why, without a crash report, and the program fails.
do {
    #if STRATUS_BENCH_DATASTORE
        // The chaos harness takes options, and restarts this program as its devices.
        switch arguments.first {
        case "chaos":
            let passed = try await ChaosHarness.run(try ChaosOptions(Array(arguments.dropFirst())))
            exit(passed ? 0 : 1)
        case "chaos-device":
            try await ChaosDevice(Array(arguments.dropFirst())).run()
            exit(0)
        case "chaos-conflict-handler":
            // A conflict of the chaos cluster's custom strategy: the payload on standard input,
            // the decision on standard output.
            print(try ChaosConflictRule.answer(FileHandle.standardInput.readDataToEndOfFile()))
            exit(0)
        default:
            break
        }
    #endif
    try await runSelected()
} catch {
    FileHandle.standardError.write(Data("StratusBench: \(error)\n".utf8))
    exit(1)
}
