import Foundation
import HTTPTypes
import Hummingbird
import OTel
import Synchronization
import Tracing

/// One line per HTTP request, written once it is answered, so that a refused request is
/// visible on the server's side as well as the client's:
///
/// ```
/// POST /graphql query ListTodos API_KEY 200 3ms
/// POST /graphql - - - 401 0ms
/// ```
///
/// The fields are the method, the path, the operation's type and name and the authorization
/// mode (`-` when the request did not get that far, or has none), the status and the duration.
/// In ``LogFormat/json``, each line is a JSON object with the same fields, the time and the
/// request's id:
///
/// ```
/// {"time":"2026-11-29T10:00:00.120Z","level":"info","subsystem":"request","requestId":"…",
///  "method":"POST","path":"/graphql","operationType":"query","operationName":"ListTodos",
///  "authorizationMode":"API_KEY","status":200,"durationMs":3.1}
/// ```
///
/// A request traced (``ServerTracing``) has its trace's id in `traceId`, after `requestId`.
///
/// Every response carries the request's id in `x-amzn-RequestId`, as AppSync's do, so that a
/// client's report and the server's line can be matched.
///
/// With `metrics`, requests to `/graphql` and the REST APIs are counted and timed by the same
/// fields (``ServerMetrics/request(operation:status:authorizationMode:duration:)``).
package struct RequestLogMiddleware<Context: Hummingbird.RequestContext>: RouterMiddleware {
    let write: (@Sendable (String) -> Void)?
    let metrics: ServerMetrics?
    let format: LogFormat
    let tracer: (any Tracer)?
    /// Where requests to `/graphql` and the REST APIs are kept once answered; `nil` keeps none.
    let history: RequestHistory?

    package init(
        write: (@Sendable (String) -> Void)?,
        metrics: ServerMetrics? = nil,
        format: LogFormat = .text,
        tracer: (any Tracer)? = nil,
        history: RequestHistory? = nil
    ) {
        self.write = write
        self.metrics = metrics
        self.format = format
        self.tracer = tracer
        self.history = history
    }

    package func handle(
        _ request: Request,
        context: Context,
        next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        let entry = RequestLogEntry(isRecorded: history != nil && Self.isRecorded(request.uri.path))
        guard let tracer, let route = Self.tracedRoute(of: request.uri.path) else {
            return try await answer(request, context: context, entry: entry, next: next)
        }
        // The caller's `traceparent` and `tracestate`, continued; a new trace without them.
        var parent = ServiceContext.topLevel
        tracer.extract(request.headers, into: &parent, using: HTTPFieldsExtractor())
        return try await tracer.withSpan("\(request.method.rawValue) \(route)", context: parent, ofKind: .server) {
            span in
            entry.note(traceID: span.context.otelTraceID)
            var attributes = SpanAttributes()
            attributes["http.request.method"] = request.method.rawValue
            attributes["http.route"] = route
            attributes["url.path"] = request.uri.path
            attributes["url.scheme"] = "http"
            attributes["aws.request_id"] = entry.id
            if let userAgent = request.headers[.userAgent] { attributes["user_agent.original"] = userAgent }
            if let address = (context as? ClientAddressRequestContext)?.remoteAddress?.ipAddress {
                attributes["client.address"] = address
            }
            span.attributes = attributes
            let status: Int
            do {
                let response = try await Traces.$tracer.withValue(tracer) {
                    try await answer(request, context: context, entry: entry, next: next)
                }
                status = response.status.code
                Self.finish(span, entry: entry, status: status)
                return response
            } catch {
                Self.finish(span, entry: entry, status: (error as? any HTTPResponseError)?.status.code ?? 500)
                throw error
            }
        }
    }

    /// The route of a request that gets a span: `/graphql`, or `/rest/{api}`; `nil` for the
    /// others (health checks, metrics, the console, Cognito).
    static func tracedRoute(of path: String) -> String? {
        if path == "/graphql" { return path }
        guard path.hasPrefix("/rest/") else { return nil }
        let api = path.dropFirst("/rest/".count).prefix { $0 != "/" }
        return api.isEmpty ? nil : "/rest/\(api)"
    }

    /// Whether a request to `path` goes into the history: `/graphql` and the REST APIs, not the
    /// console's own requests, health checks or Cognito's.
    static func isRecorded(_ path: String) -> Bool {
        path == "/graphql" || path.hasPrefix("/rest/")
    }

    /// Sets what the request learnt of itself and its status on its span; a 5xx is an error.
    private static func finish(_ span: any Span, entry: RequestLogEntry, status: Int) {
        let fields = entry.fields
        var attributes = span.attributes
        attributes["http.response.status_code"] = status
        if let type = fields.operationType { attributes["graphql.operation.type"] = type }
        if let name = fields.operationName { attributes["graphql.operation.name"] = name }
        if let mode = fields.authorizationMode { attributes["stratus.authorization_mode"] = mode }
        if status >= 500 {
            attributes["error.type"] = String(status)
            span.setStatus(SpanStatus(code: .error))
        }
        span.attributes = attributes
    }

    /// The request answered, counted and logged.
    private func answer(
        _ request: Request,
        context: Context,
        entry: RequestLogEntry,
        next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        let start = ContinuousClock.now
        do {
            var response = try await RequestLogEntry.$current.withValue(entry) {
                try await ServerMetrics.$current.withValue(metrics) { try await next(request, context) }
            }
            response.headers[.requestID] = entry.id
            record(
                entry,
                request,
                status: response.status.code,
                replayed: response.headers[.idempotentReplayed] != nil,
                since: start
            )
            return response
        } catch {
            let status = (error as? any HTTPResponseError)?.status.code ?? 500
            record(entry, request, status: status, replayed: false, since: start)
            throw error
        }
    }

    private func record(
        _ entry: RequestLogEntry,
        _ request: Request,
        status: Int,
        replayed: Bool,
        since start: ContinuousClock.Instant
    ) {
        let duration = ContinuousClock.now - start
        if let history, entry.isRecorded {
            history.add(entry.record(request, status: status, duration: duration))
        }
        if let write {
            switch format {
            case .text: write(entry.line(request, status: status, duration: duration))
            case .json: write(entry.jsonLine(request, status: status, duration: duration))
            }
        }
        guard let metrics else { return }
        let path = request.uri.path
        guard path == "/graphql" || path.hasPrefix("/rest/") else { return }
        let fields = entry.fields
        metrics.request(
            operation: fields.operationType ?? "-",
            status: status,
            authorizationMode: fields.authorizationMode ?? "-",
            duration: duration
        )
        if replayed { metrics.idempotentReplay() }
    }
}

/// What the endpoints learn of a request for its log line: the operation and how it was
/// authorized.
package final class RequestLogEntry: Sendable {
    /// The entry of the request being answered; `nil` when requests are not logged.
    @TaskLocal package static var current: RequestLogEntry?

    struct Fields {
        var operationType: String?
        var operationName: String?
        var authorizationMode: String?
        var traceID: String?
        /// What only a recorded request notes (``isRecorded``).
        var identity: String?
        var query: String?
        var variables: JSONObject?
        var errors: [JSON] = []
        var errorsAreFinal = false
        var resolverCount: Int?
        var ruleRefusals: [String] = []
    }

    private let state = Mutex(Fields())
    /// The request's id, sent back in `x-amzn-RequestId`.
    package let id = UUID().uuidString.lowercased()
    /// Whether the request goes into a ``RequestHistory``: only then do the endpoints note its
    /// identity, document and errors, which nothing else reads.
    package let isRecorded: Bool
    /// When the request arrived, for a recorded one: nothing else reads the clock for it.
    let time: Date?

    package init(isRecorded: Bool = false) {
        self.isRecorded = isRecorded
        time = isRecorded ? Date() : nil
    }

    /// Records the operation the request runs.
    package func note(operationType: String?, operationName: String?) {
        state.withLock {
            $0.operationType = operationType
            $0.operationName = operationName
        }
    }

    /// Records the id of the trace the request's span is in.
    func note(traceID: String?) {
        state.withLock { $0.traceID = traceID }
    }

    /// Records the mode that authorized the request.
    package func note(authorizationMode: String) {
        state.withLock { $0.authorizationMode = authorizationMode }
    }

    /// Records who the caller is (``Identity/summary(apiKey:)``).
    package func note(identity: String) {
        state.withLock { $0.identity = identity }
    }

    /// Records the request's document and variables, to replay it.
    package func note(query: String, variables: JSONObject) {
        state.withLock {
            $0.query = query
            $0.variables = variables
        }
    }

    /// Records the errors of the answer (its `errors` member), at most
    /// ``RequestHistory/maxKeptErrors``; `final` errors, those of the answer sent, are not
    /// replaced by work that ends after it.
    package func note(errors: [JSON], final: Bool = false) {
        state.withLock { fields in
            guard !fields.errorsAreFinal else { return }
            fields.errors = Array(errors.prefix(RequestHistory.maxKeptErrors))
            fields.errorsAreFinal = final
        }
    }

    /// Records how many resolvers the request ran.
    package func note(resolverCount: Int) {
        state.withLock { $0.resolverCount = resolverCount }
    }

    /// Records why an `@auth` rule refused the request a row, as the rule that refused it says.
    package func note(ruleRefusal: String) {
        state.withLock { fields in
            if fields.ruleRefusals.count < RequestHistory.maxKeptErrors, !fields.ruleRefusals.contains(ruleRefusal) {
                fields.ruleRefusals.append(ruleRefusal)
            }
        }
    }

    /// The request as a ``RequestHistory`` keeps it.
    func record(_ request: Request, status: Int, duration: Duration) -> RequestRecord {
        record(
            transport: .http,
            method: request.method.rawValue,
            path: request.uri.path,
            id: id,
            status: status,
            duration: duration
        )
    }

    /// The request as a ``RequestHistory`` keeps it, made with `method` to `path` and known by `id`.
    func record(
        transport: RequestRecord.Transport,
        method: String,
        path: String,
        id: String,
        status: Int,
        duration: Duration
    ) -> RequestRecord {
        let fields = fields
        return RequestRecord(
            requestID: id,
            time: time ?? Date(),
            transport: transport,
            method: method,
            path: path,
            operationType: fields.operationType,
            operationName: fields.operationName,
            authorizationMode: fields.authorizationMode,
            identity: fields.identity,
            decision: .of(
                status: status,
                errors: fields.errors,
                authorized: fields.authorizationMode != nil,
                ruleRefusals: fields.ruleRefusals
            ),
            status: status,
            durationMilliseconds: duration.milliseconds,
            resolverCount: fields.resolverCount,
            errors: fields.errors,
            query: fields.query,
            variables: fields.variables
        )
    }

    /// What was noted so far.
    var fields: Fields { state.withLock { $0 } }

    func line(_ request: Request, status: Int, duration: Duration) -> String {
        let fields = fields
        let milliseconds = duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000
        return [
            request.method.rawValue, request.uri.path, fields.operationType ?? "-", fields.operationName ?? "-",
            fields.authorizationMode ?? "-", "\(status)", "\(milliseconds)ms",
        ].joined(separator: " ")
    }

    func jsonLine(_ request: Request, status: Int, duration: Duration) -> String {
        let fields = fields
        let milliseconds = duration.milliseconds
        func text(_ value: String?) -> JSON { value.map { .string($0) } ?? .null }
        var members: [(String, JSON)] = [
            ("time", .string(LogFormat.timestamp())), ("level", "info"), ("subsystem", "request"),
            ("requestId", .string(id)),
        ]
        // The trace of the request's span, when it is traced, as the trace's tools show its id.
        if let traceID = fields.traceID { members.append(("traceId", .string(traceID))) }
        members += [
            ("method", .string(request.method.rawValue)), ("path", .string(request.uri.path)),
            ("operationType", text(fields.operationType)), ("operationName", text(fields.operationName)),
            ("authorizationMode", text(fields.authorizationMode)), ("status", .int(status)),
            ("durationMs", .double((milliseconds * 10).rounded() / 10)),
        ]
        return JSON.object(JSONObject(members)).text
    }
}

/// How the server writes its log lines: as plain text, or one JSON object per line for a log
/// collector (`stratus serve --log-format json`).
public enum LogFormat: String, Sendable, CaseIterable {
    case text
    case json

    /// `message` as a line of this format: itself in ``text``; in ``json``, an object with the
    /// time, `level`, `subsystem` and `message`.
    public func line(_ message: String, level: String, subsystem: String) -> String {
        switch self {
        case .text:
            return message
        case .json:
            let line: JSON = .object(
                JSONObject([
                    ("time", .string(Self.timestamp())), ("level", .string(level)),
                    ("subsystem", .string(subsystem)), ("message", .string(message)),
                ])
            )
            return line.text
        }
    }

    /// Now, in ISO 8601 with milliseconds, in UTC.
    static func timestamp() -> String {
        Date.now.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
    }
}

extension Duration {
    /// The duration in milliseconds.
    var milliseconds: Double {
        Double(components.seconds) * 1000 + Double(components.attoseconds) / 1e15
    }
}

extension HTTPField.Name {
    /// `x-amzn-RequestId`: the request's id, as AppSync answers it.
    static let requestID = HTTPField.Name("x-amzn-RequestId")!
}
