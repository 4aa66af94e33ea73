import Foundation
import StratusCodegen
import StratusServer
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// REST APIs in the style of API Gateway: routing with `{proxy+}`, the echo and command
/// handlers, auth per route (API key, SigV4 `execute-api` checked against botocore), CORS.
@Suite struct RESTEndpointTests {
    static let handlerScript = """
        import json, sys
        event = json.load(sys.stdin)
        if event["pathParameters"]["id"] == "fail":
            sys.exit(3)
        if event["pathParameters"]["id"] == "garbage":
            print("not json")
            sys.exit(0)
        print(json.dumps({
            "statusCode": 201,
            "headers": {"x-handled-by": "python", "content-type": "application/json"},
            "body": json.dumps({
                "resource": event["resource"], "path": event["path"], "method": event["httpMethod"],
                "id": event["pathParameters"]["id"], "query": event["queryStringParameters"],
                "body": json.loads(event["body"]), "stage": event["requestContext"]["stage"],
            }),
        }))
        """

    static func api(script: URL) -> RESTAPI {
        RESTAPI(
            name: "items",
            routes: [
                RESTRoute(path: "/items", handler: .echo),
                RESTRoute(path: "/items/{proxy+}", handler: .echo),
                RESTRoute(path: "/keyed", methods: [.get], authorization: .apiKey, handler: .echo),
                RESTRoute(path: "/secure/{proxy+}", authorization: .awsIAM, handler: .echo),
                RESTRoute(path: "/secure", authorization: .awsIAM, handler: .echo),
                RESTRoute(
                    path: "/orders/{id}",
                    methods: [.post],
                    handler: .command(["python3", script.path], timeout: .seconds(20))
                ),
            ]
        )
    }

    static func withREST(_ body: (URL) async throws -> Void) async throws {
        let script = FileManager.default.temporaryDirectory.appending(path: "stratus-handler-\(UUID().uuidString).py")
        try Data(handlerScript.utf8).write(to: script)
        defer { try? FileManager.default.removeItem(at: script) }
        try await HTTPEndpointTests.withEndpoint(restAPIs: [api(script: script)]) { graphQL in
            try await body(graphQL.deletingLastPathComponent().appending(path: "rest/items"))
        }
    }

    @Test func echoAnswersLikeTheExpressTemplate() async throws {
        try await Self.withREST { base in
            let get = try await HTTPEndpointTests.exchange(
                URL(string: base.absoluteString + "/items?limit=5")!,
                method: "GET",
                body: nil
            )
            #expect(get.status == 200)
            #expect(get.body == #"{"success":"get call succeed!","url":"/items?limit=5"}"#)
            #expect(get.headers["access-control-allow-origin"] == "*")
            let post = try await HTTPEndpointTests.send(
                base.appending(path: "items/42"),
                body: #"{"name":"x"}"#,
                headers: ["content-type": "application/json"]
            )
            #expect(post.status == 200)
            #expect(post.body == #"{"success":"post call succeed!","url":"/items/42","body":{"name":"x"}}"#)
            let put = try await HTTPEndpointTests.send(base.appending(path: "items"), method: "PUT", body: "{}")
            #expect(put.body == #"{"success":"put call succeed!","url":"/items","body":{}}"#)
            let delete = try await HTTPEndpointTests.send(base.appending(path: "items/7"), method: "DELETE", body: nil)
            #expect(delete.body == #"{"success":"delete call succeed!","url":"/items/7"}"#)
            let patch = try await HTTPEndpointTests.send(base.appending(path: "items"), method: "PATCH", body: "{}")
            #expect(patch.status == 404)
            #expect(patch.body.contains("<pre>Cannot PATCH /items</pre>"))
        }
    }

    @Test func unknownPathsAndMethodsAreAPIGatewaysForbidden() async throws {
        try await Self.withREST { base in
            let missing = #"{"message":"Missing Authentication Token"}"#
            let unknown = try await HTTPEndpointTests.send(base.appending(path: "nothing"), method: "GET", body: nil)
            #expect(unknown.status == 403)
            #expect(unknown.body == missing)
            let method = try await HTTPEndpointTests.send(base.appending(path: "keyed"), method: "POST", body: "{}")
            #expect(method.status == 403)
            #expect(method.body == missing)
            let otherAPI = try await HTTPEndpointTests.send(
                base.deletingLastPathComponent().appending(path: "other/items"),
                method: "GET",
                body: nil
            )
            #expect(otherAPI.status == 403)
        }
    }

    @Test func preflightAllowsTheRoutesMethods() async throws {
        try await Self.withREST { base in
            let keyed = try await HTTPEndpointTests.exchange(
                base.appending(path: "keyed"),
                method: "OPTIONS",
                body: nil
            )
            #expect(keyed.status == 200)
            #expect(keyed.headers["access-control-allow-origin"] == "*")
            #expect(keyed.headers["access-control-allow-methods"] == "GET,OPTIONS")
            #expect(
                keyed.headers["access-control-allow-headers"]
                    == "Content-Type,X-Amz-Date,Authorization,X-Api-Key,X-Amz-Security-Token,X-Amz-User-Agent"
            )
        }
    }

    @Test func preflightAllowsTheHeadersTheBrowserAsksFor() async throws {
        // api-rest-authorization.txt's interceptor adds `headerKey`; a browser asks before sending it.
        try await Self.withREST { base in
            let preflight = try await HTTPEndpointTests.exchange(
                base.appending(path: "items/1"),
                method: "OPTIONS",
                body: nil,
                headers: [
                    "Origin": "http://localhost:3000", "Access-Control-Request-Method": "POST",
                    "Access-Control-Request-Headers": "content-type,headerkey,x-api-key",
                ]
            )
            #expect(preflight.status == 200)
            #expect(preflight.headers["access-control-allow-headers"] == "content-type,headerkey,x-api-key")
            #expect(preflight.headers["access-control-allow-origin"] == "*")
        }
    }

    @Test func apiKeyRoutesNeedAValidKey() async throws {
        try await Self.withREST { base in
            let url = base.appending(path: "keyed")
            let forbidden = #"{"message":"Forbidden"}"#
            #expect(try await HTTPEndpointTests.send(url, method: "GET", body: nil).body == forbidden)
            #expect(
                try await HTTPEndpointTests.send(url, method: "GET", body: nil, headers: ["x-api-key": "da2-expired"])
                    .body
                    == forbidden
            )
            let good = try await HTTPEndpointTests.send(
                url,
                method: "GET",
                body: nil,
                headers: ["x-api-key": "da2-valid"]
            )
            #expect(good.status == 200)
            #expect(good.body == #"{"success":"get call succeed!","url":"/keyed"}"#)
        }
    }

    @Test func commandHandlersGetTheProxyEvent() async throws {
        try await Self.withREST { base in
            let created = try await HTTPEndpointTests.exchange(
                URL(string: base.absoluteString + "/orders/o-1?expand=lines")!,
                body: #"{"qty":2}"#
            )
            #expect(created.status == 201)
            #expect(created.headers["x-handled-by"] == "python")
            #expect(
                created.body
                    == #"{"resource": "/orders/{id}", "path": "/orders/o-1", "method": "POST", "id": "o-1", "#
                    + #""query": {"expand": "lines"}, "body": {"qty": 2}, "stage": "items"}"#
            )
            let internalError = #"{"message":"Internal server error"}"#
            let failed = try await HTTPEndpointTests.send(base.appending(path: "orders/fail"), body: "{}")
            #expect(failed.status == 502)
            #expect(failed.body == internalError)
            let garbage = try await HTTPEndpointTests.send(base.appending(path: "orders/garbage"), body: "{}")
            #expect(garbage.status == 502)
            #expect(garbage.body == internalError)
        }
    }

    /// Requests signed by botocore for `execute-api` pass; a tampered body, a wrong secret and
    /// no signature are refused.
    @Test func iamRoutesVerifyBotocoreSignatures() async throws {
        let script = URL(filePath: #filePath).deletingLastPathComponent().appending(path: "Interop/rest_botocore.py")
        try await Self.withREST { base in
            let key = HTTPEndpointTests.accessKey
            let result = try await GQLInteropTests.run(
                [
                    "python3", script.path, base.absoluteString, key.accessKeyId, key.secretAccessKey,
                    key.sessionToken ?? "",
                ]
            )
            try #require(result.status == 0, "botocore failed (python3 -m pip install botocore):\n\(result.output)")
            let json = try #require(
                try JSONSerialization.jsonObject(with: Data(result.output.split(separator: "\n").last!.utf8))
                    as? [String: [String: Any]]
            )
            #expect(json["get"]?["status"] as? Int == 200, "\(json)")
            #expect(
                json["get"]?["body"] as? String
                    == #"{"success":"get call succeed!","url":"/secure/a%20b?q=caf%C3%A9&q=2&empty="}"#
            )
            #expect(json["post"]?["status"] as? Int == 200)
            #expect(
                json["post"]?["body"] as? String
                    == #"{"success":"post call succeed!","url":"/secure","body":{"name":"signed"}}"#
            )
            for refused in ["tampered", "wrongSecret"] {
                #expect(json[refused]?["status"] as? Int == 403, "\(refused)")
                #expect((json[refused]?["body"] as? String)?.contains("signature") == true, "\(refused): \(json)")
            }
            #expect(json["unsigned"]?["status"] as? Int == 403)
            #expect(json["unsigned"]?["body"] as? String == #"{"message":"Missing Authentication Token"}"#)
        }
    }

    /// API Gateway's Lambda authorizers are not served: a route that asks for one keeps the
    /// server from starting, rather than answering 401 to every request.
    @Test func lambdaAuthorizedRoutesAreRefusedBeforeListening() async throws {
        let directory = FileManager.default.temporaryDirectory.appending(path: "stratus-rest-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let server = try await TestStore.server(
            schema: try SchemaParser().parse(postSchemaForEveryMode),
            directory: directory
        )
        defer { try? server.close() }
        let api = RESTAPI(
            name: "items",
            routes: [
                RESTRoute(path: "/items", handler: .echo),
                RESTRoute(path: "/items/{proxy+}", methods: [.get], authorization: .function, handler: .echo),
            ]
        )
        let http = StratusHTTPServer(
            server: server,
            authorization: ServerAuthorization(defaultMode: .apiKey, apiKeys: [APIKey(value: "da2-valid")]),
            restAPIs: [api],
            log: { _ in }
        )
        let (outcomes, continuation) = AsyncStream.makeStream(of: String.self)
        let task = Task {
            do {
                try await http.run(port: 0) { port in continuation.yield("listening on \(port)") }
                continuation.yield("returned")
            } catch {
                continuation.yield("\(error)")
            }
        }
        var iterator = outcomes.makeAsyncIterator()
        let outcome = await iterator.next()
        task.cancel()
        _ = await task.result
        #expect(
            outcome
                == "The REST route /items/{proxy+} of 'items' uses AWS_LAMBDA authorization, which REST APIs do not "
                + "serve (API Gateway's Lambda authorizers are not supported). "
                + "Use NONE, API_KEY, AWS_IAM, AMAZON_COGNITO_USER_POOLS or OPENID_CONNECT."
        )
    }
}
