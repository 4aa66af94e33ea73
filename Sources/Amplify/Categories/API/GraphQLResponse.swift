import Foundation

/// The outcome of a GraphQL operation: the decoded value, or what went wrong.
public typealias GraphQLResponse<R: Decodable> = Result<R, GraphQLResponseError<R>>

/// Why a GraphQL response is not a plain success.
public enum GraphQLResponseError<R: Decodable>: Error {
    /// The response held only errors (or `data` whose first value was null).
    case error([GraphQLError])
    /// The response held data and errors.
    case partial(R, [GraphQLError])
    /// The response could not be decoded as `R`: the raw response and the reason.
    case transformationError(String, APIError)
    /// Anything else.
    case unknown(String, String, (any Error)?)
}

extension GraphQLResponseError: Sendable where R: Sendable {}

/// One entry of a GraphQL response's `errors`, with AppSync's top-level extras.
public struct GraphQLError: Error, Sendable, Hashable, Codable, CustomStringConvertible {
    /// A line and column in the document.
    public struct Location: Sendable, Hashable, Codable {
        public var line: Int
        public var column: Int

        public init(line: Int, column: Int) {
            self.line = line
            self.column = column
        }
    }

    public var message: String
    public var locations: [Location]?
    /// The path to the field that failed: names and indexes.
    public var path: [JSONValue]?
    /// Extra information, including every top-level key AppSync adds.
    public var extensions: [String: JSONValue]?
    /// AppSync's error type, such as `ConditionalCheckFailedException` or `ConflictUnhandled`.
    public var errorType: String?
    /// AppSync's error info.
    public var errorInfo: JSONValue?
    /// AppSync's `data` for the error (the server's item in a conflict).
    public var data: JSONValue?

    public init(
        message: String,
        locations: [Location]? = nil,
        path: [JSONValue]? = nil,
        extensions: [String: JSONValue]? = nil,
        errorType: String? = nil,
        errorInfo: JSONValue? = nil,
        data: JSONValue? = nil
    ) {
        self.message = message
        self.locations = locations
        self.path = path
        self.extensions = extensions
        self.errorType = errorType
        self.errorInfo = errorInfo
        self.data = data
    }

    public var description: String {
        errorType.map { "\($0): \(message)" } ?? message
    }
}

/// How a request failed before a GraphQL response could be read.
public enum APIError: Error, Sendable, CustomStringConvertible {
    /// The configuration does not allow the request: what is wrong, and the fix.
    case invalidConfiguration(String, String)
    /// The server answered with a status other than 2xx; the response keeps the body.
    case httpStatusError(Int, APIResponse)
    /// The request could not reach the server.
    case networkError(String, any Error)
    /// The operation failed: what happened, and what to do.
    case operationError(String, String)
    /// The URL could not be built.
    case invalidURL(String)
    /// Anything else.
    case unknown(String, String)

    public var description: String {
        switch self {
        case .invalidConfiguration(let message, let fix): return "\(message) \(fix)"
        case .httpStatusError(let status, let response):
            let body = String(decoding: response.body, as: UTF8.self)
            return "The server answered HTTP \(status): \(body)"
        case .networkError(let message, let error): return "\(message) (\(error))"
        case .operationError(let message, let fix): return "\(message) \(fix)"
        case .invalidURL(let url): return "'\(url)' is not a valid URL."
        case .unknown(let message, let fix): return "\(message) \(fix)"
        }
    }
}

/// An HTTP response: status, headers and body.
public struct APIResponse: Sendable, Hashable {
    public var statusCode: Int
    /// Header names in lower case.
    public var headers: [String: String]
    public var body: Data

    public init(statusCode: Int, headers: [String: String], body: Data) {
        self.statusCode = statusCode
        self.headers = Dictionary(
            headers.map { ($0.key.lowercased(), $0.value) },
            uniquingKeysWith: { _, last in last }
        )
        self.body = body
    }
}
