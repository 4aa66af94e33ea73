import AWSWire
import Foundation
import StratusCodegen
import StratusServer
import Synchronization
import Testing

/// A line per request, in text and in JSON, and the request id every response carries.
@Suite struct RequestLogTests {
    static func withEndpoint(
        format: LogFormat,
        _ body: (URL, @Sendable () -> [String]) async throws -> Void
    ) async throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let server = try await TestStore.server(schema: try SchemaParser().parse(postSchema), directory: directory)
        let lines = Mutex<[String]>([])
        let http = StratusHTTPServer(
            server: server,
            authorization: ServerAuthorization(defaultMode: .apiKey, apiKeys: [APIKey(value: "da2-valid")]),
            log: { _ in },
            requestLog: { line in lines.withLock { $0.append(line) } },
            requestLogFormat: format
        )
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        let task = Task { try await http.run(port: 0) { continuation.yield($0) } }
        defer { task.cancel() }
        var iterator = ports.makeAsyncIterator()
        let port = try #require(await iterator.next())
        try await body(URL(string: "http://127.0.0.1:\(port)/graphql")!) { lines.withLock { $0 } }
        task.cancel()
        _ = await task.result
        try server.close()
    }

    static let query = #"{"query":"query Recent { listPosts { items { id } } }"}"#

    @Test func jsonLinesCarryTheRequestIdOfTheResponse() async throws {
        try await Self.withEndpoint(format: .json) { url, lines in
            let answered = try await HTTPEndpointTests.exchange(
                url,
                body: Self.query,
                headers: ["x-api-key": "da2-valid"]
            )
            let refused = try await HTTPEndpointTests.exchange(url, body: Self.query)
            let written = lines()
            try #require(written.count == 2, "\(written)")
            let first = try JSON(parsing: Data(written[0].utf8))
            let id = try #require(answered.headers["x-amzn-requestid"])
            #expect(id.wholeMatch(of: /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/) != nil)
            #expect(first["requestId"]?.stringValue == id)
            #expect(first["level"]?.stringValue == "info")
            #expect(first["subsystem"]?.stringValue == "request")
            #expect(first["method"]?.stringValue == "POST")
            #expect(first["path"]?.stringValue == "/graphql")
            #expect(first["operationType"]?.stringValue == "query")
            #expect(first["operationName"]?.stringValue == "Recent")
            #expect(first["authorizationMode"]?.stringValue == "API_KEY")
            #expect(first["status"] == 200)
            #expect((first["durationMs"]?.doubleValue ?? first["durationMs"]?.intValue.map(Double.init) ?? -1) >= 0)
            let time = try #require(first["time"]?.stringValue)
            #expect(time.wholeMatch(of: /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/) != nil, "\(time)")
            let second = try JSON(parsing: Data(written[1].utf8))
            #expect(second["requestId"]?.stringValue == refused.headers["x-amzn-requestid"])
            #expect(second["requestId"]?.stringValue != id)
            #expect(second["status"] == 401)
            #expect(second["operationType"]?.stringValue == "query")
            #expect(second["authorizationMode"] == .null)
        }
    }

    @Test func textLinesAreUnchanged() async throws {
        try await Self.withEndpoint(format: .text) { url, lines in
            _ = try await HTTPEndpointTests.exchange(url, body: Self.query, headers: ["x-api-key": "da2-valid"])
            let line = try #require(lines().first)
            #expect(line.wholeMatch(of: /POST \/graphql query Recent API_KEY 200 \d+ms/) != nil, "\(line)")
        }
    }

    @Test func anyMessageAsAJSONLine() throws {
        #expect(LogFormat.text.line("Could not\nread", level: "error", subsystem: "server") == "Could not\nread")
        let line = try JSON(
            parsing: Data(LogFormat.json.line("Could not\nread", level: "error", subsystem: "server").utf8)
        )
        #expect(line["message"]?.stringValue == "Could not\nread")
        #expect(line["level"]?.stringValue == "error")
        #expect(line["subsystem"]?.stringValue == "server")
    }
}
