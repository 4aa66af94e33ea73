import Amplify
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Sends requests with `URLSession` data tasks, on Linux and on Apple platforms.
///
/// By default each transport has an ephemeral session of its own: no cookies, no cache, and
/// connections kept alive between requests.
public struct URLSessionTransport: HTTPTransport {
    /// The session that sends the requests.
    public let session: URLSession

    /// A transport over `session`.
    public init(session: URLSession) {
        self.session = session
    }

    /// A transport over a new ephemeral session.
    public init() {
        self.init(session: URLSession(configuration: .ephemeral))
    }

    /// Sends `request` with a data task.
    ///
    /// - Throws: The session's `URLError` when no response arrives.
    public func send(_ request: URLRequest) async throws -> APIResponse {
        let (data, response) = try await session.data(for: request)
        guard let http = response as? HTTPURLResponse else {
            throw URLError(.badServerResponse)
        }
        var headers: [String: String] = [:]
        for (name, value) in http.allHeaderFields {
            if let name = name as? String, let value = value as? String { headers[name] = value }
        }
        return APIResponse(statusCode: http.statusCode, headers: headers, body: data)
    }
}
