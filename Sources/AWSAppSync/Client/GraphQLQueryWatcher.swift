import Amplify
import Dispatch
import Foundation
import Synchronization

extension AWSAppSyncClient {
    /// Runs `query` under `cachePolicy`, then calls `resultHandler` again each time a write to
    /// the cache (a fetch, a mutation, a subscription, a transaction) changes a field of a
    /// record the query read. Writes that change nothing it read, and its own fetches, do not
    /// call it.
    ///
    /// ```swift
    /// let watcher = appSyncClient.watch(query: ListTodosQuery()) { result, error in
    ///     self.todos = result?.data?.listTodos?.items ?? []
    /// }
    /// watcher.cancel()
    /// ```
    ///
    /// - Returns: The watcher; ``GraphQLQueryWatcher/cancel()`` stops it.
    @discardableResult
    public func watch<Query: GraphQLQuery>(
        query: Query,
        cachePolicy: CachePolicy = .returnCacheDataElseFetch,
        queue: DispatchQueue = .main,
        resultHandler: @escaping @Sendable (GraphQLResult<Query.Data>?, (any Error)?) -> Void
    ) -> GraphQLQueryWatcher<Query> {
        let watcher = GraphQLQueryWatcher(client: self, query: query, queue: queue, resultHandler: resultHandler)
        watcher.start(cachePolicy: cachePolicy)
        return watcher
    }
}

/// Delivers a query's data again whenever the cache's records it read change; see
/// ``AWSAppSyncClient/watch(query:cachePolicy:queue:resultHandler:)``.
public final class GraphQLQueryWatcher<Query: GraphQLQuery>: Cancellable {
    private struct State {
        var dependentKeys: Set<String> = []
        var cancelled = false
        var observer: UUID?
        var task: Task<Void, Never>?
    }

    /// The query watched.
    public let query: Query
    private let client: AWSAppSyncClient
    private let queue: DispatchQueue
    private let resultHandler: @Sendable (GraphQLResult<Query.Data>?, (any Error)?) -> Void
    private let identity = UUID()
    private let state = Mutex(State())

    init(
        client: AWSAppSyncClient,
        query: Query,
        queue: DispatchQueue,
        resultHandler: @escaping @Sendable (GraphQLResult<Query.Data>?, (any Error)?) -> Void
    ) {
        self.client = client
        self.query = query
        self.queue = queue
        self.resultHandler = resultHandler
    }

    func start(cachePolicy: CachePolicy) {
        guard let store = client.store else { return }
        let token = store.addObserver { [weak self] changed, origin in
            self?.storeChanged(changed, origin: origin)
        }
        state.withLock { $0.observer = token }
        refetch(cachePolicy: cachePolicy)
    }

    /// Runs the query again under `cachePolicy`, delivering its results.
    public func refetch(cachePolicy: CachePolicy = .fetchIgnoringCacheData) {
        let task = Task { [client, query, identity] in
            let keys = await client.run(query: query, cachePolicy: cachePolicy, origin: identity) { result, error in
                self.deliver(result, error)
            }
            if let keys {
                let live = self.state.withLock { state in
                    state.dependentKeys = keys
                    return !state.cancelled
                }
                if live { client.store?.pin(identity, dependentKeys: keys) }
            }
        }
        state.withLock { $0.task = task }
    }

    /// Stops the watcher: the handler is not called afterwards.
    public func cancel() {
        let (task, token) = state.withLock { state in
            state.cancelled = true
            defer { state.task = nil }
            return (state.task, state.observer)
        }
        task?.cancel()
        if let token { client.store?.removeObserver(token) }
        client.store?.unpin(identity)
    }

    private func deliver(_ result: GraphQLResult<Query.Data>?, _ error: (any Error)?) {
        guard result != nil || error != nil else { return }
        queue.async { [self] in
            guard !state.withLock({ $0.cancelled }) else { return }
            resultHandler(result, error)
        }
    }

    private func storeChanged(_ changed: Set<String>, origin: UUID?) {
        let relevant = state.withLock { state in
            !state.cancelled && origin != identity && !state.dependentKeys.isDisjoint(with: changed)
        }
        guard relevant else { return }
        refetch(cachePolicy: .returnCacheDataElseFetch)
    }
}
