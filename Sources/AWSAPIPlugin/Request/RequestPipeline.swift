import AWSPluginsCore
import Amplify
import Foundation
import Tracing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Sends the requests to one API: the plugin's adapter over ``AppSyncRequest``, which brings
/// the plugin's authorizer, interceptors and `APIError`, and retries as its ``RetryPolicy`` says.
struct RequestPipeline: Sendable {
    let endpoint: AWSAPIPluginConfiguration.Endpoint
    let authorizer: RequestAuthorizer
    let interceptors: [any URLRequestInterceptor]
    let transport: any HTTPTransport
    let retryPolicy: RetryPolicy
    let clock: APIClock
    /// What makes each attempt's client span.
    let tracer: any Tracer

    /// Sends `request` with `headers` until it succeeds or the retry policy gives up, each
    /// attempt in a client span; `operationType` names a GraphQL request's spans.
    ///
    /// - Returns: The 2xx response.
    /// - Throws: `APIError`: `httpStatusError` for another status, `networkError` when no
    ///   response arrives or the call is cancelled, and the errors of the authorizer and the
    ///   interceptors.
    func send(
        _ request: URLRequest,
        headers: [String: String]?,
        operationType: String? = nil
    ) async throws -> APIResponse {
        var request = AppSyncRequest(
            request,
            headers: headers ?? [:],
            interceptors: interceptors.map { PluginInterceptor(apiName: endpoint.name, interceptor: $0) }
        )
        request.tracer = tracer
        if let operationType {
            // A GraphQL request's span is named as OpenTelemetry's GraphQL conventions name it.
            request.spanName = operationType
            request.spanAttributes["graphql.operation.type"] = operationType
        }
        var attempt = 0
        while true {
            attempt += 1
            let answer: AppSyncAnswer
            do {
                answer = try await request.send(by: authorizer, over: transport, now: clock.now)
            } catch let error as AppSyncTransportError {
                throw APIError.networkError(error.description, error.underlying)
            }
            let retryAfter: RetryAfter?
            switch answer {
            case .success(let response):
                return response
            case .refused(let response):
                throw APIError.httpStatusError(response.statusCode, response)
            case .retryable(_, let after):
                retryAfter = after
            }
            guard
                let delay = retryPolicy.delay(
                    afterAttempt: attempt,
                    retryAfter: retryAfter,
                    random: Double.random(in: 0..<1)
                )
            else {
                throw APIError.httpStatusError(answer.response.statusCode, answer.response)
            }
            do {
                try await clock.sleep(delay)
            } catch {
                let cut = AppSyncTransportError(url: request.urlRequest.url, underlying: error)
                throw APIError.networkError(cut.description, error)
            }
        }
    }
}

/// A `URLRequestInterceptor` as a step of ``AppSyncRequest``: an `APIError` it throws fails
/// the request as it is, any other error as an `operationError` naming the interceptor.
private struct PluginInterceptor: AppSyncRequestInterceptor {
    let apiName: String
    let interceptor: any URLRequestInterceptor

    func intercept(_ request: URLRequest) async throws -> URLRequest {
        do {
            return try await interceptor.intercept(request)
        } catch let error as APIError {
            throw error
        } catch {
            throw APIError.operationError(
                "The interceptor \(type(of: interceptor)) of the API '\(apiName)' failed: \(sentence: error)",
                "Fix the interceptor, or remove it."
            )
        }
    }
}
