import Foundation

/// AppSync's limits, enforced by the local endpoint too.
public struct ServerLimits: Sendable, Hashable {
    /// Request bodies larger than this are refused with HTTP 413.
    public var maxRequestBytes: Int
    /// Responses larger than this fail with an error instead of data.
    public var maxResponseBytes: Int
    /// Requests that run longer than this fail with an error.
    public var executionTimeout: Duration

    public init(
        maxRequestBytes: Int = 1_048_576,
        maxResponseBytes: Int = 1_048_576,
        executionTimeout: Duration = .seconds(30)
    ) {
        self.maxRequestBytes = maxRequestBytes
        self.maxResponseBytes = maxResponseBytes
        self.executionTimeout = executionTimeout
    }
}
