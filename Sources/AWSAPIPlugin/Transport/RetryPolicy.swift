import AWSPluginsCore
import Amplify
import Foundation

/// How often, and after which waits, the API plugin sends again a request whose answer
/// `RetryRule` retries (408, 429, 5xx other than 501 and 505, and 409 for a request with an
/// `Idempotency-Key`).
///
/// A retryable answer is sent again until ``maximumAttempts`` requests were sent. The wait is
/// the response's `Retry-After` (`RetryAfter`: seconds, or an HTTP date in any of its three
/// formats) when it has one, and otherwise an exponential backoff: ``baseDelay`` doubled after
/// each attempt, capped at ``maximumDelay``, of which a random fraction up to ``jitter`` is taken
/// off so that clients do not retry in step. A `Retry-After` longer than ``maximumRetryAfter``
/// ends the retries: the status is thrown at once.
///
/// Connection failures are not retried: a mutation may have reached the server.
///
/// ```swift
/// let plugin = AWSAPIPlugin(retryPolicy: RetryPolicy(maximumAttempts: 5, baseDelay: .milliseconds(100)))
/// ```
public struct RetryPolicy: Sendable, Hashable {
    /// The most requests sent for one call, the first included; 1 turns retries off.
    public var maximumAttempts: Int
    /// The wait after the first failed attempt, without `Retry-After`.
    public var baseDelay: Duration
    /// The longest wait of the backoff.
    public var maximumDelay: Duration
    /// The longest `Retry-After` honoured; a longer one fails the call at once.
    public var maximumRetryAfter: Duration
    /// The fraction of a backoff wait that is random, from 0 (none) to 1.
    public var jitter: Double

    /// A policy.
    ///
    /// - Precondition: `maximumAttempts` is at least 1 and `jitter` is between 0 and 1.
    public init(
        maximumAttempts: Int = 3,
        baseDelay: Duration = .milliseconds(200),
        maximumDelay: Duration = .seconds(5),
        maximumRetryAfter: Duration = .seconds(60),
        jitter: Double = 0.5
    ) {
        precondition(maximumAttempts >= 1, "RetryPolicy.maximumAttempts must be at least 1; use 1 to turn retries off.")
        precondition((0...1).contains(jitter), "RetryPolicy.jitter must be between 0 and 1.")
        self.maximumAttempts = maximumAttempts
        self.baseDelay = baseDelay
        self.maximumDelay = maximumDelay
        self.maximumRetryAfter = maximumRetryAfter
        self.jitter = jitter
    }

    /// Three attempts, 200 ms doubling up to 5 s, `Retry-After` up to 60 s.
    public static let standard = RetryPolicy()

    /// One attempt: failures are thrown at once.
    public static let never = RetryPolicy(maximumAttempts: 1)

    /// The wait before sending again after `attempt` attempts ended with `response`, or `nil`
    /// when the call must fail with it.
    ///
    /// - Parameters:
    ///   - attempt: How many requests were sent, from 1.
    ///   - response: The response of the last attempt.
    ///   - sentWithIdempotencyKey: Whether the request carried an `Idempotency-Key`.
    ///   - now: The date `Retry-After` dates are measured from.
    ///   - random: A number in `0..<1` that picks the jitter.
    public func delay(
        afterAttempt attempt: Int,
        response: APIResponse,
        sentWithIdempotencyKey: Bool = false,
        now: Date,
        random: Double
    ) -> Duration? {
        guard
            case .retryable(_, let retryAfter) = AppSyncAnswer(
                response,
                sentWithIdempotencyKey: sentWithIdempotencyKey,
                now: now
            )
        else { return nil }
        return delay(afterAttempt: attempt, retryAfter: retryAfter, random: random)
    }

    /// The wait before sending again after `attempt` attempts, the last one answered with a
    /// retryable status and `retryAfter`; `nil` when the call must fail with it.
    ///
    /// - Parameters:
    ///   - attempt: How many requests were sent, from 1.
    ///   - retryAfter: The answer's `Retry-After`, if it had one that could be read.
    ///   - random: A number in `0..<1` that picks the jitter.
    public func delay(afterAttempt attempt: Int, retryAfter: RetryAfter?, random: Double) -> Duration? {
        guard attempt < maximumAttempts else { return nil }
        if let retryAfter {
            return retryAfter.delay <= maximumRetryAfter ? retryAfter.delay : nil
        }
        return Backoff.exponential(attempt: attempt, base: baseDelay, cap: maximumDelay) * (1 - jitter * random)
    }
}
