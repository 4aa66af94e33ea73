/// The one answer every client gives to "may this HTTP status succeed if the same request is
/// sent again": the API plugin's retries, the AppSync client's offline queue and DataStore's
/// outbox and sync queries all ask it.
///
/// A status is retryable when it says the server could not answer *this time*:
///
/// - **408 Request Timeout**: the server gave up waiting for the request; RFC 9110 §15.5.9 lets
///   the client send it again.
/// - **429 Too Many Requests**: throttled; the same request passes once the rate drops
///   (RFC 6585 §4). AppSync, API Gateway and Amplify's own retry rules all retry it.
/// - **5xx**: the server failed or is overloaded (500, 502, 503, 504, …), as the AppSync SDK's
///   and Amplify's retry handlers treat them, **except 501 Not Implemented and 505 HTTP Version
///   Not Supported**: they say the server does not support what the request asks for (RFC 9110
///   §15.6.2, §15.6.6), and the same request gets the same answer however often it is sent.
/// - **409 Conflict, only for a request sent with an `Idempotency-Key`**: the IETF httpapi
///   idempotency draft answers 409 to a repeat that arrives while the first request with the
///   key is still running (the local backend does); once it ends, the repeat gets its kept
///   response. Without a key a 409 is the API's refusal of a state conflict, which a resend
///   cannot mend. AppSync itself never reports a GraphQL conflict as HTTP 409: a version
///   conflict is a 200 answer with `ConflictUnhandled` in its `errors`, which DataStore's
///   conflict handler and the AppSync client's conflict block settle, not a retry.
///
/// Every other status is final: 4xx refusals (400, 401, 403, 404, 413, 422, …) need a change
/// to the request, its authorization or the configuration. A 401 after expired credentials is
/// the one case a client may send again, with credentials fetched anew; that is the caller's
/// decision (the offline queue does it once), not a retry of the same request.
///
/// When a retryable answer carries `Retry-After`, ``RetryAfter`` reads it; each caller decides
/// how many attempts to make and how long to wait otherwise (``Backoff``).
///
/// ```swift
/// RetryRule.isRetryable(statusCode: 503)  // true
/// RetryRule.isRetryable(statusCode: 409)  // false
/// RetryRule.isRetryable(statusCode: 409, sentWithIdempotencyKey: true)  // true
/// ```
public enum RetryRule {
    /// Whether a request answered with `statusCode` may succeed when sent again unchanged.
    ///
    /// - Parameters:
    ///   - statusCode: The status of the answer.
    ///   - sentWithIdempotencyKey: Whether the request carried an `Idempotency-Key` header, which
    ///     makes a 409 mean "the first request with this key is still running".
    public static func isRetryable(statusCode: Int, sentWithIdempotencyKey: Bool = false) -> Bool {
        switch statusCode {
        case 408, 429: return true
        case 409: return sentWithIdempotencyKey
        case 501, 505: return false
        case 500...599: return true
        default: return false
        }
    }

    /// The header that makes a mutation run once however often it is sent, and a 409 retryable.
    public static let idempotencyKeyHeader = "Idempotency-Key"
}
