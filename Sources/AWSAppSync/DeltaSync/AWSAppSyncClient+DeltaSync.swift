import AWSPluginsCore
import Amplify
import Dispatch
import Foundation

/// How often a sync operation runs its base query; see
/// ``AWSAppSyncClient/sync(baseQuery:baseQueryResultHandler:subscription:subscriptionResultHandler:deltaQuery:deltaQueryResultHandler:cacheUpdates:callbackQueue:syncConfiguration:)``.
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
    /// `cacheUpdates` points other queries at the items the sync writes, such as a
    /// `getPost(id:)` at each post. It is given each item of every base query, delta query and
    /// subscription result (the objects of a root field's list or of its connection's `items`,
    /// or the object a root field holds) and returns the queries, with their variables, whose
    /// fields should read that item's record. The entries are written in the same transaction
    /// as the result: those queries then answer from the cache with the item's fields, and with
    /// every later change to its record, since they refer to the record rather than copy it. A
    /// query answers when the record holds every field it selects. An entry still points at
    /// its record after a delta query or a subscription reports the item deleted: the record
    /// stays, with its last fields (`aws_ds` among them when selected), until the cache is
    /// cleared or evicts it, and the entry is a miss from then on. Deleted items are given to
    /// `cacheUpdates` too: to stop a query answering for one, return no queries for it and
    /// write `nil` to the query in the handler. The items need keys of their own
    /// (set `cacheKeyForObject`): for an item without one, or for a query whose field does not
    /// hold one object, the result is not written and its handler gets an
    /// ``AWSAppSyncClientError`` (``AWSAppSyncClientError/Code/configuration``) naming them.
    ///
    /// ```swift
    /// deltaWatcher = appSyncClient?.sync(baseQuery: ListPostsQuery(), baseQueryResultHandler: { result, error in
    /// }, deltaQuery: ListPostsDeltaQuery(), deltaResultHandler: { result, transaction, error in
    /// }, cacheUpdates: { item in
    ///     guard let id = item["id"]?.stringValue else { return [] }
    ///     return [GetPostQuery(id: id)]
    /// })
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
        cacheUpdates: CacheUpdates? = nil,
        callbackQueue: DispatchQueue = .main,
        syncConfiguration: SyncConfiguration = SyncConfiguration()
    ) -> any Cancellable {
        DeltaSyncOperation(
            client: self,
            baseQuery: baseQuery,
            baseQueryResultHandler: baseQueryResultHandler,
            subscription: (subscription, subscriptionResultHandler),
            deltaQuery: (deltaQuery, deltaQueryResultHandler),
            cacheUpdates: cacheUpdates,
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
        cacheUpdates: CacheUpdates? = nil,
        callbackQueue: DispatchQueue = .main,
        syncConfiguration: SyncConfiguration = SyncConfiguration()
    ) -> any Cancellable {
        DeltaSyncOperation<BaseQuery, NoSubscription, NoQuery>(
            client: self,
            baseQuery: baseQuery,
            baseQueryResultHandler: baseQueryResultHandler,
            subscription: nil,
            deltaQuery: nil,
            cacheUpdates: cacheUpdates,
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
        cacheUpdates: CacheUpdates? = nil,
        callbackQueue: DispatchQueue = .main,
        syncConfiguration: SyncConfiguration = SyncConfiguration()
    ) -> any Cancellable {
        DeltaSyncOperation<BaseQuery, NoSubscription, DeltaQuery>(
            client: self,
            baseQuery: baseQuery,
            baseQueryResultHandler: baseQueryResultHandler,
            subscription: nil,
            deltaQuery: (deltaQuery, deltaQueryResultHandler),
            cacheUpdates: cacheUpdates,
            callbackQueue: callbackQueue,
            syncConfiguration: syncConfiguration
        ).start()
    }

    /// Keeps the cache in step with a base query and a delta query, without a subscription: the
    /// same as ``sync(baseQuery:baseQueryResultHandler:deltaQuery:deltaQueryResultHandler:cacheUpdates:callbackQueue:syncConfiguration:)``,
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
        cacheUpdates: CacheUpdates? = nil,
        callbackQueue: DispatchQueue = .main,
        syncConfiguration: SyncConfiguration = SyncConfiguration()
    ) -> any Cancellable {
        sync(
            baseQuery: baseQuery,
            baseQueryResultHandler: baseQueryResultHandler,
            deltaQuery: deltaQuery,
            deltaQueryResultHandler: deltaResultHandler,
            cacheUpdates: cacheUpdates,
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
        cacheUpdates: CacheUpdates? = nil,
        callbackQueue: DispatchQueue = .main,
        syncConfiguration: SyncConfiguration = SyncConfiguration()
    ) -> any Cancellable {
        DeltaSyncOperation<BaseQuery, Subscription, NoQuery>(
            client: self,
            baseQuery: baseQuery,
            baseQueryResultHandler: baseQueryResultHandler,
            subscription: (subscription, subscriptionResultHandler),
            deltaQuery: nil,
            cacheUpdates: cacheUpdates,
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
