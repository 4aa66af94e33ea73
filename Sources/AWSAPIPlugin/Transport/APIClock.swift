import Foundation

/// The time the plugin reads and the waits it takes: the system's, or a test's.
///
/// The plugin reads ``now`` to date AWS_IAM signatures and to read `Retry-After` dates, and
/// calls ``sleep`` between retries. Tests pass a clock that returns a fixed date and records
/// the waits instead of taking them:
///
/// ```swift
/// let clock = APIClock(now: { Date(timeIntervalSince1970: 1_700_000_000) }, sleep: { waits.append($0) })
/// let plugin = AWSAPIPlugin(clock: clock)
/// ```
public struct APIClock: Sendable {
    /// The current date.
    public var now: @Sendable () -> Date
    /// Waits for a duration.
    public var sleep: @Sendable (Duration) async throws -> Void

    /// A clock from its two functions.
    public init(now: @escaping @Sendable () -> Date, sleep: @escaping @Sendable (Duration) async throws -> Void) {
        self.now = now
        self.sleep = sleep
    }

    /// The system's date, and `Task.sleep`.
    public static let system = APIClock(now: { Date() }, sleep: { try await Task.sleep(for: $0) })
}
