import Amplify
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Prepares and sends the requests to one API: the stages of every attempt, and the retries.
struct RequestPipeline: Sendable {
    let endpoint: AWSAPIPluginConfiguration.Endpoint
    let authorizer: RequestAuthorizer
    let interceptors: [any URLRequestInterceptor]
    let transport: any HTTPTransport
    let retryPolicy: RetryPolicy
    let clock: APIClock

    /// Sends `request` with `headers` until it succeeds or the retry policy gives up.
    ///
    /// - Returns: The 2xx response.
    /// - Throws: `APIError`: `httpStatusError` for another status, `networkError` when no
    ///   response arrives or the call is cancelled, and the errors of the stages.
    func send(_ request: URLRequest, headers: [String: String]?) async throws -> APIResponse {
        var attempt = 0
        while true {
            attempt += 1
            let prepared = try await prepare(request, headers: headers)
            let response: APIResponse
            do {
                response = try await transport.send(prepared)
            } catch {
                throw APIError.networkError(Self.describe(error, url: prepared.url), error)
            }
            if (200..<300).contains(response.statusCode) { return response }
            guard
                let delay = retryPolicy.delay(
                    afterAttempt: attempt,
                    response: response,
                    now: clock.now(),
                    random: Double.random(in: 0..<1)
                )
            else {
                throw APIError.httpStatusError(response.statusCode, response)
            }
            do {
                try await clock.sleep(delay)
            } catch {
                throw APIError.networkError(Self.describe(error, url: prepared.url), error)
            }
        }
    }

    /// One attempt's request: prelude, headers, interceptors, signature.
    func prepare(_ request: URLRequest, headers: [String: String]?) async throws -> URLRequest {
        var request = request
        if request.httpBody != nil {
            request.setValue("application/json", forHTTPHeaderField: "content-type")
        }
        try await authorizer.authorize(&request)
        for (name, value) in (headers ?? [:]).sorted(by: { $0.key < $1.key }) {
            request.setValue(value, forHTTPHeaderField: name)
        }
        for interceptor in interceptors {
            do {
                request = try await interceptor.intercept(request)
            } catch let error as APIError {
                throw error
            } catch {
                throw APIError.operationError(
                    "The interceptor \(type(of: interceptor)) of the API '\(endpoint.name)' failed: \(sentence: error)",
                    "Fix the interceptor, or remove it."
                )
            }
        }
        return try await authorizer.sign(request)
    }

    /// A sentence saying why a request to `url` got no response.
    static func describe(_ error: any Error, url: URL?) -> String {
        let target = url.map { "The request to \($0.absoluteString)" } ?? "The request"
        if error is CancellationError {
            return "\(target) was cancelled."
        }
        if let error = error as? URLError {
            let reason: String
            switch error.code {
            case .cancelled: return "\(target) was cancelled."
            case .cannotConnectToHost: reason = "could not connect to the server; check that it is running"
            case .cannotFindHost, .dnsLookupFailed: reason = "could not resolve the host name"
            case .timedOut: reason = "timed out"
            case .notConnectedToInternet: reason = "found no network connection"
            case .networkConnectionLost: reason = "lost its connection"
            case .secureConnectionFailed, .serverCertificateUntrusted, .serverCertificateHasBadDate:
                reason = "failed to establish a secure connection"
            default: reason = "failed with URLError \(error.code.rawValue)"
            }
            return "\(target) \(reason)."
        }
        return "\(target) failed: \(sentence: error)"
    }
}
