import AWSWire
import Foundation

/// A request to a REST API: the path under the API's endpoint, headers, query and body.
///
/// The method is the call that sends it: `get`, `put`, `post`, `delete`, `head` or `patch`.
///
/// ```swift
/// let request = RESTRequest(
///     apiName: "items",
///     path: "/items",
///     headers: ["accept": "application/json"],
///     queryParameters: ["limit": "10"],
///     body: Data(#"{"name":"pen"}"#.utf8)
/// )
/// let data = try await Amplify.API.post(request: request)
/// ```
public struct RESTRequest: Sendable, Hashable {
    /// The API to send to, by its name in the configuration; `nil` for the only REST API.
    public var apiName: String?
    /// The path under the API's endpoint, such as `/items/1`; it is percent-encoded when sent.
    public var path: String?
    /// Headers to send, applied after the authorization headers and before the interceptors.
    public var headers: [String: String]?
    /// The query parameters, sent sorted by name.
    public var queryParameters: [String: String]?
    /// The body; `nil` for none.
    public var body: Data?

    /// Creates a request; every part is optional.
    public init(
        apiName: String? = nil,
        path: String? = nil,
        headers: [String: String]? = nil,
        queryParameters: [String: String]? = nil,
        body: Data? = nil
    ) {
        self.apiName = apiName
        self.path = path
        self.headers = headers
        self.queryParameters = queryParameters
        self.body = body
    }
}

/// The method of a REST call: `AWSWire.RESTMethod`, which the local backend's routes name too.
///
/// A request is sent with an HTTP method; `RESTMethod.any` names a route's methods and is
/// refused as a request's.
public typealias RESTMethod = AWSWire.RESTMethod
