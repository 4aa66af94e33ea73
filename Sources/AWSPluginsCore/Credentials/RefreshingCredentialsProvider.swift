import AWSWire
import Foundation

/// A provider that caches credentials from an async source and refreshes them before they expire.
///
/// Credentials are reused until `expiration - refreshMargin`; credentials without an
/// expiration are kept for good. When a refresh is due, the first caller starts it and every
/// caller that arrives meanwhile waits for the same result, so the source is called once per
/// refresh however many requests are being signed. A failed refresh is reported to every
/// waiting caller and retried by the next fetch.
///
/// ```swift
/// let provider = RefreshingCredentialsProvider {
///     try await identityPool.credentials(for: identityId)
/// }
/// ```
public actor RefreshingCredentialsProvider: AWSCredentialsProvider {
    /// How long before their expiration credentials are replaced: five minutes by default.
    public let refreshMargin: TimeInterval

    private let refresh: @Sendable () async throws -> AWSCredentials
    private let now: @Sendable () -> Date
    private var cached: AWSCredentials?
    private var inFlight: Task<AWSCredentials, any Error>?

    /// Creates a provider that calls `refresh` for new credentials.
    ///
    /// - Parameters:
    ///   - refreshMargin: How long before their expiration credentials are replaced.
    ///   - now: The clock that decides whether credentials are still fresh; tests pass their own.
    ///   - refresh: Fetches new credentials; its errors reach the callers of
    ///     ``fetchCredentials()``.
    public init(
        refreshMargin: TimeInterval = 5 * 60,
        now: @escaping @Sendable () -> Date = { Date() },
        refresh: @escaping @Sendable () async throws -> AWSCredentials
    ) {
        self.refreshMargin = refreshMargin
        self.now = now
        self.refresh = refresh
    }

    /// Returns the cached credentials, or refreshes them when they are missing or about to expire.
    ///
    /// - Throws: Whatever the `refresh` closure throws.
    public func fetchCredentials() async throws -> AWSCredentials {
        if let cached, isFresh(cached) {
            return cached
        }
        if let inFlight {
            return try await inFlight.value
        }
        let task = Task { [refresh] in try await refresh() }
        inFlight = task
        let result = await task.result
        if inFlight == task {
            inFlight = nil
        }
        let credentials = try result.get()
        cached = credentials
        return credentials
    }

    private func isFresh(_ credentials: AWSCredentials) -> Bool {
        guard let expiration = credentials.expiration else { return true }
        return now() < expiration.addingTimeInterval(-refreshMargin)
    }
}
