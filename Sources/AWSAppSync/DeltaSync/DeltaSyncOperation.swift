import AWSWire
import Amplify
import Dispatch
import Foundation
import Synchronization

/// One sync operation: hand over the base query's cached result, subscribe, catch up with the
/// base or delta query, then apply the subscription's messages, in that order; see
/// ``AWSAppSyncClient/sync(baseQuery:baseQueryResultHandler:subscription:subscriptionResultHandler:deltaQuery:deltaQueryResultHandler:cacheUpdates:callbackQueue:syncConfiguration:)``.
///
/// Every step goes through one stream consumed by one task: messages that arrive while a query
/// runs wait in the stream, and are applied after its result, in order.
final class DeltaSyncOperation<Base: GraphQLQuery, Subscription: GraphQLSubscription, Delta: GraphQLQuery>:
    Cancellable
{
    private enum Event: Sendable {
        /// Catch up: the subscription is acknowledged, the interval passed, or a retry is due.
        case run
        case message(JSONValue)
        case failed(any Error)
    }

    private let client: AWSAppSyncClient
    private let baseQuery: Base
    private let baseQueryResultHandler: @Sendable (GraphQLResult<Base.Data>?, (any Error)?) -> Void
    private let subscription: (Subscription, DeltaQueryResultHandler<Subscription>)?
    private let deltaQuery: (Delta, DeltaQueryResultHandler<Delta>)?
    private let cacheUpdates: CacheUpdates?
    private let callbackQueue: DispatchQueue
    private let interval: TimeInterval
    private let events: AsyncStream<Event>
    private let continuation: AsyncStream<Event>.Continuation
    private let tasks = Mutex<[Task<Void, Never>]>([])

    init(
        client: AWSAppSyncClient,
        baseQuery: Base,
        baseQueryResultHandler: @escaping @Sendable (GraphQLResult<Base.Data>?, (any Error)?) -> Void,
        subscription: (Subscription, DeltaQueryResultHandler<Subscription>)?,
        deltaQuery: (Delta, DeltaQueryResultHandler<Delta>)?,
        cacheUpdates: CacheUpdates?,
        callbackQueue: DispatchQueue,
        syncConfiguration: SyncConfiguration
    ) {
        self.client = client
        self.baseQuery = baseQuery
        self.baseQueryResultHandler = baseQueryResultHandler
        self.subscription = subscription
        self.deltaQuery = deltaQuery
        self.cacheUpdates = cacheUpdates
        self.callbackQueue = callbackQueue
        self.interval = TimeInterval(syncConfiguration.baseRefreshIntervalInSeconds)
        (events, continuation) = AsyncStream.makeStream(of: Event.self)
    }

    /// The key of this sync operation in the subscription metadata: its operations and variables.
    var operationKey: String {
        func part<Operation: GraphQLOperation>(_ operation: Operation?) -> String {
            guard let operation else { return "" }
            var writer = JSONTextWriter(sortsKeys: true, doubleStyle: .keepsFraction)
            JSONValue.object(operation.variables ?? [:]).write(to: &writer)
            return Operation.operationName + writer.text
        }
        return [part(baseQuery), part(subscription?.0), part(deltaQuery?.0)].joined(separator: "|")
    }

    func start() -> Self {
        client.liveSyncs.withLock { [continuation] in $0[ObjectIdentifier(self)] = { continuation.yield(.run) } }
        var started: [Task<Void, Never>] = [Task { await self.consume() }]
        if let (subscription, _) = subscription {
            let realTime = client.realTimeClient
            started.append(
                Task { [continuation] in
                    let stream = await realTime.subscribe(data: AWSAppSyncClient.requestBody(subscription))
                    do {
                        for try await event in stream {
                            switch event {
                            case .connection(.connected): continuation.yield(.run)
                            case .connection: break
                            case .data(let payload): continuation.yield(.message(payload))
                            }
                        }
                    } catch {
                        continuation.yield(.failed(error))
                    }
                }
            )
        } else {
            continuation.yield(.run)
        }
        let interval = interval
        started.append(
            Task { [continuation] in
                while !Task.isCancelled {
                    do {
                        try await Task.sleep(for: .seconds(max(interval, 1)))
                    } catch {
                        return
                    }
                    continuation.yield(.run)
                }
            }
        )
        tasks.withLock { $0 = started }
        return self
    }

    /// Stops the sync: its subscription ends, and no handler is called afterwards.
    func cancel() {
        let running = tasks.withLock { tasks in
            defer { tasks = [] }
            return tasks
        }
        for task in running { task.cancel() }
        continuation.finish()
        client.liveSyncs.withLock { _ = $0.removeValue(forKey: ObjectIdentifier(self)) }
    }

    private func consume() async {
        deliverBaseQueryFromCache()
        var failures = 0
        for await event in events {
            guard !Task.isCancelled else { return }
            switch event {
            case .run:
                if await catchUp() {
                    failures = 0
                } else {
                    failures += 1
                    let delay = client.configuration.retryPolicy.delay(afterFailures: failures)
                    let retry = Task { [continuation] in
                        do {
                            try await Task.sleep(for: delay)
                            continuation.yield(.run)
                        } catch {
                            // Cancelled with the sync.
                        }
                    }
                    tasks.withLock { $0.append(retry) }
                }
            case .message(let payload):
                apply(payload)
            case .failed(let error):
                if let (_, handler) = subscription {
                    callbackQueue.async { handler(nil, nil, error) }
                }
            }
        }
    }

    /// Hands the base query's cached result, when the cache has it, to its handler: the first
    /// thing a sync does, before it reaches the network.
    private func deliverBaseQueryFromCache() {
        let handler = baseQueryResultHandler
        do {
            guard let cached = try client.cache.load(query: baseQuery, tracking: false) else { return }
            let result = GraphQLResult(data: cached.data, errors: nil, source: .cache)
            callbackQueue.async { handler(result, nil) }
        } catch {
            callbackQueue.async { handler(nil, error) }
        }
    }

    /// Runs the base or the delta query, writes its result to the cache and records the sync;
    /// returns whether it succeeded.
    private func catchUp() async -> Bool {
        let serverClock = client.http.serverClock
        let started = serverClock.deviceNow()
        let key = operationKey
        let lastSync: Date?
        do {
            lastSync = try client.subscriptionMetadata.lastSync(of: key)
        } catch {
            callbackQueue.async { [baseQueryResultHandler] in baseQueryResultHandler(nil, error) }
            return false
        }
        // The handler runs once the sync is recorded.
        let deliver: @Sendable () -> Void
        var deltaLag: TimeInterval?
        // lastSync is the server's time: the time since is measured on the server's clock, as
        // far as an earlier answer told it. A lastSync ahead of that (written by a clock that
        // was ahead) is not trusted: the base query runs.
        let sinceLastSync = lastSync.map { serverClock.serverTime(at: started).timeIntervalSince($0) }
        if let (delta, handler) = deltaQuery, let lastSync, let sinceLastSync,
            sinceLastSync >= 0, sinceLastSync <= interval
        {
            deltaLag = sinceLastSync
            var variables = delta.variables ?? [:]
            let seconds = lastSync.timeIntervalSince1970
            variables["lastSync"] = .integer(Self.deltaTakesMilliseconds ? Int(seconds * 1000) : Int(seconds))
            do {
                let json = try await client.http.post(
                    body: AWSAppSyncClient.requestBody(Delta.operationString, variables: variables),
                    operationName: Delta.operationName
                )
                let result = try AppSyncHTTPClient.decode(json, for: delta)
                guard let data = result.data else {
                    callbackQueue.async { handler(result, nil, nil) }
                    return false
                }
                try write(data, for: delta)
                deliver = { handler(result, nil, nil) }
            } catch {
                callbackQueue.async { handler(nil, nil, error) }
                return false
            }
        } else {
            do {
                let result = try await client.send(baseQuery)
                guard let data = result.data else {
                    callbackQueue.async { [baseQueryResultHandler] in baseQueryResultHandler(result, nil) }
                    return false
                }
                try write(data, for: baseQuery)
                deliver = { [baseQueryResultHandler] in baseQueryResultHandler(result, nil) }
            } catch {
                callbackQueue.async { [baseQueryResultHandler] in baseQueryResultHandler(nil, error) }
                return false
            }
        }
        do {
            // The server's time when the query started, which its answer told, and two seconds
            // earlier: a change committed while the query ran is fetched again rather than missed.
            try client.subscriptionMetadata.setLastSync(
                serverClock.serverTime(at: started).addingTimeInterval(-2),
                of: key
            )
        } catch {
            callbackQueue.async { [baseQueryResultHandler] in baseQueryResultHandler(nil, error) }
            return false
        }
        client.metrics?.synced(Base.operationName, deltaLag: deltaLag)
        callbackQueue.async(execute: deliver)
        return true
    }

    /// Writes a subscription message to the cache and hands it to the handler.
    private func apply(_ payload: JSONValue) {
        guard let (subscription, handler) = subscription else { return }
        do {
            let result = try AppSyncHTTPClient.decode(payload, for: subscription)
            if let data = result.data {
                try write(data, for: subscription)
            }
            callbackQueue.async { handler(result, nil, nil) }
        } catch {
            callbackQueue.async { handler(nil, nil, error) }
        }
    }

    /// Writes a result to the cache in one transaction, with the entries `cacheUpdates` gives
    /// for its items pointing at their records; a record the cache holds in a later version
    /// stays as it is.
    private func write<Operation: GraphQLOperation>(_ data: Operation.Data, for operation: Operation) throws {
        let entries = cacheUpdates.map { SyncItems.entries(of: data.snapshot, $0) } ?? []
        try client.cache.withinReadWriteTransaction(origin: nil) { transaction in
            try transaction.write(syncResult: data.snapshot, for: operation, entries: entries)
        }.get()
    }

    /// Whether the delta query is one of the `sync*` queries of an API with conflict
    /// detection, whose `lastSync` is in milliseconds as DataStore sends it.
    static var deltaTakesMilliseconds: Bool {
        Delta.operationString.range(of: #"\{\s*(\w+\s*:\s*)?sync[A-Z]\w*\s*\("#, options: .regularExpression) != nil
    }
}
