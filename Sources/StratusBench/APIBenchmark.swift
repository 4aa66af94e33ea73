// The API plugin against raw HTTP doing the same requests in the same run.
//
// Run with `swift run -c release StratusBench api`.
import AWSAPIPlugin
import AWSPluginsCore
import AWSWire
import Amplify
import AsyncHTTPClient
import Foundation
import NIOCore
import StratusTesting

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Requests per second of a small GraphQL query against the local backend on loopback, one
/// request at a time over keep-alive connections:
///
/// - a bare `URLSession` POST of the same bytes (the baseline), and the same through
///   AsyncHTTPClient, to choose the transport;
/// - `AWSAPIPlugin.query` with an API key and with SigV4, which add encoding, the auth stages
///   and decoding to the same request;
/// - SigV4 signatures per second, alone, of this small request and of a 1 KB one
///   (``SigV4Benchmark``).
struct APIBenchmark {
    var requests = 2_000
    var signatures = 20_000

    static let schema = "type Note @model { id: ID! text: String! }"

    func run() async throws {
        let backend = try await LocalBackend.start(schema: Self.schema)
        let api = try backend.makeAPIPlugin()
        _ = try await api.mutate(
            request: GraphQLRequest<JSONValue>(
                document: #"mutation { createNote(input: {id: "n1", text: "hello"}) { id } }"#,
                responseType: JSONValue.self
            )
        ).get()
        let document = #"query Get { getNote(id: "n1") { id text } }"#
        let body = try JSONEncoder().encode(["query": document])
        var raw = URLRequest(url: backend.endpoint)
        raw.httpMethod = "POST"
        raw.httpBody = body
        raw.setValue("application/json", forHTTPHeaderField: "content-type")
        raw.setValue(backend.apiKey, forHTTPHeaderField: "x-api-key")

        print("api: \(requests) sequential requests of a small query on loopback, same server, same run")
        let session = URLSession(configuration: .ephemeral)
        let bare = try await rate("bare URLSession POST") {
            let (data, _) = try await session.data(for: raw)
            precondition(data.count > 20)
        }

        let client = HTTPClient(eventLoopGroupProvider: .singleton)
        let asyncClient = try await rate("bare AsyncHTTPClient POST") {
            var request = HTTPClientRequest(url: backend.endpoint.absoluteString)
            request.method = .POST
            request.headers.add(name: "content-type", value: "application/json")
            request.headers.add(name: "x-api-key", value: backend.apiKey)
            request.body = .bytes(ByteBuffer(bytes: body))
            let response = try await client.execute(request, timeout: .seconds(30))
            let bytes = try await response.body.collect(upTo: 1 << 20)
            precondition(bytes.readableBytes > 20)
        }
        try await client.shutdown()

        let request = GraphQLRequest<JSONValue>(document: document, responseType: JSONValue.self)
        let plugin = try await rate("AWSAPIPlugin.query, API_KEY") {
            _ = try await api.query(request: request).get()
        }
        let iam = try backend.makeAPIPlugin(authorizationType: .awsIAM)
        let signed = try await rate("AWSAPIPlugin.query, AWS_IAM") {
            _ = try await iam.query(request: request).get()
        }
        print(
            "    ratios to the bare URLSession POST: AsyncHTTPClient \(format(asyncClient / bare))x, "
                + "plugin with API key \(format(bare / plugin))x slower, with SigV4 \(format(bare / signed))x slower"
        )

        let signer = SigV4Signer(service: "appsync", region: "us-east-1")
        let credentials = backend.credentials
        let clock = ContinuousClock()
        var sink = 0
        let elapsed = clock.measure {
            for _ in 0..<signatures {
                let signedRequest = signer.sign(raw, credentials: credentials, date: Date())
                sink &+= signedRequest.value(forHTTPHeaderField: "authorization")?.count ?? 0
            }
        }
        print(
            "  SigV4: \(format(Double(signatures) / elapsed.inSeconds)) signatures/s (URLRequest, \(body.count)-byte body)"
        )
        precondition(sink > 0)
        await backend.stop()
        SigV4Benchmark().run()
    }

    /// Runs `body` `requests` times after a warm-up and prints the rate.
    private func rate(_ name: String, _ body: () async throws -> Void) async throws -> Double {
        try await RequestRate(requests: requests, warmUp: 100, nameWidth: 30).measure(name, body)
    }

    private func format(_ value: Double) -> String {
        String(format: value >= 100 ? "%.0f" : "%.2f", value)
    }
}
