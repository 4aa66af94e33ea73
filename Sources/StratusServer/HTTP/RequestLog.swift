import Foundation
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
///
/// With `metrics`, requests to `/graphql` and the REST APIs are counted and timed by the same
/// fields (``ServerMetrics/request(operation:status:authorizationMode:duration:)``).
package struct RequestLogMiddleware<Context: Hummingbird.RequestContext>: RouterMiddleware {
    let write: (@Sendable (String) -> Void)?
    let metrics: ServerMetrics?

    package init(write: (@Sendable (String) -> Void)?, metrics: ServerMetrics? = nil) {
        self.write = write
        self.metrics = metrics
    }

    package func handle(
        _ request: Request,
        context: Context,
        next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        let entry = RequestLogEntry()
        let start = ContinuousClock.now
        do {
            let response = try await RequestLogEntry.$current.withValue(entry) {
                try await ServerMetrics.$current.withValue(metrics) { try await next(request, context) }
            }
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
        write?(entry.line(request, status: status, duration: duration))
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
}
