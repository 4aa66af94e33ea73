import Foundation
import StratusCodegen
import StratusServer
import Testing

/// The console's Functions page: `GET /console/api/functions`.
@Suite struct ConsoleFunctionsTests {
    static let schema = """
        type Note @model { id: ID! text: String }
        type Query { echo(text: String!): String }
        """

    /// A console whose `Query.echo` is a command function that writes a line on its standard
    /// error and fails for the text "fail".
    static func served(in directory: URL) async throws -> ConsoleTests.Served {
        let script = directory.appending(path: "echo.py")
        try """
        import json, sys
        event = json.load(sys.stdin)
        text = event["arguments"]["text"]
        print("echo was asked for " + text, file=sys.stderr)
        print("and wrote a second line", file=sys.stderr)
        if text == "fail":
            print(json.dumps({"errorMessage": "no echo for fail", "errorType": "EchoError"}))
            sys.exit(1)
        print(json.dumps(text.upper()))
        """.write(to: script, atomically: true, encoding: .utf8)
        return try await ConsoleTests.Served(
            schema: schema,
            server: ServerConfiguration(
                functions: ["echo": LocalFunction(handler: .command(["python3", script.path]))],
                resolvers: ["Query.echo": .function("echo")]
            )
        )
    }

    @Test func eachInvocationIsShownWithItsEventOutcomeTimeAndLogLines() async throws {
        let directory = FileManager.default.temporaryDirectory.appending(path: "stratus-functions-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let served = try await Self.served(in: directory)
        let bearer = ("authorization", "Bearer \(ConsoleTests.secret)")
        let key = try #require(served.backend.authorization.apiKeys.first).value
        let answered = try await served.send(
            .POST,
            "/graphql",
            body: #"{"query": "{ hi: echo(text: \"hi\") fail: echo(text: \"fail\") }"}"#,
            headers: [("x-api-key", key)]
        )
        let all = try await served.send(.GET, "/console/api/functions", headers: [bearer])
        let after = try await served.send(.GET, "/console/api/functions?after=1", headers: [bearer])
        await served.stop()

        #expect(answered.body.contains(#""hi":"HI""#))
        #expect(all.status == 200)
        let answer = try JSON(parsing: all.body)
        #expect(answer["capacity"] == 200)
        #expect(answer["functions"] == ["echo"])
        let invocations = try #require(answer["invocations"]?.arrayValue)
        #expect(invocations.count == 2)
        let byText = Dictionary(
            uniqueKeysWithValues: invocations.map { ($0["event"]?["arguments"]?["text"]?.stringValue ?? "", $0) }
        )
        let hi = try #require(byText["hi"])
        let fail = try #require(byText["fail"])
        #expect(hi["function"] == "echo")
        #expect(hi["status"] == "SUCCEEDED")
        #expect(hi["result"] == "HI")
        #expect(hi["error"] == .null)
        #expect(hi["event"]?["info"]?["fieldName"] == "echo")
        #expect((hi["durationMs"]?.doubleValue ?? -1) >= 0)
        #expect(hi["logLines"] == ["echo was asked for hi", "and wrote a second line"])
        #expect(hi["droppedLogLines"] == 0)
        #expect(fail["status"] == "FAILED")
        #expect(fail["result"] == .null)
        #expect(
            fail["error"]
                == [
                    "errorType": "EchoError", "message": "no echo for fail",
                    "detail": "The function 'echo' answered EchoError: no echo for fail",
                ]
        )
        #expect(fail["logLines"] == ["echo was asked for fail", "and wrote a second line"])
        #expect(try JSON(parsing: after.body)["invocations"]?.arrayValue?.count == 1)
    }

    @Test func theInvocationsOutliveASchemaReload() async throws {
        let directory = FileManager.default.temporaryDirectory.appending(path: "stratus-functions-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let served = try await Self.served(in: directory)
        let key = try #require(served.backend.authorization.apiKeys.first).value
        let query = #"{"query": "{ echo(text: \"before\") }"}"#
        _ = try await served.send(.POST, "/graphql", body: query, headers: [("x-api-key", key)])
        // stratus serve reloads with the configuration read again, which carries no record.
        var server = served.backend.configuration.server
        server.functionInvocations = nil
        try await served.backend.reload(
            schema: try SchemaParser().parse(Self.schema + "\ntype Tag @model { id: ID! }"),
            server: server
        )
        let answer = try await served.send(
            .GET,
            "/console/api/functions",
            headers: [("authorization", "Bearer \(ConsoleTests.secret)")]
        )
        await served.stop()
        #expect(answer.status == 200)
        let invocations = try JSON(parsing: answer.body)["invocations"]?.arrayValue ?? []
        #expect(invocations.map { $0["event"]?["arguments"]?["text"] } == ["before"])
    }

    @Test func withoutFunctionsTheRouteSaysHowToConfigureThem() async throws {
        let served = try await ConsoleTests.Served()
        let answer = try await served.send(
            .GET,
            "/console/api/functions",
            headers: [("authorization", "Bearer \(ConsoleTests.secret)")]
        )
        await served.stop()
        #expect(answer.status == 404)
        #expect(
            answer.body
                == #"{"errors":[{"errorType":"BadRequestException","message":"The server runs no functions. Configure "#
                + #"them in stratus.json: \"functions\": {\"echo-dev\": {\"runtime\": [\"python3\", \"-m\", "#
                + #"\"awslambdaric\", \"index.handler\"], \"directory\": \"amplify/backend/function/echo/src\"}} (or "#
                + #"\"command\": [\"python3\", \"handler.py\"]), used by @function(name: \"echo-${env}\") fields or by "#
                + #"\"resolvers\": {\"Query.echo\": {\"function\": \"echo-dev\"}}; then restart stratus serve."}]}"#
        )
    }
}
