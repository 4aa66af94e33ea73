import Foundation

/// What the API answered: status, headers and body.
public struct AWSAPIGatewayResponse: Sendable, Hashable {
    /// The body; `nil` when it is empty.
    public let responseData: Data?
    /// The HTTP status code.
    public let statusCode: Int
    /// The headers, with names in lower case.
    public let headers: [String: String]

    /// A response from its parts.
    public init(responseData: Data?, statusCode: Int, headers: [String: String]) {
        self.responseData = responseData
        self.statusCode = statusCode
        self.headers = headers
    }
}
