import Foundation

/// A failure of the AppSync client: a configuration it cannot use, a request that got no
/// usable answer, or a cache that cannot be read or written.
///
/// Its ``message`` names what went wrong and how to fix it; ``code`` tells the kinds apart.
///
/// ```swift
/// appSyncClient?.perform(mutation: CreateTodoMutation(input: input)) { result, error in
///     if let error = error as? AWSAppSyncClientError {
///         print("Error occurred: \(error.localizedDescription)")
///     }
/// }
/// ```
public struct AWSAppSyncClientError: Error, Sendable, Hashable, CustomStringConvertible, LocalizedError {
    /// The kind of a failure.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private let name: String
        private init(_ name: String) { self.name = name }

        /// `awsconfiguration.json`, a cache configuration or an auth provider is missing or wrong.
        public static let configuration = Code("configuration")
        /// The request got no response, or a response that is not a GraphQL answer.
        public static let requestFailed = Code("requestFailed")
        /// A token or credentials could not be obtained for the request.
        public static let authentication = Code("authentication")
        /// The response's `data` does not fit the operation's selections.
        public static let parseError = Code("parseError")
        /// The cache could not be opened, read or written.
        public static let cache = Code("cache")
        /// The cache does not hold the operation's data (async `fetch` with
        /// `.returnCacheDataDontFetch`).
        public static let cacheMiss = Code("cacheMiss")
        /// A queued mutation was cancelled before the server answered it (the async `perform`
        /// when ``AWSAppSyncClient/clearCaches(options:)`` clears the queue).
        public static let cancelled = Code("cancelled")

        public var description: String { name }
    }

    /// The kind of failure.
    public let code: Code
    /// What went wrong and how to fix it.
    public let message: String
    /// The HTTP status code, when the server answered with one that is not 2xx.
    public let statusCode: Int?
    /// The body the server answered with, when it did.
    public let body: Data?
    /// Whether the server's status is one `RetryRule` retries: the same request may succeed
    /// later.
    var isRetryable = false
    /// The delay the server's `Retry-After` header asked for, on a retryable answer.
    var retryAfter: Duration?

    /// Creates an error.
    public init(_ code: Code, _ message: String, statusCode: Int? = nil, body: Data? = nil) {
        self.code = code
        self.message = message
        self.statusCode = statusCode
        self.body = body
    }

    public var description: String { message }
    public var errorDescription: String? { message }
}

extension String.StringInterpolation {
    /// An error's description ending with a full stop, to end a sentence with it.
    mutating func appendInterpolation(sentence error: any Error) {
        let text = "\(error)"
        appendLiteral(text.hasSuffix(".") ? text : text + ".")
    }
}
