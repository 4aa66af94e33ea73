import Foundation
import HTTPTypes
import OTel
import ServiceLifecycle
import Synchronization
import Tracing

/// The OTLP backends made in this process, kept until it exits. swift-otel's exporter shuts its
/// HTTP client down in its `deinit` with `syncShutdown()`, which traps when the last reference
/// goes on a SwiftNIO event loop thread, as the end of a request's can; kept, it never goes. The
/// exporter's client is shut down when its service stops, so a kept one holds memory only.
private let keptBackends = Mutex<[(any Sendable, any Sendable)]>([])

/// Traces of the requests the server answers, through swift-distributed-tracing: one span per
/// request to `/graphql` or a REST API, continuing the caller's trace when the request carries a
/// W3C `traceparent` (and `tracestate`), with children for what the request runs.
///
/// `stratus serve --otlp-endpoint` exports them over OTLP/HTTP with swift-otel
/// (``otlp(endpoint:serviceName:scheduleDelay:)``); an application embedding the server passes
/// the `Tracer` of its own backend (``init(tracer:)``). Without a ``ServerTracing`` no span is
/// made: each place that would start one reads a task-local value and finds none.
///
/// ```swift
/// let tracing = try ServerTracing.otlp(endpoint: "http://127.0.0.1:4318")
/// let http = StratusHTTPServer(server: server, authorization: authorization, tracing: tracing)
/// ```
///
/// The spans, parent first:
///
/// | span | kind | attributes |
/// |---|---|---|
/// | `POST /graphql`, `GET /rest/{api}` | server | `http.request.method`, `http.route`, `url.path`, `http.response.status_code`, `aws.request_id`, `graphql.operation.type`, `graphql.operation.name`, `stratus.authorization_mode`, `client.address`, `user_agent.original` |
/// | `graphql.parse`, `graphql.validate` | internal | (a document not in the cache) |
/// | `query ListTodos` (the operation's type and name) | internal | `graphql.operation.type`, `graphql.operation.name` |
/// | `resolve Query.listTodos` (a root field, or a field that reads the store) | internal | `stratus.resolver.kind` (`generated`, `direct`) |
/// | `function {name}` | internal | `faas.invoked_name` |
/// | `fetchItem Todo`, `fetchPage Todo`, `fetchChanges`, `write Todo` | client | `db.system.name`, `db.operation.name`, `db.collection.name` |
/// | `publish Todo` (a write that has subscribers) | producer | `messaging.operation.type`, `stratus.listeners` (the real-time fan-outs that hear it) |
/// | `deliver Todo` (per event loop) | consumer | `messaging.operation.type`, `stratus.connections` |
public struct ServerTracing: Sendable {
    /// What makes the spans.
    public let tracer: any Tracer
    /// What exports them, run beside the HTTP server and shut down after it, so that the spans
    /// of the last requests are sent; `nil` for a tracer whose backend the application runs.
    let service: (any Service)?
    /// Where the spans are posted, for an OTLP exporter; `nil` for an application's tracer.
    public let collector: String?

    /// Spans made by `tracer`, whose backend the application bootstraps and runs itself.
    public init(tracer: any Tracer) {
        self.tracer = tracer
        self.service = nil
        self.collector = nil
    }

    private init(tracer: any Tracer, service: any Service, collector: String) {
        self.tracer = tracer
        self.service = service
        self.collector = collector
    }

    /// Spans exported over OTLP/HTTP (protobuf) to the collector at `endpoint`, the base URL
    /// OpenTelemetry's `OTEL_EXPORTER_OTLP_ENDPOINT` names (`http://127.0.0.1:4318`): they are
    /// posted to its `/v1/traces`. The `OTEL_*` environment variables of OpenTelemetry's SDKs
    /// apply on top, as swift-otel reads them (`OTEL_EXPORTER_OTLP_ENDPOINT`,
    /// `OTEL_EXPORTER_OTLP_HEADERS`, `OTEL_TRACES_SAMPLER`, `OTEL_SERVICE_NAME`, …).
    ///
    /// - Parameters:
    ///   - endpoint: The collector; `nil` takes `OTEL_EXPORTER_OTLP_ENDPOINT` (or
    ///     `http://localhost:4318` without it).
    ///   - serviceName: The `service.name` of the spans' resource.
    ///   - scheduleDelay: How long finished spans wait to be sent in a batch.
    /// - Throws: ``ServerError`` when `endpoint` is not an `http` or `https` URL.
    public static func otlp(
        endpoint: String?,
        serviceName: String = "stratus",
        scheduleDelay: Duration = .seconds(5)
    ) throws(ServerError) -> ServerTracing {
        var configuration = OTel.Configuration.default
        configuration.serviceName = serviceName
        configuration.logs.enabled = false
        configuration.metrics.enabled = false
        configuration.traces.enabled = true
        configuration.traces.exporter = .otlp
        configuration.traces.otlpExporter.protocol = .httpProtobuf
        configuration.traces.batchSpanProcessor.scheduleDelay = scheduleDelay
        // OpenTelemetry's defaults (a queue of 2,048 spans, sent 512 at a time, one batch per
        // send) drop spans once a server makes more than 512 per send's round trip: four spans
        // a request at a thousand requests a second. A queue of 8,192 sent 4,096 at a time keeps
        // them (`OTEL_BSP_MAX_QUEUE_SIZE` and `OTEL_BSP_MAX_EXPORT_BATCH_SIZE` still win).
        configuration.traces.batchSpanProcessor.maxQueueSize = 8_192
        configuration.traces.batchSpanProcessor.maxExportBatchSize = 4_096
        // swift-otel's own warnings (a collector that cannot be reached) go to standard error.
        configuration.diagnosticLogLevel = .warning
        var collector = "http://localhost:4318/v1/traces"
        if let endpoint {
            guard let url = URL(string: endpoint), url.scheme == "http" || url.scheme == "https", url.host != nil
            else {
                throw .tracing(
                    "The OTLP endpoint '\(endpoint)' is not an http or https URL. Give the collector's base URL, "
                        + "such as http://127.0.0.1:4318."
                )
            }
            // An endpoint set in code is used as it is: the signal's path is added here, as
            // OpenTelemetry adds it to `OTEL_EXPORTER_OTLP_ENDPOINT`.
            let base = endpoint.hasSuffix("/") ? String(endpoint.dropLast()) : endpoint
            configuration.traces.otlpExporter.endpoint = base + "/v1/traces"
            collector = base + "/v1/traces"
        }
        // The environment wins, as swift-otel applies it.
        let environment = ProcessInfo.processInfo.environment
        if let traces = environment["OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"] {
            collector = traces
        } else if let shared = environment["OTEL_EXPORTER_OTLP_ENDPOINT"] {
            collector = (shared.hasSuffix("/") ? String(shared.dropLast()) : shared) + "/v1/traces"
        }
        do {
            let backend = try OTel.makeTracingBackend(configuration: configuration)
            keptBackends.withLock { $0.append((backend.factory, backend.service)) }
            return ServerTracing(tracer: backend.factory, service: backend.service, collector: collector)
        } catch {
            throw .tracing("The OTLP trace exporter could not be set up: \(error)")
        }
    }
}

/// The tracer of the request being answered, and the spans of what it runs.
package enum Traces {
    /// The tracer of the server answering the current request; `nil` when requests are not
    /// traced, which makes ``span(_:kind:isolation:attributes:_:)`` only run its body.
    @TaskLocal package static var tracer: (any Tracer)?

    /// Runs `body` in a span named `name`, a child of the current one, when the request is
    /// traced; what `body` throws is recorded on the span, and thrown as it is.
    package static func span<T, Failure: Error>(
        _ name: @autoclosure () -> String,
        kind: SpanKind = .internal,
        isolation: isolated (any Actor)? = #isolation,
        attributes: (inout SpanAttributes) -> Void = { _ in },
        _ body: () async throws(Failure) -> T
    ) async throws(Failure) -> T {
        guard let tracer else { return try await body() }
        let result: Result<T, Failure> = await tracer.withSpan(name(), ofKind: kind, isolation: isolation) { span in
            var values = SpanAttributes()
            attributes(&values)
            span.attributes = values
            do throws(Failure) {
                return .success(try await body())
            } catch {
                span.recordError(error)
                span.setStatus(SpanStatus(code: .error))
                return .failure(error)
            }
        }
        return try result.get()
    }

    /// Runs the synchronous `body` in a span named `name`, a child of the current one, when the
    /// request is traced; `body` may add attributes to the span it is given.
    package static func span<T>(
        _ name: @autoclosure () -> String,
        kind: SpanKind = .internal,
        _ body: ((any Span)?) throws -> T
    ) rethrows -> T {
        guard let tracer else { return try body(nil) }
        return try tracer.withSpan(name(), ofKind: kind) { span in try body(span) }
    }
}

/// Reads `traceparent` and `tracestate` from a request's headers for the tracer's propagator.
struct HTTPFieldsExtractor: Extractor {
    func extract(key: String, from carrier: HTTPFields) -> String? {
        guard let name = HTTPField.Name(key) else { return nil }
        return carrier[name]
    }
}

/// The calls the resolvers make to the item store, each in a span of OpenTelemetry's database
/// conventions (`fetchPage Todo`) when the request is traced.
struct TracedItemStore {
    let store: any ItemStore

    func fetchItem(model: String, key: [JSON], now: Int) async throws -> StoredItem? {
        if let batch = AtomicWrites.current {
            return try await batch.fetchItem(model: model, key: key, now: now, from: store)
        }
        return try await call("fetchItem", model) { try await store.fetchItem(model: model, key: key, now: now) }
    }

    func fetchPage(_ query: PageQuery) async throws -> ItemPage {
        try await call("fetchPage", query.model) { try await store.fetchPage(query) }
    }

    func fetchChanges(_ query: ChangeQuery) async throws -> ChangePage {
        try await call("fetchChanges", query.model) { try await store.fetchChanges(query) }
    }

    /// Writes `write`; in an atomic request, stages it in the request's batch instead.
    func write(_ write: ItemWrite) async throws -> WriteOutcome {
        if let batch = AtomicWrites.current { return try await batch.stage(write, in: store) }
        return try await call("write", write.model) { try await store.write(write) }
    }

    private func call<T>(_ operation: String, _ model: String, _ body: () async throws -> T) async rethrows -> T {
        if let metrics = ServerMetrics.current {
            let start = ContinuousClock.now
            metrics.storeCallsInFlight(changedBy: 1)
            defer {
                metrics.storeCallsInFlight(changedBy: -1)
                metrics.storeCall(operation, store: storeName, duration: .now - start)
            }
            return try await traced(operation, model, body)
        }
        return try await traced(operation, model, body)
    }

    /// `postgresql` or `sqlite`, as OpenTelemetry's `db.system.name` spells them.
    private var storeName: String { store is PostgresItemStore ? "postgresql" : "sqlite" }

    private func traced<T>(_ operation: String, _ model: String, _ body: () async throws -> T) async rethrows -> T {
        guard Traces.tracer != nil else { return try await body() }
        return try await Traces.span(
            "\(operation) \(model)",
            kind: .client,
            attributes: { attributes in
                attributes["db.system.name"] = storeName
                attributes["db.operation.name"] = operation
                attributes["db.collection.name"] = model
            },
            body
        )
    }
}
