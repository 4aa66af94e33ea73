import Foundation

/// Why an API Gateway call failed: the API's refusal (an HTTP error status, with API Gateway's
/// message such as `Missing Authentication Token`), no credentials to sign with, a request that
/// cannot be sent, or no answer at all.
///
/// ```swift
/// client.invoke(request).continueWith { task in
///     if let error = task.error as? AWSAPIGatewayError, error.statusCode == 403 {
///         print(error.message)   // "Missing Authentication Token"
///     }
///     return nil
/// }
/// ```
public struct AWSAPIGatewayError: Error, Sendable, CustomStringConvertible {
    /// The kind of failure.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private let name: String

        private init(_ name: String) {
            self.name = name
        }

        /// The API answered with a status of 400 or more: see ``AWSAPIGatewayError/response``.
        public static let httpError = Code("httpError")
        /// The credentials provider gave no credentials to sign the request with.
        public static let credentials = Code("credentials")
        /// The request cannot be sent: its URL or body is not valid.
        public static let invalidRequest = Code("invalidRequest")
        /// No answer arrived: the endpoint cannot be reached or the connection dropped.
        public static let network = Code("network")
        /// The client was asked for by a key nothing was registered under.
        public static let notRegistered = Code("notRegistered")

        /// The code's name, such as `httpError`.
        public var description: String { name }
    }

    /// The kind of failure.
    public let code: Code
    /// What went wrong: for ``Code/httpError``, the `message` of API Gateway's error body
    /// (`{"message": "…"}`), or the body itself when it has none.
    public let message: String
    /// The API's answer, for ``Code/httpError``.
    public let response: AWSAPIGatewayResponse?
    /// The error that caused this one, such as the credentials provider's.
    public let underlyingError: (any Error)?

    init(_ code: Code, _ message: String, response: AWSAPIGatewayResponse? = nil, underlyingError: (any Error)? = nil) {
        self.code = code
        self.message = message
        self.response = response
        self.underlyingError = underlyingError
    }

    /// The HTTP status of the API's answer, for ``Code/httpError``.
    public var statusCode: Int? { response?.statusCode }

    /// API Gateway's name for the refusal, from `x-amzn-ErrorType` (such as
    /// `MissingAuthenticationTokenException`), when it sent one.
    public var errorType: String? {
        response?.headers["x-amzn-errortype"].map { String($0.prefix { $0 != ":" }) }
    }

    /// `HTTP <status>: <message>` for a refusal, else the message.
    public var description: String {
        guard let response else { return message }
        return "HTTP \(response.statusCode): \(message)"
    }

    /// The error for an answer with an error status: API Gateway's `message`, else the body.
    static func refusal(_ response: AWSAPIGatewayResponse) -> AWSAPIGatewayError {
        let body = response.responseData ?? Data()
        let object = try? JSONSerialization.jsonObject(with: body) as? [String: Any]
        let message =
            (object?["message"] as? String) ?? (object?["Message"] as? String)
            ?? String(decoding: body, as: UTF8.self)
        return AWSAPIGatewayError(.httpError, message, response: response)
    }
}
