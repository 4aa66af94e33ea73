import Amplify
import Foundation
import Tracing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// One request to an AppSync GraphQL endpoint (or an API Gateway REST one), taken through the
/// four steps every client shares: authorize, send, classify, decode.
///
/// 1. **Authorize** (``prepared(by:)``): `content-type: application/json` when there is a body,
///    the authorizer's prelude (`x-api-key`, or a token in `authorization`), the request's own
///    ``headers`` in name order, the ``interceptors`` in order, and last the authorizer's
///    signature (SigV4 for `AWS_IAM`), over everything before it.
/// 2. **Send** (``send(by:over:now:)``): one attempt over an ``HTTPTransport``; no response at
///    all is an ``AppSyncTransportError``.
/// 3. **Classify**: the answer is an ``AppSyncAnswer``: a success (2xx), retryable under
///    ``RetryRule`` (with its ``RetryAfter``), or refused.
/// 4. **Decode** (``AppSyncAnswer/body()``): a ``GraphQLResponseBody`` whose errors every client
///    reads the same way.
///
/// The API plugin, the AppSync client and DataStore (through the API plugin) are adapters over
/// these steps: each brings its authorizer and its error type, and decides how often to try.
///
/// ```swift
/// var request = AppSyncRequest(URLRequest(url: endpoint), body: Data(#"{"query":"{ a }"}"#.utf8))
/// request.headers["Idempotency-Key"] = id
/// switch try await request.send(by: authorizer, over: transport) {
/// case .success(let response): print(try AppSyncAnswer.success(response).body())
/// case .retryable(_, let retryAfter): print("again after", retryAfter?.delay ?? .seconds(1))
/// case .refused(let response): print("refused with", response.statusCode)
/// }
/// ```
public struct AppSyncRequest: Sendable {
    /// The URL, method and body.
    public var urlRequest: URLRequest
    /// The request's own headers, set after the authorization prelude and before the
    /// interceptors.
    public var headers: [String: String]
    /// The steps that may change the request after its headers and before its signature.
    public var interceptors: [any AppSyncRequestInterceptor]
    /// What makes the request's client span, whose W3C `traceparent` (and `tracestate`) the
    /// request carries so that the server's spans continue its trace; no span and no header when
    /// `nil` or a `NoOpTracer` (swift-distributed-tracing's `InstrumentationSystem.tracer` until
    /// an application bootstraps one).
    public var tracer: (any Tracer)?
    /// The client span's name; the method (`POST`) when `nil`, as OpenTelemetry's HTTP
    /// conventions name a request without a route.
    public var spanName: String?
    /// Attributes of the client span besides the HTTP ones: `graphql.operation.type` and
    /// `graphql.operation.name` for a GraphQL request.
    public var spanAttributes = SpanAttributes()

    /// A `POST` of `body` to `urlRequest`'s URL, or `urlRequest` as it is when `body` is `nil`.
    public init(
        _ urlRequest: URLRequest,
        body: Data? = nil,
        headers: [String: String] = [:],
        interceptors: [any AppSyncRequestInterceptor] = []
    ) {
        var urlRequest = urlRequest
        if let body {
            urlRequest.httpMethod = "POST"
            urlRequest.httpBody = body
        }
        self.urlRequest = urlRequest
        self.headers = headers
        self.interceptors = interceptors
    }

    /// Whether the request carries an `Idempotency-Key`, which makes a 409 retryable
    /// (``RetryRule``).
    public var hasIdempotencyKey: Bool {
        headers.keys.contains { $0.lowercased() == RetryRule.idempotencyKeyHeader.lowercased() }
    }

    /// Step 1: the request as it goes on the wire.
    ///
    /// - Throws: What the authorizer or an interceptor throws, unchanged.
    public func prepared(by authorizer: some AppSyncRequestAuthorizer) async throws -> URLRequest {
        try await prepared(by: authorizer, trace: nil)
    }

    /// Step 1, with the `traceparent` of `trace` added before the signature.
    private func prepared(
        by authorizer: some AppSyncRequestAuthorizer,
        trace: (tracer: any Tracer, context: ServiceContext)?
    ) async throws -> URLRequest {
        var request = urlRequest
        if request.httpBody != nil {
            request.setValue("application/json", forHTTPHeaderField: "content-type")
        }
        try await authorizer.addAuthorizationHeaders(to: &request)
        for (name, value) in headers.sorted(by: { $0.key < $1.key }) {
            request.setValue(value, forHTTPHeaderField: name)
        }
        for interceptor in interceptors {
            request = try await interceptor.intercept(request)
        }
        if let trace {
            trace.tracer.inject(trace.context, into: &request, using: URLRequestInjector())
        }
        return try await authorizer.sign(request)
    }

    /// Steps 1 to 3: prepares the request, sends it once and classifies the answer.
    ///
    /// - Parameters:
    ///   - authorizer: The prelude and the signature.
    ///   - transport: What sends the request.
    ///   - now: The date a `Retry-After` date is measured from, read once the answer arrived.
    /// - Throws: ``AppSyncTransportError`` when no response arrives; what the authorizer or an
    ///   interceptor throws, unchanged.
    public func send(
        by authorizer: some AppSyncRequestAuthorizer,
        over transport: any HTTPTransport,
        now: () -> Date = { Date() }
    ) async throws -> AppSyncAnswer {
        guard let tracer, !(tracer is NoOpTracer) else {
            return try await send(by: authorizer, over: transport, now: now, trace: nil)
        }
        let method = urlRequest.httpMethod ?? "GET"
        return try await tracer.withSpan(spanName ?? method, ofKind: .client) { span in
            var attributes = spanAttributes
            attributes["http.request.method"] = method
            if let url = urlRequest.url {
                // The query string may hold a key or a token: the URL without it.
                var components = URLComponents(url: url, resolvingAgainstBaseURL: false)
                components?.query = nil
                if let full = components?.string { attributes["url.full"] = full }
                if let host = url.host { attributes["server.address"] = host }
                if let port = url.port { attributes["server.port"] = port }
            }
            span.attributes = attributes
            let answer = try await send(by: authorizer, over: transport, now: now, trace: (tracer, span.context))
            let status = answer.response.statusCode
            span.attributes["http.response.status_code"] = status
            if status >= 400 {
                span.attributes["error.type"] = String(status)
                span.setStatus(SpanStatus(code: .error))
            }
            return answer
        }
    }

    private func send(
        by authorizer: some AppSyncRequestAuthorizer,
        over transport: any HTTPTransport,
        now: () -> Date,
        trace: (tracer: any Tracer, context: ServiceContext)?
    ) async throws -> AppSyncAnswer {
        let prepared = try await prepared(by: authorizer, trace: trace)
        let response: APIResponse
        do {
            response = try await transport.send(prepared)
        } catch {
            throw AppSyncTransportError(url: prepared.url, underlying: error)
        }
        return AppSyncAnswer(response, sentWithIdempotencyKey: hasIdempotencyKey, now: now())
    }
}

/// Sets the trace's headers on a request, for a tracer's propagator.
private struct URLRequestInjector: Injector {
    func inject(_ value: String, forKey key: String, into request: inout URLRequest) {
        request.setValue(value, forHTTPHeaderField: key)
    }
}

/// Authorizes the requests of one client in one mode: the prelude before the request's own
/// headers, and the signature over the final request.
public protocol AppSyncRequestAuthorizer: Sendable {
    /// Adds the headers that come before the request's own: `x-api-key`, or a token in
    /// `authorization`; nothing for `AWS_IAM` (signed last) and `NONE`.
    ///
    /// - Throws: The client's own error when the mode lacks a key, a provider or a token.
    func addAuthorizationHeaders(to request: inout URLRequest) async throws

    /// The final request signed, for `AWS_IAM`; other modes return it unchanged.
    ///
    /// - Throws: The client's own error when no credentials can be had.
    func sign(_ request: URLRequest) async throws -> URLRequest
}

/// A step that changes a request after its headers and before its signature, such as an
/// API plugin's `URLRequestInterceptor`.
public protocol AppSyncRequestInterceptor: Sendable {
    /// The request to send instead of `request`.
    ///
    /// - Throws: The client's own error, which fails the request.
    func intercept(_ request: URLRequest) async throws -> URLRequest
}
