import Foundation

/// Which of the client's caches ``AWSAppSyncClient/clearCaches(options:)`` clears; each is
/// independent of the others.
///
/// ```swift
/// let clearCacheOptions = ClearCacheOptions(clearQueries: true, clearMutations: true, clearSubscription: true)
/// appSyncClient.clearCaches(options: clearCacheOptions)
/// ```
public struct ClearCacheOptions: Sendable, Hashable {
    /// The normalized query cache (`queries.db`), optimistic updates included.
    public let clearQueries: Bool
    /// The offline mutation queue (`offlineMutations.db`): queued mutations are cancelled.
    public let clearMutations: Bool
    /// The subscription metadata (`subscriptionMetadataCache.db`): the next sync of each
    /// operation runs its base query.
    public let clearSubscriptions: Bool

    /// Options naming each cache to clear; an omitted one is kept.
    public init(clearQueries: Bool = false, clearMutations: Bool = false, clearSubscriptions: Bool = false) {
        self.clearQueries = clearQueries
        self.clearMutations = clearMutations
        self.clearSubscriptions = clearSubscriptions
    }

    /// Options naming each cache to clear, with the guide's spelling `clearSubscription`.
    public init(clearQueries: Bool = false, clearMutations: Bool = false, clearSubscription: Bool) {
        self.init(clearQueries: clearQueries, clearMutations: clearMutations, clearSubscriptions: clearSubscription)
    }

    /// Every cache.
    public static let all = ClearCacheOptions(clearQueries: true, clearMutations: true, clearSubscriptions: true)
}

extension AWSAppSyncClient {
    /// Clears the caches `options` names: all of them by default.
    ///
    /// ```swift
    /// appSyncClient.clearCaches()  // queries, mutations and delta sync metadata
    /// ```
    ///
    /// Mutations are cleared first, so that their optimistic updates go with the queries.
    /// Live watchers are not called: they show what they showed until their next change.
    ///
    /// - Returns: The first failure, ``AWSAppSyncClientError/Code/cache``, naming the cache
    ///   that could not be cleared; the others are cleared all the same.
    @discardableResult
    public func clearCaches(options: ClearCacheOptions = .all) -> Result<Void, AWSAppSyncClientError> {
        var failure: AWSAppSyncClientError?
        func attempt(_ name: String, _ body: () throws -> Void) {
            do {
                try body()
            } catch {
                failure =
                    failure
                    ?? AWSAppSyncClientError(
                        .cache,
                        "Cannot clear the \(name): \(sentence: error) Check that the cache directory is writable."
                    )
            }
        }
        if options.clearMutations { attempt("offline mutation queue") { try mutationQueue.cancelAll() } }
        if options.clearQueries { attempt("query cache") { try cache.clear() } }
        if options.clearSubscriptions { attempt("subscription metadata") { try subscriptionMetadata.clear() } }
        return failure.map { .failure($0) } ?? .success(())
    }
}
