import AWSCore
import AWSPluginsCore
import AWSWire
import Amplify
import Foundation
import Synchronization

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Calls one REST API behind API Gateway: signs requests with SigV4 for `execute-api` when the
/// configuration has a credentials provider, adds `x-api-key` when ``apiKey`` is set, and sends
/// them over the shared HTTP transport.
///
/// The classes `stratus codegen rest-client` generates wrap one, with the API's endpoint baked
/// in; it can also be used directly:
///
/// ```swift
/// let client = AWSAPIGatewayClient(configuration: serviceConfiguration, url: apiURL)
/// let response = try await client.invoke(request).value
/// ```
public final class AWSAPIGatewayClient: Sendable {
    /// Points the clients created while it is bound at this endpoint instead of the one their
    /// generated class bakes in, unless their configuration names one: to run an app's
    /// generated clients against a local `stratus serve` or a test server on a free port.
    ///
    /// ```swift
    /// AWSAPIGatewayClient.$endpointOverride.withValue(AWSEndpoint(url: localURL)) {
    ///     MyAPIClient.registerClient(withConfiguration: configuration, forKey: "local")
    /// }
    /// ```
    @TaskLocal public static var endpointOverride: AWSEndpoint?

    /// The region and credentials requests are signed with.
    public let configuration: AWSServiceConfiguration
    /// The API's base URL, such as `https://abc123.execute-api.us-east-1.amazonaws.com/dev`.
    public let url: URL
    private let transport: any HTTPTransport
    private let key: Mutex<String?>
    /// The error every request of a client for an unregistered key fails with.
    private let refusal: AWSAPIGatewayError?

    /// A client of the API at `url`, or at the configuration's endpoint when it has one (or at
    /// ``endpointOverride`` when it is bound).
    public init(
        configuration: AWSServiceConfiguration,
        url: URL,
        apiKey: String? = nil,
        transport: any HTTPTransport = defaultHTTPTransport()
    ) {
        self.configuration = configuration
        self.url = configuration.endpoint?.url ?? Self.endpointOverride?.url ?? url
        self.transport = transport
        self.key = Mutex(apiKey)
        refusal = nil
    }

    /// The client a generated class answers `client(forKey:)` with for a key nothing was
    /// registered under: every request fails with ``AWSAPIGatewayError/Code/notRegistered``,
    /// naming the key and the call that registers it.
    public static func unregistered(key: String, clientName: String, url: URL) -> AWSAPIGatewayClient {
        AWSAPIGatewayClient(
            url: url,
            refusal: AWSAPIGatewayError(
                .notRegistered,
                "No \(clientName) is registered for the key '\(key)'. Call "
                    + "\(clientName).registerClient(withConfiguration:forKey:) with that key first."
            )
        )
    }

    private init(url: URL, refusal: AWSAPIGatewayError) {
        configuration = AWSServiceConfiguration(region: .USEast1, endpoint: nil, credentialsProvider: nil)
        self.url = url
        transport = defaultHTTPTransport()
        key = Mutex(nil)
        self.refusal = refusal
    }

    /// The API key sent in `x-api-key`, for methods that require one.
    public var apiKey: String? {
        get { key.withLock { $0 } }
        set { key.withLock { $0 = newValue } }
    }

    /// Sends `request`; the task fails with ``AWSAPIGatewayError`` when the API answers with a
    /// status of 400 or more (API Gateway's refusals among them), when no credentials can be
    /// had, or when no answer arrives.
    public func invoke(_ request: AWSAPIGatewayRequest) -> AWSTask<AWSAPIGatewayResponse> {
        AWSTask { try await self.send(request) }
    }

    /// Sends `request` and returns the answer.
    ///
    /// - Throws: ``AWSAPIGatewayError``: ``AWSAPIGatewayError/Code/httpError`` with the API's
    ///   answer for a status of 400 or more, ``AWSAPIGatewayError/Code/credentials``,
    ///   ``AWSAPIGatewayError/Code/invalidRequest``, ``AWSAPIGatewayError/Code/network``, or
    ///   ``AWSAPIGatewayError/Code/notRegistered`` for a client of an unregistered key.
    public func send(_ request: AWSAPIGatewayRequest) async throws(AWSAPIGatewayError) -> AWSAPIGatewayResponse {
        if let refusal { throw refusal }
        var urlRequest = try urlRequest(for: request)
        if let provider = configuration.credentialsProvider {
            let credentials: AWSCredentials
            do {
                credentials = try await provider.fetchCredentials()
            } catch {
                throw AWSAPIGatewayError(
                    .credentials,
                    "The credentials provider gave no credentials to sign \(request.httpMethod) \(request.urlString) "
                        + "with: \(error)",
                    underlyingError: error
                )
            }
            urlRequest = SigV4Signer(service: "execute-api", region: configuration.regionType.name)
                .sign(urlRequest, credentials: credentials)
        }
        let answer: APIResponse
        do {
            answer = try await transport.send(urlRequest)
        } catch {
            throw AWSAPIGatewayError(
                .network,
                "\(request.httpMethod) \(urlRequest.url?.absoluteString ?? request.urlString) got no answer: \(error)",
                underlyingError: error
            )
        }
        let response = AWSAPIGatewayResponse(
            responseData: answer.body.isEmpty ? nil : answer.body,
            statusCode: answer.statusCode,
            headers: answer.headers
        )
        guard response.statusCode < 400 else { throw .refusal(response) }
        return response
    }

    /// The Foundation request for `request`: the path appended to the base URL, the query
    /// parameters sorted by name and percent-encoded, the headers and the body.
    private func urlRequest(for request: AWSAPIGatewayRequest) throws(AWSAPIGatewayError) -> URLRequest {
        let body = try request.body.get()
        var base = url.absoluteString
        while base.hasSuffix("/") { base.removeLast() }
        let path = request.urlString.hasPrefix("/") ? request.urlString : "/" + request.urlString
        var text = base + path
        if !request.queryParameters.isEmpty {
            let query = request.queryParameters.keys.sorted().map { name in
                "\(Self.percentEncoded(name))=\(Self.percentEncoded(request.queryParameters[name]!))"
            }
            text += (text.contains("?") ? "&" : "?") + query.joined(separator: "&")
        }
        guard let url = URL(string: text) else {
            throw AWSAPIGatewayError(
                .invalidRequest,
                "'\(text)' is not a URL. Check the urlString '\(request.urlString)' of the request."
            )
        }
        var urlRequest = URLRequest(url: url)
        urlRequest.httpMethod = request.httpMethod
        for (name, value) in request.headerParameters {
            urlRequest.setValue(value, forHTTPHeaderField: name)
        }
        if let apiKey {
            urlRequest.setValue(apiKey, forHTTPHeaderField: "x-api-key")
        }
        urlRequest.httpBody = body
        return urlRequest
    }

    private static let unreserved = CharacterSet(
        charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~"
    )

    /// `text` with everything but RFC 3986's unreserved characters percent-encoded.
    private static func percentEncoded(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: unreserved) ?? text
    }
}

/// The clients of one generated class registered under keys, as
/// `registerClient(withConfiguration:forKey:)` and `client(forKey:)` keep them.
public final class AWSAPIGatewayClientRegistry<Client: Sendable>: Sendable {
    private let clients = Mutex<[String: Client]>([:])

    /// An empty registry.
    public init() {}

    /// Keeps `client` under `key`, replacing the one there.
    public func register(_ client: Client, forKey key: String) {
        clients.withLock { $0[key] = client }
    }

    /// The client under `key`, if any.
    public func client(forKey key: String) -> Client? {
        clients.withLock { $0[key] }
    }

    /// Forgets the client under `key`.
    public func removeClient(forKey key: String) {
        _ = clients.withLock { $0.removeValue(forKey: key) }
    }
}
