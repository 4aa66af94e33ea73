import Amplify
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension AWSAPIPlugin {
    /// Sends a REST request to the request's API and returns the 2xx response.
    ///
    /// The URL is the API's endpoint followed by the request's path (each character other than
    /// letters, digits, `-._~` and `/` percent-encoded) and its query parameters sorted by name
    /// (encoded the same way, `/` included).
    ///
    /// - Throws: `APIError`, as `APICategory.send(_:request:)` describes, and
    ///   `operationError` for `RESTMethod.any`, which names a route's methods, not a request's.
    @discardableResult
    public func send(_ method: RESTMethod, request: RESTRequest) async throws -> APIResponse {
        guard method != .any else {
            throw APIError.operationError(
                "ANY is the method of a route that serves every method; a request has one.",
                "Send it with GET, POST, PUT, DELETE, PATCH, HEAD or OPTIONS."
            )
        }
        let pipeline = try pipeline(apiName: request.apiName, type: .rest, authMode: nil)
        let url = try Self.url(of: request, endpoint: pipeline.endpoint.endpoint)
        var urlRequest = URLRequest(url: url)
        urlRequest.httpMethod = method.rawValue
        urlRequest.httpBody = method == .head ? nil : request.body
        return try await pipeline.send(urlRequest, headers: request.headers)
    }

    /// The URL of `request` under `endpoint`.
    static func url(of request: RESTRequest, endpoint: URL) throws -> URL {
        var text = endpoint.absoluteString
        if let path = request.path, !path.isEmpty {
            while text.hasSuffix("/") { text.removeLast() }
            let encoded = path.addingPercentEncoding(withAllowedCharacters: .restPathAllowed) ?? path
            text += encoded.hasPrefix("/") ? encoded : "/" + encoded
        }
        if let parameters = request.queryParameters, !parameters.isEmpty {
            let query = parameters.sorted { $0.key < $1.key }.map { name, value in
                let name = name.addingPercentEncoding(withAllowedCharacters: .restQueryAllowed) ?? name
                let value = value.addingPercentEncoding(withAllowedCharacters: .restQueryAllowed) ?? value
                return "\(name)=\(value)"
            }
            text += (text.contains("?") ? "&" : "?") + query.joined(separator: "&")
        }
        guard let url = URL(string: text) else { throw APIError.invalidURL(text) }
        return url
    }
}

extension CharacterSet {
    /// The unreserved characters of RFC 3986, which AWS leaves unencoded.
    static let restQueryAllowed = CharacterSet(
        charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~"
    )
    /// The unreserved characters and `/`.
    static let restPathAllowed = restQueryAllowed.union(CharacterSet(charactersIn: "/"))
}
