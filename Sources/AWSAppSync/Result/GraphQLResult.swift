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
    /// Each error keeps `message`, `locations`, `path` and `extensions`, and takes `errorType`,
    /// `errorInfo` and `data` from the error itself, as AppSync sends them, or else from its
    /// `extensions`.
    ///
    /// - Throws: ``JSONDecodingError`` when the body is not an object holding `data` or
    ///   `errors`, when an error has no `message`, or when `data` does not fit the selections.
    public init<Operation: GraphQLOperation>(
        response: JSONValue,
        operation: Operation,
        source: Source = .server
    ) throws(JSONDecodingError) where Data == Operation.Data {
        guard case .object(let body) = response else {
            throw .malformedResponse("the body is not a JSON object. Check the endpoint's URL.")
        }
        guard body["data"] != nil || body["errors"] != nil else {
            throw .malformedResponse("the body holds neither 'data' nor 'errors'. Check the endpoint's URL.")
        }
        let errors = try Self.readErrors(body["errors"])
        var data: Data?
        switch body["data"] {
        case .none, .null?:
            data = nil
        case .object(let object)?:
            data = try Operation.Data(jsonObject: object, variables: operation.variables)
        case let other?:
            throw .wrongType(other, expected: "an object", at: ["data"])
        }
        self.init(data: data, errors: errors, source: source)
    }

    private static func readErrors(_ value: JSONValue?) throws(JSONDecodingError) -> [GraphQLError]? {
        guard let value, !value.isNull else { return nil }
        guard case .array(let entries) = value else {
            throw .wrongType(value, expected: "a list", at: ["errors"])
        }
        var errors: [GraphQLError] = []
        for (index, entry) in entries.enumerated() {
            errors.append(try GraphQLError(responseError: entry, path: ["errors", String(index)]))
        }
        return errors
    }
}

extension GraphQLError {
    /// Reads one entry of a response's `errors`.
    ///
    /// - Throws: ``JSONDecodingError`` at `path` when the entry is not an object with a string
    ///   `message`.
    init(responseError entry: JSONValue, path: [String]) throws(JSONDecodingError) {
        guard case .object(let object) = entry else {
            throw .wrongType(entry, expected: "an object", at: path)
        }
        guard let message = object["message"], message.stringValue != nil else {
            throw .wrongType(object["message"] ?? .null, expected: "String", at: path + ["message"])
        }
        do {
            self = try entry.decode(as: GraphQLError.self)
        } catch {
            throw .malformedResponse(
                "the error at '\(path.joined(separator: "."))' does not have the shape of a GraphQL error: \(error)"
            )
        }
        let extensions = object["extensions"]?.objectValue
        func fromExtensions(_ key: String) -> JSONValue? {
            guard let value = extensions?[key], !value.isNull else { return nil }
            return value
        }
        if errorType == nil { errorType = fromExtensions("errorType")?.stringValue }
        if errorInfo == nil || errorInfo == .null { errorInfo = fromExtensions("errorInfo") }
        if data == nil || data == .null { data = fromExtensions("data") }
    }
}
