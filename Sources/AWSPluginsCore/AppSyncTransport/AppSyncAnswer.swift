import Amplify
import Foundation

/// What an answer to an ``AppSyncRequest`` means: the classify step, the same for every client.
///
/// ```swift
/// switch AppSyncAnswer(response, sentWithIdempotencyKey: false, now: Date()) {
/// case .success(let response): …
/// case .retryable(let response, let retryAfter): …  // 408, 429, 5xx but 501 and 505
/// case .refused(let response): …
/// }
/// ```
public enum AppSyncAnswer: Sendable, Hashable {
    /// A 2xx answer.
    case success(APIResponse)
    /// An answer ``RetryRule`` retries, with the wait its `Retry-After` asks for, if any.
    case retryable(APIResponse, retryAfter: RetryAfter?)
    /// Any other answer: the request failed, and sending it again unchanged will not help.
    case refused(APIResponse)

    /// Classifies `response`.
    ///
    /// - Parameters:
    ///   - response: The answer.
    ///   - sentWithIdempotencyKey: Whether the request carried an `Idempotency-Key`.
    ///   - now: The date a `Retry-After` date is measured from.
    public init(_ response: APIResponse, sentWithIdempotencyKey: Bool, now: Date) {
        if (200..<300).contains(response.statusCode) {
            self = .success(response)
        } else if RetryRule.isRetryable(
            statusCode: response.statusCode,
            sentWithIdempotencyKey: sentWithIdempotencyKey
        ) {
            self = .retryable(response, retryAfter: RetryAfter(headers: response.headers, now: now))
        } else {
            self = .refused(response)
        }
    }

    /// The answer, whatever it means.
    public var response: APIResponse {
        switch self {
        case .success(let response), .retryable(let response, _), .refused(let response): response
        }
    }

    /// The decode step: the answer's body read as a GraphQL response. A refusal has one too
    /// when AppSync refused the request as a whole (`401` with `UnauthorizedException`).
    ///
    /// - Throws: ``GraphQLResponseBodyError`` when the body is not JSON, not an object, or its
    ///   `errors` are not GraphQL errors.
    public func body() throws(GraphQLResponseBodyError) -> GraphQLResponseBody {
        try GraphQLResponseBody(parsing: response.body)
    }
}
