import Foundation
import HTTPTypes
import Hummingbird
import StratusServer

/// The Functions page's admin API: the last invocations of the server's local functions.
extension ConsoleEndpoint {
    /// `GET /console/api/functions[?after=<sequence>]`: the functions configured and their last
    /// invocations, newest first (those numbered after `after` only), and how many are kept:
    ///
    /// ```json
    /// {"capacity": 200, "functions": ["echo-dev"],
    ///  "invocations": [{"sequence": 1, "requestId": "…", "function": "echo-dev", "time": "…",
    ///                   "status": "SUCCEEDED", "event": {…}, "result": {…}, "error": null,
    ///                   "durationMs": 12.5, "logLines": ["…"], "droppedLogLines": 0}]}
    /// ```
    ///
    /// `status` is `RUNNING`, `SUCCEEDED` or `FAILED`; a failure's `error` is `{"errorType",
    /// "message", "detail"}`: the type the handler gave (or `null`), the message the client
    /// sees, and what the server knows besides.
    func functions(_ request: Request, server: StratusServer) -> Response {
        let names = server.functionNames
        guard !names.isEmpty else {
            return Self.refusal(
                .notFound,
                #"The server runs no functions. Configure them in stratus.json: "functions": {"echo-dev": "#
                    + #"{"runtime": ["python3", "-m", "awslambdaric", "index.handler"], "directory": "#
                    + #""amplify/backend/function/echo/src"}} (or "command": ["python3", "handler.py"]), used by "#
                    + #"@function(name: "echo-${env}") fields or by "resolvers": {"Query.echo": {"function": "#
                    + #""echo-dev"}}; then restart stratus serve."#,
                json: true
            )
        }
        let after: Int
        switch Self.after(request, seen: "invocation") {
        case .success(let value): after = value
        case .failure(let refusal): return refusal.response
        }
        guard let record = server.functionInvocations else {
            return Self.refusal(.notFound, "The server keeps no record of its functions' invocations.", json: true)
        }
        let invocations = record.records.prefix { $0.sequence > after }
        return Self.jsonResponse([
            "capacity": .int(record.capacity), "functions": .array(names.map { .string($0) }),
            "invocations": .array(invocations.map(Self.json(of:))),
        ])
    }

    static func json(of invocation: FunctionInvocation) -> JSON {
        let status: String
        var result = JSON.null
        var error = JSON.null
        switch invocation.outcome {
        case .running:
            status = "RUNNING"
        case .result(let value):
            status = "SUCCEEDED"
            result = value
        case .error(let errorType, let message, let detail):
            status = "FAILED"
            error = .object(
                JSONObject([
                    ("errorType", errorType.map { .string($0) } ?? .null), ("message", .string(message)),
                    ("detail", .string(detail)),
                ])
            )
        }
        return .object(
            JSONObject([
                ("sequence", .int(invocation.sequence)), ("requestId", .string(invocation.requestID)),
                ("function", .string(invocation.function)), ("time", timestamp(invocation.time)),
                ("status", .string(status)), ("event", invocation.event), ("result", result), ("error", error),
                ("durationMs", invocation.durationMilliseconds.map { .double($0) } ?? .null),
                ("logLines", .array(invocation.logLines.map { .string($0) })),
                ("droppedLogLines", .int(invocation.droppedLogLines)),
            ])
        )
    }
}
