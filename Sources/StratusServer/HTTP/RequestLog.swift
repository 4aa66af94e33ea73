import Foundation
import HTTPTypes
import Hummingbird
import Synchronization

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
/// Every response carries the request's id in `x-amzn-RequestId`, as AppSync's do, so that a
/// client's report and the server's line can be matched.
///
/// With `metrics`, requests to `/graphql` and the REST APIs are counted and timed by the same
/// fields (``ServerMetrics/request(operation:status:authorizationMode:duration:)``).
package struct RequestLogMiddleware<Context: Hummingbird.RequestContext>: RouterMiddleware {
    let write: (@Sendable (String) -> Void)?
    let metrics: ServerMetrics?
    let format: LogFormat

    package init(write: (@Sendable (String) -> Void)?, metrics: ServerMetrics? = nil, format: LogFormat = .text) {
        self.write = write
        self.metrics = metrics
        self.format = format
    }

    package func handle(
        _ request: Request,
        context: Context,
        next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        let entry = RequestLogEntry()
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
    }

    private let state = Mutex(Fields())
    /// The request's id, sent back in `x-amzn-RequestId`.
    package let id = UUID().uuidString.lowercased()

    /// Records the operation the request runs.
    package func note(operationType: String?, operationName: String?) {
        state.withLock {
            $0.operationType = operationType
            $0.operationName = operationName
        }
    }

    /// Records the mode that authorized the request.
    package func note(authorizationMode: String) {
        state.withLock { $0.authorizationMode = authorizationMode }
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
        let milliseconds =
            Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
        func text(_ value: String?) -> JSON { value.map { .string($0) } ?? .null }
        let line: JSON = .object(
            JSONObject([
                ("time", .string(LogFormat.timestamp())), ("level", "info"), ("subsystem", "request"),
                ("requestId", .string(id)), ("method", .string(request.method.rawValue)),
                ("path", .string(request.uri.path)), ("operationType", text(fields.operationType)),
                ("operationName", text(fields.operationName)),
                ("authorizationMode", text(fields.authorizationMode)), ("status", .int(status)),
                ("durationMs", .double((milliseconds * 10).rounded() / 10)),
            ])
        )
        return line.text
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

extension HTTPField.Name {
    /// `x-amzn-RequestId`: the request's id, as AppSync answers it.
    static let requestID = HTTPField.Name("x-amzn-RequestId")!
}
