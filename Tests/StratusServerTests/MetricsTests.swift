import AWSWire
import Foundation
import StratusCodegen
import StratusCognito
import StratusServer
import StratusTesting
import Testing

/// `/metrics` read by `prometheus_client`'s parser (PyPI), `/ready`, and the token that guards
/// the metrics.
@Suite struct MetricsTests {
    struct Endpoint: Sendable {
        let port: Int
        var graphQL: URL { URL(string: "http://127.0.0.1:\(port)/graphql")! }
        var realtimeURL: String {
            let header: JSON = ["host": .string("127.0.0.1:\(port)"), "x-api-key": "da2-valid"]
            return "ws://127.0.0.1:\(port)/graphql/realtime?header="
                + Data(header.text.utf8).base64EncodedString() + "&payload=e30="
        }

        func url(_ path: String) -> URL { URL(string: "http://127.0.0.1:\(port)\(path)")! }

        func post(
            _ query: String,
            headers: [String: String] = ["x-api-key": "da2-valid"]
        ) async throws -> (
            status: Int, headers: [String: String], body: String
        ) {
            let body: JSON = ["query": .string(query)]
            return try await HTTPEndpointTests.exchange(graphQL, body: body.text, headers: headers)
        }

        /// The samples of `/metrics` as `prometheus_client` parses them: `name{label="value",…}`
        /// (labels sorted) to value.
        func samples(token: String? = nil) async throws -> [String: Double] {
            let headers = token.map { ["Authorization": "Bearer \($0)"] } ?? [:]
            let scrape = try await HTTPEndpointTests.exchange(
                url("/metrics"),
                method: "GET",
                body: nil,
                headers: headers
            )
            try #require(scrape.status == 200, "\(scrape.body)")
            #expect(scrape.headers["content-type"] == "text/plain; version=0.0.4; charset=utf-8")
            return try await MetricsTests.parse(scrape.body)
        }
    }

    /// The samples of `text` as `prometheus_client` parses them: `name{label="value",…}` (labels
    /// sorted) to value.
    static func parse(_ text: String) async throws -> [String: Double] {
        let parsed = try await runPython(MetricsTests.parser, input: text)
        try #require(parsed.status == 0, "prometheus_client (pip install -r Tests/requirements.txt):\n\(parsed.output)")
        let json = try JSON(parsing: Data(parsed.output.utf8))
        var samples: [String: Double] = [:]
        for (name, value) in json.objectValue ?? [:] { samples[name] = value.doubleValue }
        return samples
    }

    static let parser = """
        import json, sys
        from prometheus_client.parser import text_string_to_metric_families
        samples = {}
        for family in text_string_to_metric_families(sys.stdin.read()):
            for sample in family.samples:
                labels = ",".join(f'{k}="{v}"' for k, v in sorted(sample.labels.items()))
                samples[sample.name + ("{" + labels + "}" if labels else "")] = sample.value
        print(json.dumps(samples))
        """

    static func withEndpoint(token: String? = nil, _ body: (Endpoint) async throws -> Void) async throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let server = try await TestStore.server(schema: try SchemaParser().parse(postSchema), directory: directory)
        let exported = MetricsEndpoint(token: token)
        let http = StratusHTTPServer(
            server: server,
            authorization: ServerAuthorization(defaultMode: .apiKey, apiKeys: [APIKey(value: "da2-valid")]),
            routes: [exported],
            log: { _ in },
            metrics: exported.makeMetrics()
        )
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        let task = Task { try await http.run(port: 0) { continuation.yield($0) } }
        defer { task.cancel() }
        var iterator = ports.makeAsyncIterator()
        let port = try #require(await iterator.next())
        try await body(Endpoint(port: port))
        task.cancel()
        _ = await task.result
        try server.close()
    }

    static let create = #"mutation { createPost(input: {id: "p1", title: "A", rating: 1, status: DRAFT}) { id } }"#

    @Test func requestsAreCountedByOperationStatusAndModeAndTimed() async throws {
        try await Self.withEndpoint { endpoint in
            #expect(try await endpoint.post(Self.create).status == 200)
            let keyed = ["x-api-key": "da2-valid", "Idempotency-Key": "7d3a5b0e-9c1f-4f6e-8a2b-1c3d5e7f9a0b"]
            let update = #"mutation { updatePost(input: {id: "p1", title: "B", _version: 1}) { _version } }"#
            #expect(try await endpoint.post(update, headers: keyed).body == #"{"data":{"updatePost":{"_version":2}}}"#)
            let replay = try await endpoint.post(update, headers: keyed)
            #expect(replay.headers["idempotent-replayed"] == "true")
            // A stale version: automerge settles the conflict.
            let stale = #"mutation { updatePost(input: {id: "p1", rating: 5, _version: 1}) { _version } }"#
            #expect(try await endpoint.post(stale).body == #"{"data":{"updatePost":{"_version":3}}}"#)
            #expect(try await endpoint.post("{ listPosts { items { id } } }", headers: [:]).status == 401)
            let unreadable = try await HTTPEndpointTests.exchange(endpoint.graphQL, body: "{", headers: [:])
            #expect(unreadable.status == 400)

            let samples = try await endpoint.samples()
            #expect(samples[#"stratus_requests_total{auth_mode="API_KEY",operation="mutation",status="200"}"#] == 4)
            #expect(samples[#"stratus_requests_total{auth_mode="-",operation="query",status="401"}"#] == 1)
            #expect(samples[#"stratus_requests_total{auth_mode="-",operation="-",status="400"}"#] == 1)
            #expect(samples[#"stratus_4xx_error_total{operation="query"}"#] == 1)
            #expect(samples[#"stratus_4xx_error_total{operation="-"}"#] == 1)
            #expect(samples[#"stratus_5xx_error_total{operation="mutation"}"#] == nil)
            #expect(samples[#"stratus_latency_seconds_count{operation="mutation"}"#] == 4)
            #expect(samples[#"stratus_latency_seconds_bucket{le="+Inf",operation="mutation"}"#] == 4)
            #expect((samples[#"stratus_latency_seconds_sum{operation="mutation"}"#] ?? 0) > 0)
            #expect(samples["stratus_idempotent_replays_total"] == 1)
            #expect(samples[#"stratus_conflicts_total{outcome="merged"}"#] == 1)
            // The scrape itself is not a request of the API.
            #expect(samples.keys.filter { $0.hasPrefix("stratus_requests_total") }.count == 3)
        }
    }

    @Test func resolversAndStoreCallsAreTimedByKind() async throws {
        try await Self.withEndpoint { endpoint in
            // A mutation with an enum literal and two root fields: the executor over the generated
            // resolvers. One list: the direct path.
            #expect(try await endpoint.post(Self.create).status == 200)
            let both = #"{ a: getPost(id: "p1") { id } b: listPosts { items { id } } }"#
            #expect(try await endpoint.post(both).body == #"{"data":{"a":{"id":"p1"},"b":{"items":[{"id":"p1"}]}}}"#)
            let list = try await endpoint.post("{ listPosts { items { id } } }")
            #expect(list.body == #"{"data":{"listPosts":{"items":[{"id":"p1"}]}}}"#)

            let store = TestStore.isPostgres ? "postgresql" : "sqlite"
            var samples = try await endpoint.samples()
            #expect(samples[#"stratus_resolver_latency_seconds_count{kind="direct"}"#] == 1)
            #expect(samples[#"stratus_resolver_latency_seconds_count{kind="generated"}"#] == 2)
            #expect(samples[#"stratus_resolver_latency_seconds_count{kind="function"}"#] == nil)
            #expect(samples[#"stratus_store_query_seconds_count{operation="write",store="\#(store)"}"#] == 1)
            #expect(samples[#"stratus_store_query_seconds_count{operation="fetchItem",store="\#(store)"}"#] == 1)
            #expect(samples[#"stratus_store_query_seconds_count{operation="fetchPage",store="\#(store)"}"#] == 2)
            #expect(samples["stratus_store_calls_in_flight"] == 0)
            // A store that several servers share delivers its writes from its journal, with their lag.
            if TestStore.isPostgres {
                let deadline = ContinuousClock.now + .seconds(10)
                while samples["stratus_journal_delivery_lag_seconds_count"] ?? 0 < 1, ContinuousClock.now < deadline {
                    try await Task.sleep(for: .milliseconds(50))
                    samples = try await endpoint.samples()
                }
                #expect(samples["stratus_journal_delivery_lag_seconds_count"] == 1)
            } else {
                #expect(samples["stratus_journal_delivery_lag_seconds_count"] == 0)
            }
        }
    }

    @Test func connectionsSubscriptionsAndDeliveriesAreCounted() async throws {
        try await Self.withEndpoint { endpoint in
            let socket = RealtimeSocket(url: endpoint.realtimeURL)
            socket.send(#"{"type":"connection_init","payload":{}}"#)
            #expect(try await socket.next() == #"{"type":"connection_ack","payload":{"connectionTimeoutMs":300000}}"#)
            socket.send(RealtimeTests.start("s1", "subscription { onCreatePost { id } }"))
            #expect(try await socket.next() == #"{"id":"s1","type":"start_ack"}"#)
            socket.send(RealtimeTests.start("s2", "subscription { onCreatePost { nope } }"))
            #expect(try await socket.next()?.hasPrefix(#"{"id":"s2","type":"error""#) == true)
            #expect(try await endpoint.post(Self.create).status == 200)
            #expect(
                try await socket.next() == #"{"id":"s1","type":"data","payload":{"data":{"onCreatePost":{"id":"p1"}}}}"#
            )

            let open = try await endpoint.samples()
            #expect(open["stratus_active_connections"] == 1)
            #expect(open["stratus_active_subscriptions"] == 1)
            #expect(open["stratus_connect_success_total"] == 1)
            #expect(open["stratus_subscribe_success_total"] == 1)
            #expect(open["stratus_subscribe_client_error_total"] == 1)
            #expect(open["stratus_publish_data_message_success_total"] == 1)

            socket.send(#"{"id":"s1","type":"stop"}"#)
            #expect(try await socket.next() == #"{"id":"s1","type":"complete"}"#)
            #expect(try await endpoint.samples()["stratus_active_subscriptions"] == 0)
            await socket.close()
            // The server hears the close after the client sent it.
            var closed = try await endpoint.samples()
            for _ in 0..<100 where closed["stratus_active_connections"] != 0 {
                try await Task.sleep(for: .milliseconds(20))
                closed = try await endpoint.samples()
            }
            #expect(closed["stratus_active_connections"] == 0)
            #expect(closed["stratus_disconnect_success_total"] == 1)
            #expect(closed["stratus_unsubscribe_success_total"] == 1)
            #expect(closed["stratus_connection_duration_seconds_count"] == 1)

            let header: JSON = ["host": .string("127.0.0.1:\(endpoint.port)"), "x-api-key": "da2-wrong"]
            let refused = RealtimeSocket(
                url: "ws://127.0.0.1:\(endpoint.port)/graphql/realtime?header="
                    + Data(header.text.utf8).base64EncodedString() + "&payload=e30="
            )
            refused.send(#"{"type":"connection_init","payload":{}}"#)
            #expect(try await refused.next()?.hasPrefix(#"{"type":"connection_error""#) == true)
            await refused.close()
            #expect(try await endpoint.samples()["stratus_connect_client_error_total"] == 1)
        }
    }

    @Test func aTokenGuardsTheMetrics() async throws {
        try await Self.withEndpoint(token: "s3cret-token") { endpoint in
            for headers in [[:], ["Authorization": "Bearer wrong"], ["Authorization": "s3cret-token"]] {
                let refused = try await HTTPEndpointTests.exchange(
                    endpoint.url("/metrics"),
                    method: "GET",
                    body: nil,
                    headers: headers
                )
                #expect(refused.status == 401)
                #expect(refused.headers["www-authenticate"] == "Bearer")
                #expect(
                    refused.body
                        == #"{"errors":[{"errorType":"UnauthorizedException","message":"/metrics needs the token stratus serve printed at start-up: send Authorization: Bearer <token>."}]}"#
                )
            }
            #expect(try await endpoint.samples(token: "s3cret-token")["stratus_active_connections"] == 0)
        }
    }

    @Test func readyOnceTheStoreAnswersAndHearsOtherInstances() async throws {
        try await Self.withEndpoint { endpoint in
            // On PostgreSQL the listening connection connects shortly after the server starts.
            var ready = try await HTTPEndpointTests.exchange(endpoint.url("/ready"), method: "GET", body: nil)
            for _ in 0..<250 where ready.status != 200 {
                #expect(ready.status == 503)
                #expect(ready.body.hasPrefix(#"{"status":"not ready","problem":"#), "\(ready.body)")
                try await Task.sleep(for: .milliseconds(20))
                ready = try await HTTPEndpointTests.exchange(endpoint.url("/ready"), method: "GET", body: nil)
            }
            #expect(ready.status == 200)
            #expect(ready.body == #"{"status":"ok"}"#)
        }
    }

    @Test func cognitoSignInsAreCountedByOutcome() async throws {
        let exported = MetricsEndpoint()
        let backend = try await LocalBackend.start(
            schema: "type Note @model { id: ID! }",
            cognito: CognitoConfiguration(
                userPoolId: "us-east-1_Metrics",
                clients: [.init(clientId: "metricsclient")],
                users: [.init(username: "ada", password: "Secret-pass1!")]
            ),
            metrics: exported
        )
        defer { Task { await backend.stop() } }
        func signIn(_ password: String) async throws -> Int {
            let body: JSON = [
                "AuthFlow": "USER_PASSWORD_AUTH", "ClientId": "metricsclient",
                "AuthParameters": ["USERNAME": "ada", "PASSWORD": .string(password)],
            ]
            return try await CognitoEndpointTests.post(
                backend,
                target: "AWSCognitoIdentityProviderService.InitiateAuth",
                body: body.text
            ).0
        }
        #expect(try await signIn("Secret-pass1!") == 200)
        #expect(try await signIn("wrong") == 400)
        #expect(try await signIn("wrong") == 400)
        let invented = try await CognitoEndpointTests.post(
            backend,
            target: "AWSCognitoIdentityProviderService.Invented\(UUID().uuidString.prefix(8))",
            body: "{}"
        )
        #expect(invented.0 == 400)
        let samples = try await Endpoint(port: backend.endpoint.port ?? 0).samples()
        #expect(samples[#"stratus_cognito_sign_ins_total{outcome="success"}"#] == 1)
        #expect(samples[#"stratus_cognito_sign_ins_total{outcome="refused"}"#] == 2)
        #expect(samples[#"stratus_cognito_requests_total{operation="InitiateAuth",status="200"}"#] == 1)
        #expect(samples[#"stratus_cognito_requests_total{operation="InitiateAuth",status="400"}"#] == 2)
        // A target of the caller's own is not a label.
        #expect(samples[#"stratus_cognito_requests_total{operation="unknown",status="400"}"#] == 1)
        #expect(samples.keys.filter { $0.contains("Invented") }.isEmpty)
    }

    @Test func functionInvocationsAreCountedByOutcomeAndTimed() async throws {
        let directory = try CustomResolverTests.directory([
            "ok.py": "import sys; sys.stdin.read(); print('\"fine\"')",
            "bad.py": """
            import json, sys
            sys.stdin.read()
            print(json.dumps({"errorMessage": "no", "errorType": "Refused"}))
            sys.exit(1)
            """,
        ])
        defer { try? FileManager.default.removeItem(at: directory) }
        let server = try await TestServer(
            """
            type Note @model { id: ID! }
            type Query { ok: String @function(name: "ok") bad: String @function(name: "bad") }
            """,
            configuration: ServerConfiguration(
                functions: [
                    "ok": CustomResolverTests.command("ok.py", in: directory),
                    "bad": CustomResolverTests.command("bad.py", in: directory),
                ]
            )
        )
        let exported = MetricsEndpoint()
        let metrics = exported.makeMetrics()
        await ServerMetrics.$current.withValue(metrics) {
            #expect(await server.run("{ ok }") == #"{"data":{"ok":"fine"}}"#)
            #expect(await server.run("{ ok }") == #"{"data":{"ok":"fine"}}"#)
            #expect(await server.run("{ bad }").contains(#""errorType":"Lambda:Unhandled""#))
        }
        let samples = try await Self.parse(exported.registry.emitToString())
        #expect(samples[#"stratus_function_invocations_total{function="ok",outcome="success"}"#] == 2)
        #expect(samples[#"stratus_function_invocations_total{function="bad",outcome="error"}"#] == 1)
        #expect(samples[#"stratus_function_duration_seconds_count{function="ok"}"#] == 2)
        #expect((samples[#"stratus_function_duration_seconds_sum{function="ok"}"#] ?? 0) > 0)
    }
}
