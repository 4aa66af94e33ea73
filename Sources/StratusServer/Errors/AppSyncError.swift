import AWSWire
import GraphQL

/// One object of the `errors` of an AppSync answer, and the one place such answers are written.
///
/// Three shapes, each with its keys in AppSync's order:
/// - an error of a request as a whole, refused before it ran: `errorType`, `message`, and
///   `errorCode` when there is one;
/// - an error of a field: `path`, `data`, `errorType`, `errorInfo`, `locations`, `message`;
/// - an error of the document that GraphQL reports: `path` (null), `locations`, `message`.
struct AppSyncError: Sendable {
    enum Shape: Sendable {
        case request(errorCode: Int?)
        case field(path: [JSON], data: JSON, errorInfo: JSON, locations: [SourceLocation])
        case document(locations: [SourceLocation])
    }

    var errorType: AppSyncErrorType?
    var message: String
    var shape: Shape
    /// An error type a function reported, written as given in place of ``errorType``.
    var reportedErrorType: String? = nil

    /// An error of a request as a whole.
    init(_ errorType: AppSyncErrorType, _ message: String, errorCode: Int? = nil) {
        self.errorType = errorType
        self.message = message
        shape = .request(errorCode: errorCode)
    }

    init(errorType: AppSyncErrorType?, message: String, shape: Shape) {
        self.errorType = errorType
        self.message = message
        self.shape = shape
    }

    /// The error object.
    var json: JSON {
        switch shape {
        case .request(let errorCode):
            var object: JSONObject = [:]
            if let errorType { object["errorType"] = .string(errorType.rawValue) }
            object["message"] = .string(message)
            if let errorCode { object["errorCode"] = .int(errorCode) }
            return .object(object)
        case .field(let path, let data, let errorInfo, let locations):
            return .object([
                "path": .array(path),
                "data": data,
                "errorType": reportedErrorType.map(JSON.string) ?? errorType.map { .string($0.rawValue) } ?? .null,
                "errorInfo": errorInfo,
                "locations": Self.json(locations),
                "message": .string(message),
            ])
        case .document(let locations):
            return .object(["path": .null, "locations": Self.json(locations), "message": .string(message)])
        }
    }

    /// `{"data": …, "errors": […]}`; without `data` when it is `nil`, without `errors` when there
    /// are none.
    static func body(_ errors: [AppSyncError], data: JSON? = nil) -> JSON {
        var body: JSONObject = [:]
        if let data { body["data"] = data }
        if !errors.isEmpty { body["errors"] = .array(errors.map(\.json)) }
        return .object(body)
    }

    /// `[{"line":…,"column":…,"sourceName":null}]`, or `null` for none.
    private static func json(_ locations: [SourceLocation]) -> JSON {
        guard !locations.isEmpty else { return .null }
        return .array(
            locations.map { .object(["line": .int($0.line), "column": .int($0.column), "sourceName": .null]) }
        )
    }
}
