import AWSPluginsCore
import Amplify
import Dispatch
import Foundation

/// How often a sync operation runs its base query; see
/// ``AWSAppSyncClient/sync(baseQuery:baseQueryResultHandler:subscription:subscriptionResultHandler:deltaQuery:deltaQueryResultHandler:callbackQueue:syncConfiguration:)``.
public struct SyncConfiguration: Sendable, Hashable {
    /// The base query runs when this many seconds passed since the last sync; the delta query
    /// otherwise.
    public let baseRefreshIntervalInSeconds: Int

    /// A configuration refreshing the base every `baseRefreshIntervalInSeconds` (a day by default).
    public init(baseRefreshIntervalInSeconds: Int = 86_400) {
        self.baseRefreshIntervalInSeconds = baseRefreshIntervalInSeconds
    }
}

/// Handles the results of a delta query or a subscription of a sync operation; the
/// transaction is `nil`: the result is in the cache already, and the handler may use `store`.
public typealias DeltaQueryResultHandler<Operation: GraphQLOperation> =
    @Sendable (GraphQLResult<Operation.Data>?, ReadWriteTransaction?, (any Error)?) -> Void

extension AWSAppSyncClient {
    /// Keeps the cache in step with the server: a base query, a delta query of what changed
    /// since the last sync, and a subscription for changes as they happen.
    ///
    /// The sync first hands the base query's result from the cache, when the cache has it, to
    /// `baseQueryResultHandler`. It then subscribes, keeping the messages that arrive; once the server
    /// acknowledged the subscription it runs the base query (on the first run, or when
    /// `syncConfiguration.baseRefreshIntervalInSeconds` passed since the last sync) or else the
    /// delta query with `$lastSync` filled in (epoch seconds; milliseconds for the `sync*`
    /// queries of an API with conflict detection, which take DataStore's timestamps), writes
    /// its result to the cache, and then applies the kept messages in order. It runs again
    /// whenever the subscription reconnects, when the interval passes, and after a failure
    /// (backing off), and on ``syncNow()``. When each sync operation last synced is kept in
    /// `subscriptionMetadataCache.db`. Results are written to the cache before the handlers
    /// run on `callbackQueue`.
    ///
    /// ```swift
    /// deltaWatcher = appSyncClient?.sync(baseQuery: allPostsBaseQuery, baseQueryResultHandler: { result, error in
    ///     self.postList = result?.data?.listPosts
    /// }, subscription: postsSubscription, subscriptionResultHandler: { result, transaction, error in
    /// }, deltaQuery: allPostsDeltaQuery, deltaQueryResultHandler: { result, transaction, error in
    /// })
    /// deltaWatcher?.cancel()
    /// ```
    ///
    /// - Returns: The sync operation; `cancel()` stops it.
    @discardableResult
    public func sync<BaseQuery: GraphQLQuery, Subscription: GraphQLSubscription, DeltaQuery: GraphQLQuery>(
        baseQuery: BaseQuery,
        baseQueryResultHandler: @escaping @Sendable (GraphQLResult<BaseQuery.Data>?, (any Error)?) -> Void,
        subscription: Subscription,
        subscriptionResultHandler: @escaping DeltaQueryResultHandler<Subscription>,
        deltaQuery: DeltaQuery,
        deltaQueryResultHandler: @escaping DeltaQueryResultHandler<DeltaQuery>,
        callbackQueue: DispatchQueue = .main,
        syncConfiguration: SyncConfiguration = SyncConfiguration()
    ) -> any Cancellable {
        DeltaSyncOperation(
            client: self,
            baseQuery: baseQuery,
            baseQueryResultHandler: baseQueryResultHandler,
            subscription: (subscription, subscriptionResultHandler),
            deltaQuery: (deltaQuery, deltaQueryResultHandler),
            callbackQueue: callbackQueue,
            syncConfiguration: syncConfiguration
        ).start()
    }

    /// Keeps the cache in step with a base query, run again every
    /// `syncConfiguration.baseRefreshIntervalInSeconds`.
    ///
    /// - Returns: The sync operation; `cancel()` stops it.
    @discardableResult
    public func sync<BaseQuery: GraphQLQuery>(
        baseQuery: BaseQuery,
        baseQueryResultHandler: @escaping @Sendable (GraphQLResult<BaseQuery.Data>?, (any Error)?) -> Void,
        callbackQueue: DispatchQueue = .main,
        syncConfiguration: SyncConfiguration = SyncConfiguration()
    ) -> any Cancellable {
        DeltaSyncOperation<BaseQuery, NoSubscription, NoQuery>(
            client: self,
            baseQuery: baseQuery,
            baseQueryResultHandler: baseQueryResultHandler,
            subscription: nil,
            deltaQuery: nil,
            callbackQueue: callbackQueue,
            syncConfiguration: syncConfiguration
        ).start()
    }

    /// Keeps the cache in step with a base query and a delta query, without a subscription.
    ///
    /// - Returns: The sync operation; `cancel()` stops it.
    @discardableResult
    public func sync<BaseQuery: GraphQLQuery, DeltaQuery: GraphQLQuery>(
        baseQuery: BaseQuery,
        baseQueryResultHandler: @escaping @Sendable (GraphQLResult<BaseQuery.Data>?, (any Error)?) -> Void,
        deltaQuery: DeltaQuery,
        deltaQueryResultHandler: @escaping DeltaQueryResultHandler<DeltaQuery>,
        callbackQueue: DispatchQueue = .main,
        syncConfiguration: SyncConfiguration = SyncConfiguration()
    ) -> any Cancellable {
        DeltaSyncOperation<BaseQuery, NoSubscription, DeltaQuery>(
            client: self,
            baseQuery: baseQuery,
            baseQueryResultHandler: baseQueryResultHandler,
            subscription: nil,
            deltaQuery: (deltaQuery, deltaQueryResultHandler),
            callbackQueue: callbackQueue,
            syncConfiguration: syncConfiguration
        ).start()
    }

    /// Keeps the cache in step with a base query and a delta query, without a subscription: the
    /// same as ``sync(baseQuery:baseQueryResultHandler:deltaQuery:deltaQueryResultHandler:callbackQueue:syncConfiguration:)``,
    /// with the label the AppSync guide's short form uses.
    ///
    /// ```swift
    /// appSyncClient?.sync(baseQuery: baseQuery, baseQueryResultHandler: baseQueryResultHandler,
    ///                     deltaQuery: deltaQuery, deltaResultHandler: deltaQueryResultHandler)
    /// ```
    ///
    /// - Returns: The sync operation; `cancel()` stops it.
    @discardableResult
    public func sync<BaseQuery: GraphQLQuery, DeltaQuery: GraphQLQuery>(
        baseQuery: BaseQuery,
        baseQueryResultHandler: @escaping @Sendable (GraphQLResult<BaseQuery.Data>?, (any Error)?) -> Void,
        deltaQuery: DeltaQuery,
        deltaResultHandler: @escaping DeltaQueryResultHandler<DeltaQuery>,
        callbackQueue: DispatchQueue = .main,
        syncConfiguration: SyncConfiguration = SyncConfiguration()
    ) -> any Cancellable {
        sync(
            baseQuery: baseQuery,
            baseQueryResultHandler: baseQueryResultHandler,
            deltaQuery: deltaQuery,
            deltaQueryResultHandler: deltaResultHandler,
            callbackQueue: callbackQueue,
            syncConfiguration: syncConfiguration
        )
    }

    /// Makes every live sync operation of this client catch up now: the delta query, or the
    /// base query when `baseRefreshIntervalInSeconds` passed since its last sync, as the
    /// AppSync SDK did when the app came back to the foreground. Call it from the app's
    /// foreground notification or scene phase change.
    ///
    /// ```swift
    /// .onChange(of: scenePhase) { phase in
    ///     if phase == .active { appSyncClient?.syncNow() }
    /// }
    /// ```
    public func syncNow() {
        for catchUp in liveSyncs.withLock({ Array($0.values) }) { catchUp() }
    }

    /// Keeps the cache in step with a base query and a subscription, without a delta query.
    ///
    /// - Returns: The sync operation; `cancel()` stops it.
    @discardableResult
    public func sync<BaseQuery: GraphQLQuery, Subscription: GraphQLSubscription>(
        baseQuery: BaseQuery,
        baseQueryResultHandler: @escaping @Sendable (GraphQLResult<BaseQuery.Data>?, (any Error)?) -> Void,
        subscription: Subscription,
        subscriptionResultHandler: @escaping DeltaQueryResultHandler<Subscription>,
        callbackQueue: DispatchQueue = .main,
        syncConfiguration: SyncConfiguration = SyncConfiguration()
    ) -> any Cancellable {
        DeltaSyncOperation<BaseQuery, Subscription, NoQuery>(
            client: self,
            baseQuery: baseQuery,
            baseQueryResultHandler: baseQueryResultHandler,
            subscription: (subscription, subscriptionResultHandler),
            deltaQuery: nil,
            callbackQueue: callbackQueue,
            syncConfiguration: syncConfiguration
        ).start()
    }
}

/// The selection set of the stand-in operations of a sync without a subscription or a delta query.
struct NoData: GraphQLSelectionSet {
    static let selections: [any GraphQLSelection] = []
    var snapshot: Snapshot
    init(snapshot: Snapshot) { self.snapshot = snapshot }
}

/// Stands for the subscription of a sync that has none.
struct NoSubscription: GraphQLSubscription {
    static let operationName = ""
    static let operationString = ""
    typealias Data = NoData
}

/// Stands for the delta query of a sync that has none.
struct NoQuery: GraphQLQuery {
    static let operationName = ""
    static let operationString = ""
    typealias Data = NoData
}
