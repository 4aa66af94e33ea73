// A hand-written query answered by a long-running function next to a generated `create` field,
// the same requests over the same connection in the same run.
//
// Run with `swift run -c release StratusBench functions`.
import Foundation
import StratusServer
import StratusTesting

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Requests per second, one at a time over keep-alive, of:
///
/// - `createNote`, a generated mutation the server answers from its store (the baseline);
/// - `echo`, a hand-written query whose `@function` is a Python process polling the server's
///   Lambda Runtime API, as `awslambdaric` does, with one process and then with two and two
///   requests at a time.
///
/// The difference of their times is what an invocation costs: the event written, handed to the
/// process over the Runtime API, its answer read back.
struct FunctionsBenchmark {
    var requests = 1_000

    static let schema = """
        type Note @model { id: ID! text: String! }
        type Query { echo(text: String!): String @function(name: "echo") }
        """

    /// A minimal Runtime API client: the loop every Lambda runtime runs.
    static let runtime = """
        import json, os, urllib.request
        base = "http://" + os.environ["AWS_LAMBDA_RUNTIME_API"] + "/2018-06-01/runtime/invocation"
        while True:
            with urllib.request.urlopen(base + "/next") as answer:
                request_id = answer.headers["Lambda-Runtime-Aws-Request-Id"]
                event = json.load(answer)
            body = json.dumps(event["arguments"]["text"]).encode()
            post = urllib.request.Request(base + "/" + request_id + "/response", data=body, method="POST")
            urllib.request.urlopen(post).read()
        """

    func run() async throws {
        let directory = FileManager.default.temporaryDirectory.appending(path: "stratus-bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try Data(Self.runtime.utf8).write(to: directory.appending(path: "runtime.py"))

        print("functions: \(requests) sequential requests on loopback, same server, same run")
        var one = try await measure(directory: directory, concurrency: 1)
        let two = try await measure(directory: directory, concurrency: 2)
        one.parallelFunction = two.parallelFunction
        let overhead = (1 / one.function - 1 / one.create) * 1_000
        print(
            "    an invocation costs \(format(overhead)) ms more than a create; the function answers at "
                + "\(format(one.function / one.create))x the create's rate; two processes and two clients: "
                + "\(format(two.parallelFunction)) requests/s"
        )
    }

    private struct Rates {
        var create: Double
        var function: Double
        var parallelFunction: Double
    }

    private func measure(directory: URL, concurrency: Int) async throws -> Rates {
        var configuration = ServerConfiguration()
        configuration.functions["echo"] = LocalFunction(
            handler: .runtime(["python3", "runtime.py"], concurrency: concurrency),
            workingDirectory: directory
        )
        let backend = try await LocalBackend.start(schema: Self.schema, configuration: configuration)
        let session = URLSession(configuration: .ephemeral)
        let (endpoint, apiKey) = (backend.endpoint, backend.apiKey)
        let post: @Sendable (String) async throws -> Void = { document in
            var request = URLRequest(url: endpoint)
            request.httpMethod = "POST"
            request.httpBody = try JSONEncoder().encode(["query": document])
            request.setValue("application/json", forHTTPHeaderField: "content-type")
            request.setValue(apiKey, forHTTPHeaderField: "x-api-key")
            let (data, _) = try await session.data(for: request)
            guard !String(decoding: data, as: UTF8.self).contains(#""errors""#) else {
                throw BenchmarkFailure(message: String(decoding: data, as: UTF8.self))
            }
        }
        if concurrency == 1 {
            let create = try await rate("generated createNote") {
                try await post(#"mutation { createNote(input: {text: "note"}) { id text } }"#)
            }
            let function = try await rate("@function echo, 1 process") {
                try await post(#"{ echo(text: "hello") }"#)
            }
            await backend.stop()
            return Rates(create: create, function: function, parallelFunction: 0)
        }
        let parallel = try await rate("@function echo, 2 processes, 2 at a time", width: 2) {
            try await post(#"{ echo(text: "hello") }"#)
        }
        await backend.stop()
        return Rates(create: 0, function: 0, parallelFunction: parallel)
    }

    /// Runs `body` `requests` times (`width` at a time) after a warm-up and prints the rate.
    private func rate(
        _ name: String,
        width: Int = 1,
        _ body: @escaping @Sendable () async throws -> Void
    ) async throws -> Double {
        try await RequestRate(requests: requests, warmUp: 50, nameWidth: 42).measure(name, width: width, body)
    }

    private func format(_ value: Double) -> String {
        String(format: value >= 100 ? "%.0f" : "%.2f", value)
    }
}
