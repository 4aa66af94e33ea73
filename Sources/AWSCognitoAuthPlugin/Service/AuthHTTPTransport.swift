import Amplify
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Sends the plugin's HTTP requests to Cognito: the one place the plugin touches the network.
///
/// ``URLSessionAuthTransport`` is the default; tests pass one that answers in memory.
public protocol AuthHTTPTransport: Sendable {
    /// Sends `request` and returns the response, whatever its status code.
    ///
    /// - Throws: Any error when no response arrives; the plugin reports it as
    ///   ``AuthError/service(_:_:_:)`` naming the endpoint.
    func send(_ request: URLRequest) async throws -> APIResponse
}

/// Sends requests with `URLSession` data tasks, on an ephemeral session of its own.
public struct URLSessionAuthTransport: AuthHTTPTransport {
    /// The session that sends the requests.
    public let session: URLSession

    /// A transport over `session`, or over a new ephemeral session.
    public init(session: URLSession = URLSession(configuration: .ephemeral)) {
        self.session = session
    }

    /// Sends `request` with a data task.
    ///
    /// - Throws: The session's `URLError` when no response arrives.
    public func send(_ request: URLRequest) async throws -> APIResponse {
        let (data, response) = try await session.data(for: request)
        guard let http = response as? HTTPURLResponse else { throw URLError(.badServerResponse) }
        var headers: [String: String] = [:]
        for (name, value) in http.allHeaderFields {
            if let name = name as? String, let value = value as? String { headers[name] = value }
        }
        return APIResponse(statusCode: http.statusCode, headers: headers, body: data)
    }
}
