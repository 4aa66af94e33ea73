/// Where ``AWSAppSyncClient/fetch(query:cachePolicy:queue:resultHandler:)`` takes a query's
/// data from.
public enum CachePolicy: Sendable, Hashable {
    /// The cache's data when it holds all of it; otherwise the server's, written to the cache.
    case returnCacheDataElseFetch
    /// The server's data, written to the cache.
    case fetchIgnoringCacheData
    /// The cache's data only: a miss calls the handler with `(nil, nil)`.
    case returnCacheDataDontFetch
    /// The cache's data when it holds all of it, then the server's: two calls on a hit.
    case returnCacheDataAndFetch
}

/// An operation in progress that can be stopped: a watcher or a subscription.
public protocol Cancellable: AnyObject, Sendable {
    /// Stops it: no handler is called afterwards.
    func cancel()
}

/// The object the AppSync client exposes as `apolloClient`: the normalized cache's keying.
///
/// ```swift
/// appSyncClient?.apolloClient?.cacheKeyForObject = { $0["id"] }
/// ```
public final class ApolloClient: Sendable {
    /// The normalized cache.
    public let store: ApolloStore

    init(store: ApolloStore) {
        self.store = store
    }

    /// Gives each response object its cache key: objects with the same key share one record,
    /// so that `getTodo(id:)` and `listTodos` see the same item. `nil` (the default) keys
    /// every object by its path in its query.
    public var cacheKeyForObject: CacheKeyForObject? {
        get { store.cacheKeyForObject }
        set { store.cacheKeyForObject = newValue }
    }
}
