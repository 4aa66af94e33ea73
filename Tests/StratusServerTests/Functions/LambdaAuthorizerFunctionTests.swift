import Foundation
import StratusServer
import Testing

/// `AWS_LAMBDA` tokens decided by one of the server's functions: AppSync's authorizer event in,
/// `{"isAuthorized": …, "resolverContext": {…}}` out.
@Suite struct LambdaAuthorizerFunctionTests {
    /// Lets `let-me-in` in with a tenant, keeps the last event it got in `event.json`, and
    /// answers `maybe` with something that is not a decision.
    static let authorizer = """
        import json, sys
        event = json.load(sys.stdin)
        with open("event.json", "w") as f:
            json.dump(event, f)
        token = event["authorizationToken"]
        if token == "maybe":
            print(json.dumps({"allowed": True}))
        else:
            print(json.dumps({"isAuthorized": token == "let-me-in", "resolverContext": {"tenant": "t1"}}))
        """

    @Test func aFunctionDecidesOnLambdaTokensWithAppSyncsEvent() async throws {
        let directory = FileManager.default.temporaryDirectory.appending(
            path: "stratus-authorizer-\(UUID().uuidString)"
        )
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try Data(Self.authorizer.utf8).write(to: directory.appending(path: "authorizer.py"))
        let configuration = ServerConfiguration(
            functions: [
                "authorizer": LocalFunction(
                    handler: .command(["python3", "authorizer.py"]),
                    workingDirectory: directory,
                    timeout: .seconds(20)
                )
            ]
        )
        let authorization = ServerAuthorization(
            defaultMode: .apiKey,
            additionalModes: [.function],
            apiKeys: [APIKey(value: "da2-valid")],
            lambdaAuthorizerFunction: "authorizer"
        )
        let query = #"query Posts($limit: Int) { listPosts(limit: $limit) { items { id } } }"#
        let body = JSON.object(["query": .string(query), "operationName": "Posts", "variables": ["limit": 5]]).text
        try await HTTPEndpointTests.withEndpoint(authorization: authorization, configuration: configuration) { url in
            let allowed = try await HTTPEndpointTests.send(url, body: body, headers: ["authorization": "let-me-in"])
            #expect(allowed.status == 200)
            #expect(allowed.body == #"{"data":{"listPosts":{"items":[]}}}"#)
            let event = try JSON(parsing: Data(contentsOf: directory.appending(path: "event.json")))
            #expect(event["authorizationToken"] == "let-me-in")
            #expect(event["requestContext"]?["queryString"] == .string(query))
            #expect(event["requestContext"]?["operationName"] == "Posts")
            #expect(event["requestContext"]?["variables"] == ["limit": 5])
            #expect(event["requestContext"]?["requestId"]?.stringValue?.isEmpty == false)
            #expect(event["requestHeaders"]?["authorization"] == "let-me-in")

            let unauthorized =
                #"{"errors":[{"errorType":"UnauthorizedException","message":"You are not authorized to make this call."}]}"#
            for token in ["wrong", "maybe"] {
                let refused = try await HTTPEndpointTests.send(url, body: body, headers: ["authorization": token])
                #expect(refused.status == 401, "\(token)")
                #expect(refused.body == unauthorized, "\(token)")
            }
        }
    }
}
