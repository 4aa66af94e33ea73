import Foundation

/// A call of a REST API behind API Gateway: method, path under the API's endpoint, query
/// parameters, headers and body.
///
/// ```swift
/// let apiRequest = AWSAPIGatewayRequest(
///     httpMethod: "POST",
///     urlString: "/items",
///     queryParameters: ["key1": "{value1}"],
///     headerParameters: ["Content-Type": "application/json"],
///     httpBody: #"{"key1":"value1"}"#
/// )
/// ```
public struct AWSAPIGatewayRequest: Sendable {
    /// The method, such as `POST`.
    public let httpMethod: String
    /// The path under the API's endpoint, such as `/items`.
    public let urlString: String
    /// The query parameters, percent-encoded when sent.
    public let queryParameters: [String: String]
    /// The headers.
    public let headerParameters: [String: String]
    /// The body, or why the value given could not be one.
    let body: Result<Data?, AWSAPIGatewayError>

    /// A request. `httpBody` is sent as is when it is `Data`, in UTF-8 when it is a `String`,
    /// and as JSON when it is an array or a dictionary; another value makes ``AWSAPIGatewayClient/invoke(_:)``
    /// fail with ``AWSAPIGatewayError/Code/invalidRequest``.
    public init(
        httpMethod: String,
        urlString: String,
        queryParameters: [String: String]?,
        headerParameters: [String: String]?,
        httpBody: Any?
    ) {
        self.httpMethod = httpMethod.uppercased()
        self.urlString = urlString
        self.queryParameters = queryParameters ?? [:]
        self.headerParameters = headerParameters ?? [:]
        self.body = Self.encode(httpBody)
    }

    /// The body's bytes, or the error that says why `value` is not a body.
    private static func encode(_ value: Any?) -> Result<Data?, AWSAPIGatewayError> {
        switch value {
        case nil:
            return .success(nil)
        case let data as Data:
            return .success(data)
        case let text as String:
            return .success(Data(text.utf8))
        case let object? where JSONSerialization.isValidJSONObject(object):
            do {
                return .success(try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]))
            } catch {
                return .failure(
                    AWSAPIGatewayError(
                        .invalidRequest,
                        "The httpBody could not be written as JSON: \(error). Pass Data, a String or JSON values."
                    )
                )
            }
        case let other?:
            return .failure(
                AWSAPIGatewayError(
                    .invalidRequest,
                    "The httpBody is a \(type(of: other)), which is not a body. "
                        + "Pass Data, a String, or an array or dictionary of JSON values."
                )
            )
        }
    }
}
