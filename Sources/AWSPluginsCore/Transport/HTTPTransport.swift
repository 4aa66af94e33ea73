import Amplify
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Sends HTTP requests: the one place the API and Auth plugins touch the network.
///
/// ``URLSessionTransport`` is the default. Tests pass an in-memory transport that records the
/// requests and answers them; another HTTP client can be plugged in the same way.
///
/// ```swift
/// struct FixedTransport: HTTPTransport {
///     func send(_ request: URLRequest) async throws -> APIResponse {
///         APIResponse(statusCode: 200, headers: [:], body: Data(#"{"data":{}}"#.utf8))
///     }
/// }
/// let plugin = AWSAPIPlugin(transport: FixedTransport())
/// ```
public protocol HTTPTransport: Sendable {
    /// Sends `request` and returns the response, whatever its status code.
    ///
    /// - Throws: Any error when no response arrives (the server cannot be reached, the
    ///   connection drops, the task is cancelled); the plugins report it in their own error
    ///   (`APIError.networkError`, `AuthError.service`). A `URLError` gives the clearest message.
    func send(_ request: URLRequest) async throws -> APIResponse
}
