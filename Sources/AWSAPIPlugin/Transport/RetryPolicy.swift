import AWSPluginsCore
import Amplify
import Foundation

/// When a request that failed with a 5xx or 429 status is sent again.
///
/// A response with status 429, or 5xx other than 501 and 505 (which a retry cannot change), is
/// retried until ``maximumAttempts`` requests were sent. The wait is the response's
/// `Retry-After` (seconds, or an HTTP date) when it has one, and otherwise an exponential backoff:
/// ``baseDelay`` doubled after each attempt, capped at ``maximumDelay``, of which a random
/// fraction up to ``jitter`` is taken off so that clients do not retry in step. A `Retry-After`
/// longer than ``maximumRetryAfter`` ends the retries: the status is thrown at once.
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

    /// Whether a response with `statusCode` may succeed when sent again.
    public static func isRetryable(statusCode: Int) -> Bool {
        statusCode == 429 || ((500...599).contains(statusCode) && statusCode != 501 && statusCode != 505)
    }

    /// The wait before sending again after `attempt` attempts ended with `response`, or `nil`
    /// when the call must fail with it.
    ///
    /// - Parameters:
    ///   - attempt: How many requests were sent, from 1.
    ///   - response: The response of the last attempt.
    ///   - now: The date `Retry-After` dates are measured from.
    ///   - random: A number in `0..<1` that picks the jitter.
    public func delay(afterAttempt attempt: Int, response: APIResponse, now: Date, random: Double) -> Duration? {
        guard attempt < maximumAttempts, Self.isRetryable(statusCode: response.statusCode) else { return nil }
        if let header = response.headers["retry-after"], let retryAfter = RetryAfter(header, now: now) {
            return retryAfter.delay <= maximumRetryAfter ? retryAfter.delay : nil
        }
        return Backoff.exponential(attempt: attempt, base: baseDelay, cap: maximumDelay) * (1 - jitter * random)
    }
}

/// A `Retry-After` header: delay-seconds, or an HTTP date (IMF-fixdate, RFC 850 or asctime).
struct RetryAfter: Hashable {
    /// How long to wait from now; zero for a date in the past.
    var delay: Duration

    /// The wait `header` asks for, or `nil` when it is neither form.
    init?(_ header: String, now: Date) {
        let text = header.trimmingCharacters(in: .whitespaces)
        if !text.isEmpty, text.allSatisfy(\.isASCII), text.allSatisfy(\.isNumber) {
            guard let seconds = Int64(text) else { return nil }
            delay = .seconds(seconds)
            return
        }
        guard let date = Self.httpDate(text) else { return nil }
        let interval = date.timeIntervalSince(now)
        delay = interval > 0 ? .milliseconds(Int64((interval * 1000).rounded(.up))) : .zero
    }

    private static func httpDate(_ text: String) -> Date? {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        for format in ["EEE, dd MMM yyyy HH:mm:ss 'GMT'", "EEEE, dd-MMM-yy HH:mm:ss 'GMT'", "EEE MMM d HH:mm:ss yyyy"] {
            formatter.dateFormat = format
            if let date = formatter.date(from: text) { return date }
        }
        return nil
    }
}
