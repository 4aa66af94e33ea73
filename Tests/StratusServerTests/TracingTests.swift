import AWSAPIPlugin
import AWSDataStorePlugin
import Amplify
import BlogModels
import Foundation
import OTel
import StratusCodegen
import StratusTesting
import Synchronization
import Testing
import Tracing

@testable import StratusServer

/// Spans received by a real OTLP/HTTP endpoint: a Python `http.server` decoding each export with
/// `opentelemetry-proto`'s types (PyPI), so that what swift-otel sends is read as a collector
/// reads it.
@Suite struct TracingTests {
    /// A span as the receiver decoded it.
    struct ReceivedSpan: Sendable {
        let service: String?
        let name: String
        let traceID: String
        let spanID: String
        let parentSpanID: String
        /// OTLP's `SpanKind`: 1 internal, 2 server, 3 client, 4 producer, 5 consumer.
        let kind: Int
        let attributes: JSONObject

        init(_ json: JSON) {
            service = json["service"]?.stringValue
            name = json["name"]?.stringValue ?? ""
            traceID = json["traceId"]?.stringValue ?? ""
            spanID = json["spanId"]?.stringValue ?? ""
            parentSpanID = json["parentSpanId"]?.stringValue ?? ""
            kind = json["kind"]?.intValue ?? 0
            attributes = json["attributes"]?.objectValue ?? [:]
        }
    }

    /// The OTLP/HTTP receiver: it writes its port to `port`, then a JSON line per span received
    /// on `POST /v1/traces` to `spans.jsonl`, in `sys.argv[1]`.
    static let receiver = """
        import json, os, sys, http.server
        from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
            ExportTraceServiceRequest, ExportTraceServiceResponse)
        directory = sys.argv[1]
        out = open(os.path.join(directory, "spans.jsonl"), "a", buffering=1)
        def value(v):
            kind = v.WhichOneof("value")
            return getattr(v, kind) if kind else None
        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers["Content-Length"]))
                if self.path != "/v1/traces" or self.headers.get("Content-Type") != "application/x-protobuf":
                    self.send_response(404)
                    self.end_headers()
                    return
                request = ExportTraceServiceRequest.FromString(body)
                for resource_spans in request.resource_spans:
                    resource = {a.key: value(a.value) for a in resource_spans.resource.attributes}
                    for scope in resource_spans.scope_spans:
                        for span in scope.spans:
                            out.write(json.dumps({
                                "service": resource.get("service.name"), "name": span.name,
                                "traceId": span.trace_id.hex(), "spanId": span.span_id.hex(),
                                "parentSpanId": span.parent_span_id.hex(), "kind": span.kind,
                                "attributes": {a.key: value(a.value) for a in span.attributes}}) + "\\n")
                reply = ExportTraceServiceResponse().SerializeToString()
                self.send_response(200)
                self.send_header("Content-Type", "application/x-protobuf")
                self.send_header("Content-Length", str(len(reply)))
                self.end_headers()
                self.wfile.write(reply)
            def log_message(self, *args):
                pass
        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        with open(os.path.join(directory, "port.tmp"), "w") as f:
            f.write(str(server.server_address[1]))
        os.rename(os.path.join(directory, "port.tmp"), os.path.join(directory, "port"))
        server.serve_forever()
        """

    struct Receiver {
        let directory: URL
        let port: Int
        var endpoint: String { "http://127.0.0.1:\(port)" }

        /// A device's tracer exporting to this receiver as the service `device`, and the task
        /// that runs its exporter, which the caller cancels.
        func deviceTracer() throws -> (any Tracer, Task<Void, any Error>) {
            var configuration = OTel.Configuration.default
            configuration.serviceName = "device"
            configuration.logs.enabled = false
            configuration.metrics.enabled = false
            configuration.traces.otlpExporter.endpoint = endpoint + "/v1/traces"
            configuration.traces.batchSpanProcessor.scheduleDelay = .milliseconds(20)
            let device = try OTel.makeTracingBackend(configuration: configuration)
            // Kept for the process's life, as the server's are (see ServerTracing): the exporter's
            // deinit traps on an event loop thread.
            TracingTests.keptDevices.withLock { $0.append((device.factory, device.service)) }
            return (device.factory, Task { try await device.service.run() })
        }

        /// The spans received so far.
        func spans() throws -> [ReceivedSpan] {
            let text = (try? String(contentsOf: directory.appending(path: "spans.jsonl"), encoding: .utf8)) ?? ""
            return try text.split(separator: "\n").map { try ReceivedSpan(JSON(parsing: Data($0.utf8))) }
        }

        /// The spans once `condition` holds of them, waiting up to `timeout`.
        func spans(
            timeout: Duration = .seconds(20),
            until condition: ([ReceivedSpan]) -> Bool
        ) async throws -> [ReceivedSpan] {
            let deadline = ContinuousClock.now + timeout
            var spans = try spans()
            while !condition(spans), ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(20))
                spans = try self.spans()
            }
            return spans
        }
    }

    static func withReceiver(_ body: (Receiver) async throws -> Void) async throws {
        let directory = temporaryDirectory()
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let log = directory.appending(path: "receiver.log")
        let process = try await ChildProcess.start(["python3", "-c", receiver, directory.path], output: log)
        defer { process.kill() }
        let portFile = directory.appending(path: "port")
        let deadline = ContinuousClock.now + .seconds(20)
        while !FileManager.default.fileExists(atPath: portFile.path), process.isRunning,
            ContinuousClock.now < deadline
        {
            try await Task.sleep(for: .milliseconds(20))
        }
        let text = try? String(contentsOf: portFile, encoding: .utf8)
        let output = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
        let port = try #require(
            text.flatMap { Int($0) },
            "The OTLP receiver did not start (pip install -r Tests/requirements.txt): \(output)"
        )
        try await body(Receiver(directory: directory, port: port))
    }

    static let traceParent = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"

    /// A request carrying a `traceparent` continues its trace: the server span's parent is the
    /// caller's span, the JSON log line has the trace's id, and the span has the request id of
    /// `x-amzn-RequestId`, the operation and the status.
    @Test func serverSpansContinueTheCallersTraceAndNameTheRequest() async throws {
        try await Self.withReceiver { receiver in
            let directory = temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: directory) }
            let server = try await TestStore.server(schema: try SchemaParser().parse(postSchema), directory: directory)
            let lines = Mutex<[String]>([])
            let http = StratusHTTPServer(
                server: server,
                authorization: ServerAuthorization(defaultMode: .apiKey, apiKeys: [APIKey(value: "da2-valid")]),
                log: { _ in },
                requestLog: { line in lines.withLock { $0.append(line) } },
                requestLogFormat: .json,
                tracing: try .otlp(endpoint: receiver.endpoint, scheduleDelay: .milliseconds(20))
            )
            let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
            let task = Task { try await http.run(port: 0) { continuation.yield($0) } }
            defer { task.cancel() }
            var iterator = ports.makeAsyncIterator()
            let port = try #require(await iterator.next())
            let create = #"""
                {"query":"mutation Add { createPost(input: {title: \"T\", rating: 1, status: DRAFT}) { id } }"}
                """#
            let answered = try await HTTPEndpointTests.exchange(
                URL(string: "http://127.0.0.1:\(port)/graphql")!,
                body: create,
                headers: ["x-api-key": "da2-valid", "traceparent": Self.traceParent, "tracestate": "vendor=1"]
            )
            #expect(answered.status == 200, "\(answered.body)")
            // A list the direct path answers, past the executor.
            let listed = try await HTTPEndpointTests.exchange(
                URL(string: "http://127.0.0.1:\(port)/graphql")!,
                body: #"{"query":"query List { listPosts { items { id } } }"}"#,
                headers: ["x-api-key": "da2-valid"]
            )
            #expect(listed.status == 200, "\(listed.body)")
            let spans = try await receiver.spans { spans in
                ["POST /graphql", "resolve Query.listPosts"].allSatisfy { name in spans.contains { $0.name == name } }
            }
            let list = try #require(spans.first { $0.name == "query List" }, "\(spans.map(\.name))")
            let direct = try #require(spans.first { $0.name == "resolve Query.listPosts" })
            #expect(direct.parentSpanID == list.spanID)
            #expect(direct.attributes["stratus.resolver.kind"] == "direct")
            #expect(spans.first { $0.name == "fetchPage Post" }?.parentSpanID == direct.spanID)

            let request = try #require(
                spans.first { $0.name == "POST /graphql" && $0.parentSpanID == "b7ad6b7169203331" },
                "\(spans.map(\.name))"
            )
            #expect(request.service == "stratus")
            #expect(request.kind == 2)
            #expect(request.traceID == "0af7651916cd43dd8448eb211c80319c")
            #expect(request.parentSpanID == "b7ad6b7169203331")
            #expect(request.attributes["http.request.method"] == "POST")
            #expect(request.attributes["http.route"] == "/graphql")
            #expect(request.attributes["http.response.status_code"] == 200)
            #expect(request.attributes["graphql.operation.type"] == "mutation")
            #expect(request.attributes["graphql.operation.name"] == "Add")
            #expect(request.attributes["stratus.authorization_mode"] == "API_KEY")
            #expect(request.attributes["aws.request_id"]?.stringValue == answered.headers["x-amzn-requestid"])
            let operation = try #require(spans.first { $0.name == "mutation Add" }, "\(spans.map(\.name))")
            #expect(operation.parentSpanID == request.spanID)
            #expect(operation.attributes["graphql.operation.type"] == "mutation")
            // Arguments written in the document go to the executor, which resolves the field.
            let resolver = try #require(
                spans.first { $0.name == "resolve Mutation.createPost" },
                "\(spans.map(\.name))"
            )
            #expect(resolver.parentSpanID == operation.spanID)
            #expect(resolver.attributes["stratus.resolver.kind"] == "generated")
            let write = try #require(spans.first { $0.name == "write Post" }, "\(spans.map(\.name))")
            #expect(write.parentSpanID == resolver.spanID)
            #expect(write.kind == 3)
            #expect(write.attributes["db.system.name"] == (TestStore.isPostgres ? "postgresql" : "sqlite"))
            #expect(write.attributes["db.collection.name"] == "Post")
            // Nobody subscribed: publishing does nothing, and has no span (see the DataStore
            // trace below for one that has).
            #expect(!spans.contains { $0.name == "publish Post" })
            for name in ["graphql.parse", "graphql.validate"] {
                #expect(spans.first { $0.name == name }?.parentSpanID == request.spanID, "\(name)")
            }
            #expect(Set(spans.filter { $0.traceID != list.traceID }.map(\.traceID)) == [request.traceID])
            let line = try JSON(parsing: Data(try #require(lines.withLock { $0.first }).utf8))
            #expect(line["traceId"] == "0af7651916cd43dd8448eb211c80319c")
            task.cancel()
            _ = await task.result
            try server.close()
        }
    }

    /// The devices' OTLP backends, kept for the process's life (see ``Receiver/deviceTracer()``).
    static let keptDevices = Mutex<[(any Sendable, any Sendable)]>([])

    /// The API plugin with a tracer makes a client span and sends its `traceparent`: the client's
    /// save and the server's commit are one trace, the server's span a child of the client's.
    @Test func oneTraceRunsFromTheClientsMutationToTheServersWrite() async throws {
        try await Self.withReceiver { receiver in
            let backend = try await LocalBackend.start(
                schema: postSchema,
                tracing: try .otlp(endpoint: receiver.endpoint, scheduleDelay: .milliseconds(20))
            )
            let (device, exporting) = try receiver.deviceTracer()
            defer { exporting.cancel() }
            let plugin = try backend.makeAPIPlugin(tracer: device)
            let save = GraphQLRequest<JSONValue>(
                document: #"mutation Save { createPost(input: {title: "T", rating: 1, status: DRAFT}) { id } }"#,
                responseType: JSONValue.self,
                decodePath: "createPost"
            )
            let response = try await plugin.mutate(request: save)
            guard case .success = response else {
                Issue.record("\(response)")
                return
            }
            let spans = try await receiver.spans { spans in
                // The request's span ends last, after its answer is written: it may come in a later batch.
                spans.contains { $0.service == "device" }
                    && ["POST /graphql", "mutation Save", "write Post"].allSatisfy { name in
                        spans.contains { $0.name == name }
                    }
            }
            let client = try #require(spans.first { $0.service == "device" }, "\(spans.map(\.name))")
            #expect(client.name == "mutation")
            #expect(client.kind == 3)
            #expect(client.attributes["http.request.method"] == "POST")
            #expect(client.attributes["http.response.status_code"] == 200)
            #expect(client.attributes["graphql.operation.type"] == "mutation")
            #expect(client.attributes["url.full"]?.stringValue == backend.endpoint.absoluteString)
            let request = try #require(spans.first { $0.name == "POST /graphql" }, "\(spans.map(\.name))")
            #expect(request.traceID == client.traceID)
            #expect(request.parentSpanID == client.spanID)
            let operation = try #require(spans.first { $0.name == "mutation Save" })
            #expect(operation.parentSpanID == request.spanID)
            let resolver = try #require(spans.first { $0.name == "resolve Mutation.createPost" })
            #expect(resolver.parentSpanID == operation.spanID)
            let write = try #require(spans.first { $0.name == "write Post" })
            #expect(write.traceID == client.traceID)
            #expect(write.parentSpanID == resolver.spanID)
            await backend.stop()
        }
    }

    /// The spans of the last requests are sent when the server shuts down gracefully (as
    /// `stratus serve` does at SIGTERM), not lost with the batch that waits for its schedule:
    /// here a schedule of a minute, which the test never reaches.
    @Test func aGracefulShutdownSendsTheSpansTheServerHolds() async throws {
        try await Self.withReceiver { receiver in
            let directory = temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: directory) }
            let server = try await TestStore.server(schema: try SchemaParser().parse(postSchema), directory: directory)
            let http = StratusHTTPServer(
                server: server,
                authorization: ServerAuthorization(defaultMode: .apiKey, apiKeys: [APIKey(value: "da2-valid")]),
                log: { _ in },
                tracing: try .otlp(endpoint: receiver.endpoint, scheduleDelay: .seconds(60))
            )
            let (ports, portContinuation) = AsyncStream.makeStream(of: Int.self)
            let (shutdownRequests, shutdown) = AsyncStream.makeStream(of: Void.self)
            let task = Task {
                try await http.run(port: 0, shutdownRequests: shutdownRequests) { portContinuation.yield($0) }
            }
            defer { task.cancel() }
            var iterator = ports.makeAsyncIterator()
            let port = try #require(await iterator.next())
            let create = #"""
                {"query":"mutation Kept { createPost(input: {title: \"T\", rating: 1, status: DRAFT}) { id } }"}
                """#
            let answered = try await HTTPEndpointTests.exchange(
                URL(string: "http://127.0.0.1:\(port)/graphql")!,
                body: create,
                headers: ["x-api-key": "da2-valid"]
            )
            #expect(answered.status == 200, "\(answered.body)")
            try await Task.sleep(for: .milliseconds(200))
            #expect(try receiver.spans().isEmpty, "Nothing is sent before the schedule or the shutdown.")
            shutdown.yield()
            _ = await task.result
            let spans = try await receiver.spans { spans in
                ["POST /graphql", "mutation Kept", "write Post"].allSatisfy { name in spans.contains { $0.name == name }
                }
            }
            #expect(Set(spans.map(\.name)).isSuperset(of: ["POST /graphql", "mutation Kept", "write Post"]))
            try server.close()
        }
    }

    /// One trace from a DataStore save to the other subscribers' delivery: the save's span, kept
    /// with its outbox event across a restart of the app; the outbox's send of it; the API
    /// plugin's request; the server's request, operation, write and publication; and the
    /// real-time delivery of the write to the subscribed connections.
    @Test func oneTraceRunsFromADataStoreSaveToTheDelivery() async throws {
        try await Self.withReceiver { receiver in
            let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .appending(path: "Fixtures")
            let schema = try String(contentsOf: fixtures.appending(path: "blog.graphql"), encoding: .utf8)
                .replacingOccurrences(of: "@auth(rules: [", with: "@auth(rules: [{ allow: public }, ")
            let backend = try await LocalBackend.start(
                schema: schema,
                tracing: try .otlp(endpoint: receiver.endpoint, scheduleDelay: .milliseconds(20))
            )
            let (device, exporting) = try receiver.deviceTracer()
            defer { exporting.cancel() }
            let directory = temporaryDirectory()
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: directory) }
            var configuration = DataStoreConfiguration(databaseURL: directory.appending(path: "datastore.sqlite"))
            configuration.durability = .normal
            configuration.tracer = device
            // Saved while the app has not synced yet; the app then stops.
            let offline = AWSDataStorePlugin(modelRegistration: AmplifyModels(), configuration: configuration)
            try await offline.save(Blog(id: "b1", name: "Traced"))
            try await offline.stop()
            // The next launch syncs, and sends the change saved before.
            let plugin = AWSDataStorePlugin(
                modelRegistration: AmplifyModels(),
                configuration: configuration,
                api: try backend.makeAPIPlugin(tracer: device),
                hub: HubCategory()
            )
            try await plugin.start()
            // Generous: DataStore syncs every model of the fixture first, slow when the whole
            // suite runs on two cores.
            let spans = try await receiver.spans(timeout: .seconds(90)) { spans in
                // A request's span ends last, after its answer is written: it may come in a later
                // batch than its children, so the save's trace must hold one.
                let save = spans.first { $0.name == "DataStore.save Blog" }
                return [
                    "DataStore.save Blog", "DataStore.send create Blog", "DataStore.sync Blog", "write Blog",
                    "publish Blog", "deliver Blog",
                ]
                .allSatisfy { name in spans.contains { $0.name == name } }
                    && spans.contains { $0.name == "POST /graphql" && $0.traceID == save?.traceID }
            }
            try await plugin.stop()
            await backend.stop()
            let names = "\(spans.map(\.name))"
            let save = try #require(spans.first { $0.name == "DataStore.save Blog" }, "\(names)")
            #expect(save.service == "device")
            #expect(save.kind == 4)
            let send = try #require(spans.first { $0.name == "DataStore.send create Blog" }, "\(names)")
            #expect(send.traceID == save.traceID)
            #expect(send.parentSpanID == save.spanID)
            #expect(send.kind == 5)
            let client = try #require(spans.first { $0.parentSpanID == send.spanID }, "\(names)")
            #expect(client.name == "mutation")
            #expect(client.kind == 3)
            let request = try #require(spans.first { $0.parentSpanID == client.spanID }, "\(names)")
            #expect(request.name == "POST /graphql")
            #expect(request.service == "stratus")
            // The start's sync of the model, a trace of its own: its query is the API plugin's.
            let sync = try #require(spans.first { $0.name == "DataStore.sync Blog" }, "\(names)")
            #expect(sync.service == "device")
            #expect(sync.attributes["stratus.sync.kind"] == "base")
            let syncQuery = try #require(spans.first { $0.parentSpanID == sync.spanID }, "\(names)")
            #expect(syncQuery.name == "query")
            #expect(syncQuery.kind == 3)
            let operation = try #require(
                spans.first { $0.parentSpanID == request.spanID && $0.name.hasPrefix("mutation") }
            )
            let resolver = try #require(spans.first { $0.name == "resolve Mutation.createBlog" }, "\(names)")
            #expect(resolver.parentSpanID == operation.spanID)
            #expect(["direct", "generated"].contains(resolver.attributes["stratus.resolver.kind"]?.stringValue))
            let write = try #require(spans.first { $0.name == "write Blog" && $0.traceID == save.traceID }, "\(names)")
            #expect(write.parentSpanID == resolver.spanID)
            let publish = try #require(
                spans.first { $0.name == "publish Blog" && $0.traceID == save.traceID },
                "\(names)"
            )
            #expect(publish.parentSpanID == write.parentSpanID)
            let deliver = try #require(
                spans.first { $0.name == "deliver Blog" && $0.traceID == save.traceID },
                "\(names)"
            )
            #expect(deliver.parentSpanID == publish.spanID)
            #expect(deliver.kind == 5)
            // The device's own subscription to onCreateBlog is the connection delivered to.
            #expect((deliver.attributes["stratus.connections"]?.intValue ?? 0) >= 1)
        }
    }
}
