import AWSPluginsCore
import Amplify
import Dispatch
import Foundation
import Synchronization

/// The connection state of a subscription, as its `statusChangeHandler` hears it.
public enum AWSAppSyncSubscriptionWatcherStatus: Sendable {
    /// Connecting, or reconnecting after a drop.
    case connecting
    /// The server acknowledged the subscription: events arrive.
    case connected
    /// The connection dropped; the client reconnects and subscribes again.
    case disconnected
    /// The subscription ended with an error that retrying cannot fix.
    case error(any Error)
}

extension AWSAppSyncClient {
    /// Subscribes to `subscription` over the API's real-time endpoint and calls
    /// `resultHandler` on `queue` with each event, inside a cache transaction whose writes
    /// commit when the handler returns.
    ///
    /// Each event's objects are written to the cache first. The handler is called from `queue`,
    /// which waits while it runs inside the cache's write (on the cache's own thread); write
    /// to the cache through `transaction`, not through `store`, from the handler. The
    /// subscriptions of a client
    /// share one WebSocket connection, which reconnects with backoff and subscribes again
    /// after a drop.
    ///
    /// ```swift
    /// subscriptionWatcher = try appSyncClient?.subscribe(subscription: OnCreateTodoSubscription()) { result, transaction, error in
    ///     if let onCreateTodo = result?.data?.onCreateTodo { print(onCreateTodo.name) }
    /// }
    /// ```
    ///
    /// - Returns: The watcher; ``AWSAppSyncSubscriptionWatcher/cancel()`` stops the
    ///   subscription.
    /// - Throws: Nothing today; the seeds' `try` is kept for errors found before connecting.
    public func subscribe<Subscription: GraphQLSubscription>(
        subscription: Subscription,
        queue: DispatchQueue = .main,
        statusChangeHandler: (@Sendable (AWSAppSyncSubscriptionWatcherStatus) -> Void)? = nil,
        resultHandler:
            @escaping @Sendable (GraphQLResult<Subscription.Data>?, ReadWriteTransaction?, (any Error)?) ->
            Void
    ) throws -> AWSAppSyncSubscriptionWatcher<Subscription> {
        let watcher = AWSAppSyncSubscriptionWatcher<Subscription>()
        let store = cache
        let realTimeClient = realTimeClient
        let task = Task { [flag = watcher.state] in
            let data = Self.requestBody(subscription)
            let events = await realTimeClient.subscribe(data: data)
            do {
                for try await event in events {
                    guard !flag.isCancelled else { break }
                    switch event {
                    case .connection(let state):
                        let status: AWSAppSyncSubscriptionWatcherStatus =
                            switch state {
                            case .connecting: .connecting
                            case .connected: .connected
                            case .disconnected: .disconnected
                            }
                        if let statusChangeHandler {
                            queue.async { if !flag.isCancelled { statusChangeHandler(status) } }
                        }
                    case .data(let payload):
                        let result: GraphQLResult<Subscription.Data>
                        do {
                            result = try GraphQLResult(response: payload, operation: subscription)
                        } catch {
                            let failure = AWSAppSyncClientError(
                                .parseError,
                                "An event of \(Subscription.operationName) does not fit API.swift: \(sentence: error) "
                                    + "Regenerate API.swift from the API's current schema."
                            )
                            queue.async { if !flag.isCancelled { resultHandler(nil, nil, failure) } }
                            continue
                        }
                        queue.async {
                            guard !flag.isCancelled else { return }
                            let written = store.withinReadWriteTransaction { transaction in
                                if let data = result.data {
                                    try transaction.write(
                                        snapshot: data.snapshot,
                                        for: subscription,
                                        keepingNewerVersions: true
                                    )
                                }
                                resultHandler(result, transaction, nil)
                            }
                            if case .failure(let error) = written {
                                resultHandler(result, nil, error)
                            }
                        }
                    }
                }
            } catch {
                queue.async {
                    guard !flag.isCancelled else { return }
                    statusChangeHandler?(.error(error))
                    resultHandler(nil, nil, error)
                }
            }
        }
        watcher.attach(task)
        return watcher
    }

    /// Subscribes to `subscription` and returns its connection states and events as they
    /// arrive; each event's objects are written to the cache. Ending the iteration stops the
    /// subscription.
    ///
    /// ```swift
    /// for try await event in appSyncClient.subscribe(subscription: OnCreateTodoSubscription()) {
    ///     if case .data(let result) = event { print(result.data?.onCreateTodo?.name ?? "") }
    /// }
    /// ```
    ///
    /// - Throws: From the sequence: `AppSyncRealTimeError` when the server refuses the
    ///   connection or the subscription; ``AWSAppSyncClientError`` when an event does not fit
    ///   API.swift or cannot be written to the cache.
    public func subscribe<Subscription: GraphQLSubscription>(
        subscription: Subscription
    ) -> AsyncThrowingStream<AWSAppSyncSubscriptionEvent<Subscription.Data>, any Error> {
        let (stream, continuation) = AsyncThrowingStream.makeStream(
            of: AWSAppSyncSubscriptionEvent<Subscription.Data>.self
        )
        let store = cache
        let realTimeClient = realTimeClient
        let task = Task {
            let events = await realTimeClient.subscribe(data: Self.requestBody(subscription))
            do {
                for try await event in events {
                    switch event {
                    case .connection(let state):
                        continuation.yield(.connection(state))
                    case .data(let payload):
                        let result: GraphQLResult<Subscription.Data>
                        do {
                            result = try GraphQLResult(response: payload, operation: subscription)
                        } catch {
                            throw AWSAppSyncClientError(
                                .parseError,
                                "An event of \(Subscription.operationName) does not fit API.swift: \(sentence: error) "
                                    + "Regenerate API.swift from the API's current schema."
                            )
                        }
                        if let data = result.data {
                            try store.publish(data: data, for: subscription, origin: nil)
                        }
                        continuation.yield(.data(result))
                    }
                }
                continuation.finish()
            } catch {
                continuation.finish(throwing: error)
            }
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }
}

/// What the subscription sequence of ``AWSAppSyncClient`` delivers.
public enum AWSAppSyncSubscriptionEvent<Data: Sendable>: Sendable {
    /// The connection's state changed: connecting, connected (events arrive), disconnected
    /// (the client reconnects).
    case connection(SubscriptionConnectionState)
    /// An event.
    case data(GraphQLResult<Data>)
}

/// A live subscription; see
/// ``AWSAppSyncClient/subscribe(subscription:queue:statusChangeHandler:resultHandler:)``.
///
/// Cancel it to stop the subscription; its handlers are not called afterwards.
public final class AWSAppSyncSubscriptionWatcher<Subscription: GraphQLSubscription>: Cancellable {
    let state = SubscriptionState()

    init() {}

    func attach(_ task: Task<Void, Never>) {
        state.attach(task)
    }

    /// Stops the subscription: `stop` is sent to the server, and no handler is called
    /// afterwards.
    public func cancel() {
        state.cancel()
    }

    /// Releasing the watcher stops the subscription.
    deinit {
        state.cancel()
    }
}

/// Whether a subscription was cancelled, and its task: shared by the watcher and the task, so
/// that the task does not keep the watcher alive.
final class SubscriptionState: Sendable {
    private struct State {
        var cancelled = false
        var task: Task<Void, Never>?
    }

    private let state = Mutex(State())

    var isCancelled: Bool { state.withLock { $0.cancelled } }

    func attach(_ task: Task<Void, Never>) {
        let cancelled = state.withLock { state in
            state.task = task
            return state.cancelled
        }
        if cancelled { task.cancel() }
    }

    func cancel() {
        let task = state.withLock { state in
            state.cancelled = true
            return state.task
        }
        task?.cancel()
    }
}
