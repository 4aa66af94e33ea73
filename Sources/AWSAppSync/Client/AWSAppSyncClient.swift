import AWSPluginsCore
import AWSWire
import Amplify
import Dispatch
import Foundation
import Metrics
import Synchronization

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A client of one AppSync API: queries through a normalized cache, mutations, watchers and
/// subscriptions, over the operations `stratus codegen types` generates into `API.swift`.
///
/// ```swift
/// let appSyncConfig = try AWSAppSyncClientConfiguration(
///     appSyncServiceConfig: AWSAppSyncServiceConfig(),
///     cacheConfiguration: AWSAppSyncCacheConfiguration()
/// )
/// let appSyncClient = try AWSAppSyncClient(appSyncConfig: appSyncConfig)
/// appSyncClient.apolloClient?.cacheKeyForObject = { $0["id"] }
/// let result = try await appSyncClient.fetch(query: ListTodosQuery())
/// ```
///
/// Handlers run on the `queue` given to each call, `DispatchQueue.main` by default. A Linux
/// command-line program drains the main queue only while its `async` entry point (`@main` with
/// `static func main() async`, or top-level code with `await`) is suspended, or when it calls
/// `dispatchMain()` (in both cases on a thread other than the first one); a synchronous program
/// that never does should pass a queue of its own, or use the `async` forms.
public final class AWSAppSyncClient: Sendable {
    /// The configuration the client was created with.
    public let configuration: AWSAppSyncClientConfiguration
    /// The normalized cache's keying: set `apolloClient?.cacheKeyForObject`.
    public let apolloClient: ApolloClient?
    /// The normalized cache.
    public var store: ApolloStore? { apolloClient?.store }

    let cache: ApolloStore
    let http: AppSyncHTTPClient
    let mutationQueue: MutationQueue
    let subscriptionMetadata: SubscriptionMetadataStore
    /// The results of the mutations replayed from the offline queue after a restart, in the
    /// order they were answered; also told to the configuration's `offlineMutationDelegate`.
    ///
    /// The sequence keeps every result until it is read, and has one reader.
    ///
    /// ```swift
    /// for await replayed in appSyncClient.offlineMutationResults {
    ///     print(replayed.recordIdentifier, replayed.snapshot ?? [:])
    /// }
    /// ```
    public let offlineMutationResults: AsyncStream<OfflineMutationResult>
    private let realTime: Mutex<AppSyncRealTimeClient?> = Mutex(nil)
    /// How to make each live sync operation catch up, by operation; see ``syncNow()``.
    let liveSyncs = Mutex<[ObjectIdentifier: @Sendable () -> Void]>([:])
    private let registration: CacheFileRegistry.Registration
    /// The device-health metrics; `nil` without a metrics backend.
    let metrics: AppSyncClientMetrics?

    /// A client for the API, authorization and cache of `appSyncConfig`.
    ///
    /// Mutations left in the offline queue by an earlier run are sent at once, and their
    /// answers written to the cache: set the configuration's `cacheKeyForObject` so that they
    /// are keyed as the client's other writes are.
    ///
    /// - Throws: ``AWSAppSyncClientError``: ``AWSAppSyncClientError/Code/cache`` when the query
    ///   cache's or the mutation queue's file cannot be opened;
    ///   ``AWSAppSyncClientError/Code/configuration`` when a live client of another API or auth
    ///   mode uses the query cache's file, or a live client uses the mutation queue's file.
    public init(appSyncConfig: AWSAppSyncClientConfiguration) throws {
        configuration = appSyncConfig
        http = AppSyncHTTPClient(
            configuration: appSyncConfig,
            transport: appSyncConfig.transport ?? defaultHTTPTransport(),
            serverClock: ServerClock(clock: appSyncConfig.clock)
        )
        registration = try CacheFileRegistry.register(appSyncConfig)
        let mutations: OfflineMutationStore
        do {
            cache = try ApolloStore(
                databaseURL: appSyncConfig.cacheConfiguration?.queries,
                sizeLimit: appSyncConfig.cacheConfiguration?.sizeLimit,
                timeToLive: appSyncConfig.cacheConfiguration?.timeToLive
            )
            mutations = try OfflineMutationStore(databaseURL: appSyncConfig.cacheConfiguration?.offlineMutations)
            subscriptionMetadata = try SubscriptionMetadataStore(
                databaseURL: appSyncConfig.cacheConfiguration?.subscriptionMetadataCache
            )
            try cache.removeLayers(notIn: mutations.ids())
        } catch {
            CacheFileRegistry.unregister(registration)
            throw error
        }
        cache.cacheKeyForObject = appSyncConfig.cacheKeyForObject
        apolloClient = ApolloClient(store: cache)
        let (results, continuation) = AsyncStream.makeStream(
            of: OfflineMutationResult.self,
            bufferingPolicy: .unbounded
        )
        offlineMutationResults = results
        let delegate = appSyncConfig.offlineMutationDelegate
        metrics = AppSyncClientMetrics(factory: appSyncConfig.metricsFactory ?? MetricsSystem.factory)
        mutationQueue = MutationQueue(
            store: mutations,
            http: http,
            cache: cache,
            policy: appSyncConfig.retryPolicy,
            ordering: appSyncConfig.mutationOrdering,
            metrics: metrics
        ) { result in
            delegate?.mutationCallback(
                recordIdentifier: result.recordIdentifier,
                operationString: result.operationString,
                snapshot: result.snapshot,
                error: result.error
            )
            continuation.yield(result)
        }
        mutationQueue.start()
    }

    deinit {
        mutationQueue.stop()
        CacheFileRegistry.unregister(registration)
    }

    // MARK: - Queries

    /// Runs `query` under `cachePolicy` and calls `resultHandler` on `queue` with its result or
    /// error; with `.returnCacheDataAndFetch` and a cache hit, twice (the cache's, then the
    /// server's); with `.returnCacheDataDontFetch` and a miss, with `(nil, nil)`.
    ///
    /// ```swift
    /// appSyncClient?.fetch(query: ListTodosQuery(), cachePolicy: .returnCacheDataAndFetch) { result, error in
    ///     result?.data?.listTodos?.items?.forEach { print($0?.name ?? "") }
    /// }
    /// ```
    public func fetch<Query: GraphQLQuery>(
        query: Query,
        cachePolicy: CachePolicy = .returnCacheDataElseFetch,
        queue: DispatchQueue = .main,
        resultHandler: (@Sendable (GraphQLResult<Query.Data>?, (any Error)?) -> Void)? = nil
    ) {
        Task {
            await self.run(query: query, cachePolicy: cachePolicy, origin: nil) { result, error in
                guard let resultHandler else { return }
                queue.async { resultHandler(result, error) }
            }
        }
    }

    /// Runs `query` under `cachePolicy` and returns its result: the cache's or the server's.
    /// With `.returnCacheDataAndFetch` this is the server's result, the cache written with it.
    ///
    /// - Throws: ``AWSAppSyncClientError``: ``AWSAppSyncClientError/Code/cacheMiss`` for a miss
    ///   with `.returnCacheDataDontFetch`; ``AWSAppSyncClientError/Code/requestFailed`` when the
    ///   server cannot be reached or answers with another status than 2xx or a body that is
    ///   not a GraphQL response.
    public func fetch<Query: GraphQLQuery>(
        query: Query,
        cachePolicy: CachePolicy = .returnCacheDataElseFetch
    ) async throws -> GraphQLResult<Query.Data> {
        switch cachePolicy {
        case .returnCacheDataElseFetch, .returnCacheDataDontFetch:
            if let cached = try cache.load(query: query, tracking: false) {
                return GraphQLResult(data: cached.data, errors: nil, source: .cache)
            }
            guard cachePolicy == .returnCacheDataElseFetch else {
                throw AWSAppSyncClientError(
                    .cacheMiss,
                    "The cache does not hold the data of \(Query.operationName), and the cache policy is "
                        + ".returnCacheDataDontFetch. Fetch it with another cache policy first."
                )
            }
            return try await fetchFromServer(query: query, origin: nil).result
        case .fetchIgnoringCacheData, .returnCacheDataAndFetch:
            return try await fetchFromServer(query: query, origin: nil).result
        }
    }

    /// Runs a query under a policy, reporting each result (and a miss as `(nil, nil)`) to
    /// `deliver`; returns the `record.field` keys of the last result delivered.
    @discardableResult
    func run<Query: GraphQLQuery>(
        query: Query,
        cachePolicy: CachePolicy,
        origin: UUID?,
        deliver: (GraphQLResult<Query.Data>?, (any Error)?) -> Void
    ) async -> Set<String>? {
        var dependentKeys: Set<String>?
        if cachePolicy != .fetchIgnoringCacheData {
            do {
                if let cached = try cache.load(query: query) {
                    deliver(GraphQLResult(data: cached.data, errors: nil, source: .cache), nil)
                    dependentKeys = cached.dependentKeys
                    if cachePolicy != .returnCacheDataAndFetch { return dependentKeys }
                } else if cachePolicy == .returnCacheDataDontFetch {
                    deliver(nil, nil)
                    return nil
                }
            } catch {
                deliver(nil, error)
                return nil
            }
        }
        do {
            let fetched = try await fetchFromServer(query: query, origin: origin)
            deliver(fetched.result, nil)
            return fetched.dependentKeys
        } catch {
            deliver(nil, error)
            return dependentKeys
        }
    }

    private func fetchFromServer<Query: GraphQLQuery>(
        query: Query,
        origin: UUID?
    ) async throws -> (result: GraphQLResult<Query.Data>, dependentKeys: Set<String>) {
        let result = try await send(query)
        var keys: Set<String> = []
        if let data = result.data {
            keys = try cache.publish(data: data, for: query, origin: origin)
        }
        return (result, keys)
    }

    // MARK: - HTTP

    /// Sends `operation` to the API and reads its response. An answer tells the mutation
    /// queue that the network works.
    func send<Operation: GraphQLOperation>(_ operation: Operation) async throws -> GraphQLResult<Operation.Data> {
        do {
            let result = try await http.send(operation)
            mutationQueue.networkAvailable()
            return result
        } catch let error as AWSAppSyncClientError where error.statusCode != nil {
            mutationQueue.networkAvailable()
            throw error
        }
    }

    /// `{"query": …, "variables": …}`: the body of an operation's request.
    static func requestBody<Operation: GraphQLOperation>(_ operation: Operation) -> String {
        requestBody(Operation.operationString, variables: operation.variables)
    }

    /// `{"query": …, "variables": …}` of a document and its variables.
    static func requestBody(_ operationString: String, variables: GraphQLMap?) -> String {
        var body: [String: JSONValue] = ["query": .string(operationString)]
        body["variables"] = .object(variables ?? [:])
        var writer = JSONTextWriter(sortsKeys: true, doubleStyle: .keepsFraction)
        JSONValue.object(body).write(to: &writer)
        return writer.text
    }

    /// The client's real-time connection, shared by its subscriptions.
    var realTimeClient: AppSyncRealTimeClient {
        realTime.withLock { client in
            if let client { return client }
            var realTimeConfiguration = configuration.realTimeConfiguration
            if let metrics {
                let told = realTimeConfiguration.reconnected
                realTimeConfiguration.reconnected = {
                    metrics.reconnected()
                    told?()
                }
            }
            let created = AppSyncRealTimeClient(
                graphQLURL: configuration.appSyncServiceConfig.endpoint,
                authorizer: AppSyncClientRealTimeAuthorizer(authorization: configuration.authorization),
                configuration: realTimeConfiguration
            )
            client = created
            return created
        }
    }
}
