import AWSPluginsCore

/// The result of an operation: its data, its errors, and where it came from.
///
/// ```swift
/// let result = try GraphQLResult(response: body, operation: ListTodosQuery())
/// result.data?.listTodos?.items?.forEach { print($0?.name ?? "") }
/// result.errors?.first?.errorType  // "Unauthorized"
/// ```
public struct GraphQLResult<Data: Sendable>: Sendable {
    /// Where a result came from.
    public enum Source: Sendable, Hashable {
        /// The local cache.
        case cache
        /// The server.
        case server
    }

    /// The data, `nil` when the operation failed as a whole.
    public let data: Data?
    /// The errors the server reported, `nil` when it reported none.
    public let errors: [GraphQLError]?
    /// Where the result came from.
    public let source: Source

    /// Creates a result.
    public init(data: Data?, errors: [GraphQLError]?, source: Source) {
        self.data = data
        self.errors = errors
        self.source = source
    }
}

extension GraphQLResult: Equatable where Data: Equatable {}

extension GraphQLResult {
    /// Reads a GraphQL response body (`{"data": …, "errors": […]}`) for `operation`.
    ///
    /// `data` is read against the operation's selections with its variables (see
    /// ``GraphQLSelectionSet/init(jsonObject:variables:)``); a null or absent `data` gives `nil`.
    /// The errors are read as every client reads AppSync's (`GraphQLError(appSyncError:at:)`):
    /// each keeps `message`, `locations` and `path`, takes `errorType`, `errorInfo` and `data`
    /// from the error itself, as AppSync sends them, or else from its `extensions`, and has them
    /// in `extensions` too.
    ///
    /// - Throws: ``JSONDecodingError`` when the body is not an object holding `data` or
    ///   `errors`, when an error has no `message`, or when `data` does not fit the selections.
    public init<Operation: GraphQLOperation>(
        response: JSONValue,
        operation: Operation,
        source: Source = .server
    ) throws(JSONDecodingError) where Data == Operation.Data {
        let body: GraphQLResponseBody
        do {
            body = try GraphQLResponseBody(json: response)
        } catch {
            throw JSONDecodingError(error)
        }
        guard body.isGraphQLResponse else {
            throw .malformedResponse("the body holds neither 'data' nor 'errors'. Check the endpoint's URL.")
        }
        var data: Data?
        switch body.data {
        case .none, .null?:
            data = nil
        case .object(let object)?:
            data = try Operation.Data(jsonObject: object, variables: operation.variables)
        case let other?:
            throw .wrongType(other, expected: "an object", at: ["data"])
        }
        self.init(data: data, errors: body.errors, source: source)
    }
}

extension JSONDecodingError {
    /// The error of a body that is not a GraphQL response.
    init(_ error: GraphQLResponseBodyError) {
        if error.path.isEmpty {
            self = .malformedResponse("the body is not a JSON object. Check the endpoint's URL.")
        } else {
            self = .wrongType(error.found ?? .null, expected: error.expected ?? "JSON", at: error.path)
        }
    }
}
