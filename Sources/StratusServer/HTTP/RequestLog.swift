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
package struct RequestLogMiddleware<Context: Hummingbird.RequestContext>: RouterMiddleware {
    let write: @Sendable (String) -> Void

    package func handle(
        _ request: Request,
        context: Context,
        next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        let entry = RequestLogEntry()
        let start = ContinuousClock.now
        do {
            let response = try await RequestLogEntry.$current.withValue(entry) { try await next(request, context) }
            write(entry.line(request, status: response.status.code, duration: ContinuousClock.now - start))
            return response
        } catch {
            let status = (error as? any HTTPResponseError)?.status.code ?? 500
            write(entry.line(request, status: status, duration: ContinuousClock.now - start))
            throw error
        }
    }
}

/// What the endpoints learn of a request for its log line: the operation and how it was
/// authorized.
package final class RequestLogEntry: Sendable {
    /// The entry of the request being answered; `nil` when requests are not logged.
    @TaskLocal package static var current: RequestLogEntry?

    private struct Fields {
        var operationType: String?
        var operationName: String?
        var authorizationMode: String?
    }

    private let fields = Mutex(Fields())

    /// Records the operation the request runs.
    package func note(operationType: String?, operationName: String?) {
        fields.withLock {
            $0.operationType = operationType
            $0.operationName = operationName
        }
    }

    /// Records the mode that authorized the request.
    package func note(authorizationMode: String) {
        fields.withLock { $0.authorizationMode = authorizationMode }
    }

    func line(_ request: Request, status: Int, duration: Duration) -> String {
        let fields = fields.withLock { $0 }
        let milliseconds = duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000
        return [
            request.method.rawValue, request.uri.path, fields.operationType ?? "-", fields.operationName ?? "-",
            fields.authorizationMode ?? "-", "\(status)", "\(milliseconds)ms",
        ].joined(separator: " ")
    }
}
