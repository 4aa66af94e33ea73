import AWSPluginsCore
import Amplify
import Dispatch
import Foundation
import Synchronization

/// Writes the optimistic response of a mutation through the transaction it is given; see
/// ``AWSAppSyncClient/perform(mutation:queue:optimisticUpdate:conflictResolutionBlock:resultHandler:)``.
public typealias OptimisticResponseBlock = (ReadWriteTransaction?) -> Void

/// Decides what to do about a mutation the server refused as a conflict: given the server's
/// state of the object, the completion source to answer with (a mutation to send once more,
/// or a cancel), and the server's result.
public typealias MutationConflictHandler<Mutation: GraphQLMutation> =
    @Sendable (
        _ serverState: Snapshot?,
        _ taskCompletionSource: AWSTaskCompletionSource<Mutation>?,
        _ result: GraphQLResult<Mutation.Data>?
    ) -> Void

extension AWSAppSyncClient {
    /// Queues `mutation` and sends it when the queue comes to it; calls `resultHandler` on
    /// `queue` with the server's result, or with the error that ended it.
    ///
    /// The mutation is in the offline mutation queue (`offlineMutations.db`) when this returns,
    /// and survives the process: one found there when a client starts is sent then, and its
    /// result goes to the configuration's `offlineMutationDelegate` and to
    /// ``offlineMutationResults``, and its answer is written to the cache as this run's would
    /// be. Mutations are sent one at a time, in order (or, with the configuration's
    /// ``MutationOrdering/perRecord(maxConcurrent:)``, each record's in order); see
    /// ``AWSAppSyncClientConfiguration`` for the retry rules.
    ///
    /// `optimisticUpdate` writes to a layer over the cache that queries and watchers see at
    /// once. When the server accepts the mutation (data and no error), the layer becomes part
    /// of the cache and the server's answer is written over it: an item the update added to a
    /// list stays in it, with the fields the server answered, whether or not a subscription
    /// brings it too. Items others added to the list meanwhile stay as well. A failure, an
    /// error, a conflict left unresolved or a cancel removes the layer, and watchers see the
    /// previous data again.
    ///
    /// A conflict (`The conditional request failed`, `ConflictUnhandled`) goes to
    /// `conflictResolutionBlock`, which may answer with a mutation to send once in its place.
    ///
    /// ```swift
    /// appSyncClient?.perform(mutation: createTodoMutation, optimisticUpdate: { transaction in
    ///     do {
    ///         try transaction?.update(query: query) { (data: inout ListTodosQuery.Data) in
    ///             data.listTodos?.items?.append(ListTodosQuery.Data.ListTodo.Item(id: UUID, name: input.name))
    ///         }
    ///     } catch {
    ///         print("Error updating cache with optimistic response for \(createTodoInput)")
    ///     }
    /// }, resultHandler: { result, error in
    ///     print(result?.data?.createTodo?.name ?? "")
    /// })
    /// ```
    ///
    /// - Returns: The queued mutation; ``PerformMutationOperation/cancel()`` takes it out of
    ///   the queue.
    @discardableResult
    public func perform<Mutation: GraphQLMutation>(
        mutation: Mutation,
        queue: DispatchQueue = .main,
        optimisticUpdate: OptimisticResponseBlock? = nil,
        conflictResolutionBlock: MutationConflictHandler<Mutation>? = nil,
        resultHandler: (@Sendable (GraphQLResult<Mutation.Data>?, (any Error)?) -> Void)? = nil
    ) -> PerformMutationOperation<Mutation> {
        enqueue(
            mutation: mutation,
            queue: queue,
            optimisticUpdate: optimisticUpdate,
            conflictResolutionBlock: conflictResolutionBlock,
            reportsCancel: false,
            resultHandler: resultHandler
        )
    }

    /// Queues `mutation`; a cancel is reported to `resultHandler` when `reportsCancel` is true.
    @discardableResult
    private func enqueue<Mutation: GraphQLMutation>(
        mutation: Mutation,
        queue: DispatchQueue,
        optimisticUpdate: OptimisticResponseBlock?,
        conflictResolutionBlock: MutationConflictHandler<Mutation>?,
        reportsCancel: Bool,
        resultHandler: (@Sendable (GraphQLResult<Mutation.Data>?, (any Error)?) -> Void)?
    ) -> PerformMutationOperation<Mutation> {
        let id = UUID().uuidString
        let handler = LiveMutation(
            id: id,
            mutation: mutation,
            cache: cache,
            queue: queue,
            conflictResolutionBlock: conflictResolutionBlock,
            reportsCancel: reportsCancel,
            resultHandler: resultHandler
        )
        let operation = PerformMutationOperation<Mutation>(identifier: id, mutationQueue: mutationQueue)
        do {
            try mutationQueue.enqueue(
                id: id,
                operationName: Mutation.operationName,
                requestBody: Self.requestBody(mutation),
                recordKey: MutationOrdering.recordKey(of: mutation.variables),
                selections: StoredSelections.text(of: Mutation.Data.selections, variables: mutation.variables),
                handler: handler
            )
        } catch {
            if let resultHandler { queue.async { resultHandler(nil, error) } }
            return operation
        }
        if let optimisticUpdate {
            cache.withinOptimisticLayer(id) { transaction in optimisticUpdate(transaction) }
        }
        return operation
    }

    /// Queues `mutation` and calls `resultHandler` on `queue` with the server's result: the
    /// form without an optimistic update, whose result handler may follow as a trailing closure.
    ///
    /// ```swift
    /// appSyncClient?.perform(mutation: CreateTodoMutation(input: mutationInput)) { result, error in
    ///     if let resultError = result?.errors { print("Error saving the item on server: \(resultError)") }
    /// }
    /// ```
    ///
    /// - Returns: The queued mutation; ``PerformMutationOperation/cancel()`` takes it out of
    ///   the queue.
    @discardableResult
    public func perform<Mutation: GraphQLMutation>(
        mutation: Mutation,
        queue: DispatchQueue = .main,
        resultHandler: @escaping @Sendable (GraphQLResult<Mutation.Data>?, (any Error)?) -> Void
    ) -> PerformMutationOperation<Mutation> {
        perform(
            mutation: mutation,
            queue: queue,
            optimisticUpdate: nil,
            conflictResolutionBlock: nil,
            resultHandler: .some(resultHandler)
        )
    }

    /// Queues `mutation` as
    /// ``perform(mutation:queue:optimisticUpdate:conflictResolutionBlock:resultHandler:)`` does,
    /// and returns the server's result, whose objects are written to the cache.
    ///
    /// - Throws: ``AWSAppSyncClientError``: ``AWSAppSyncClientError/Code/requestFailed`` when
    ///   the server refused the request as a whole (HTTP 4xx) or answered with a body that is
    ///   not a GraphQL response; ``AWSAppSyncClientError/Code/cache`` when it cannot be queued;
    ///   ``AWSAppSyncClientError/Code/cancelled`` when ``clearCaches(options:)`` cleared the
    ///   queue before the server answered.
    ///   GraphQL errors are in the result's `errors`. While the server cannot be reached, this
    ///   waits: the mutation stays queued.
    public func perform<Mutation: GraphQLMutation>(
        mutation: Mutation,
        optimisticUpdate: OptimisticResponseBlock? = nil,
        conflictResolutionBlock: MutationConflictHandler<Mutation>? = nil
    ) async throws -> GraphQLResult<Mutation.Data> {
        try await withCheckedThrowingContinuation { continuation in
            enqueue(
                mutation: mutation,
                queue: Self.asyncResultQueue,
                optimisticUpdate: optimisticUpdate,
                conflictResolutionBlock: conflictResolutionBlock,
                reportsCancel: true
            ) { result, error in
                if let result {
                    continuation.resume(returning: result)
                } else {
                    continuation.resume(
                        throwing: error
                            ?? AWSAppSyncClientError(
                                .requestFailed,
                                "\(Mutation.operationName) ended without a result."
                            )
                    )
                }
            }
        }
    }

    /// The mutations waiting in the offline queue, in the order they are sent.
    ///
    /// - Throws: ``AWSAppSyncClientError`` (``AWSAppSyncClientError/Code/cache``) when the queue
    ///   cannot be read.
    public func queuedMutationIdentifiers() throws -> [String] {
        do {
            return try mutationQueue.store.all().map(\.id)
        } catch {
            throw AWSAppSyncClientError(
                .cache,
                "Cannot read the offline mutation queue: \(sentence: error) Check the cache directory."
            )
        }
    }

    /// Waits until the offline mutation queue is empty: every mutation performed before the call,
    /// or while it waits, was answered by the server (the answer written to the cache), refused,
    /// or cancelled, and is gone from the queue's database.
    ///
    /// The queue is read from its database after each mutation leaves it, so this never returns
    /// while a mutation is queued, in flight, or waiting to be tried again; a program may exit
    /// once it returns without losing a mutation. Result handlers of the last mutations may
    /// still be running. While the server cannot be reached it waits: cancel the task to stop
    /// waiting.
    ///
    /// ```swift
    /// appSyncClient.perform(mutation: CreateTodoMutation(input: CreateTodoInput(name: "Milk")))
    /// try await appSyncClient.waitUntilMutationQueueIsEmpty()
    /// ```
    ///
    /// - Throws: ``AWSAppSyncClientError`` (``AWSAppSyncClientError/Code/cache``) when the queue
    ///   cannot be read; `CancellationError` when the task is cancelled.
    public func waitUntilMutationQueueIsEmpty() async throws {
        do {
            try await mutationQueue.waitUntilEmpty()
        } catch let error as CancellationError {
            throw error
        } catch {
            throw AWSAppSyncClientError(
                .cache,
                "Cannot read the offline mutation queue: \(sentence: error) Check the cache directory."
            )
        }
    }

    static let asyncResultQueue = DispatchQueue(label: "AWSAppSync.asyncResults", attributes: .concurrent)
}

/// A mutation in the offline queue; see
/// ``AWSAppSyncClient/perform(mutation:queue:optimisticUpdate:conflictResolutionBlock:resultHandler:)``.
public final class PerformMutationOperation<Mutation: GraphQLMutation>: Cancellable {
    /// The mutation's durable id: its row in `offlineMutations.db` and its `Idempotency-Key`.
    public let identifier: String
    private let mutationQueue: MutationQueue

    init(identifier: String, mutationQueue: MutationQueue) {
        self.identifier = identifier
        self.mutationQueue = mutationQueue
    }

    /// Takes the mutation out of the queue and removes its optimistic update; its result
    /// handler is not called. A mutation already sent may still be applied by the server.
    public func cancel() {
        mutationQueue.cancel(identifier)
    }
}

/// The outcome of a mutation queued by an earlier run of the client (replayed after a restart).
public struct OfflineMutationResult: Sendable {
    /// The mutation's durable id.
    public let recordIdentifier: String
    /// The operation's name (`CreateTodo`).
    public let operationName: String
    /// The operation's document.
    public let operationString: String
    /// The response's `data`, `nil` when the mutation failed.
    public let snapshot: Snapshot?
    /// The response's GraphQL errors.
    public let errors: [GraphQLError]?
    /// The error that ended the mutation without a GraphQL response.
    public let error: AWSAppSyncClientError?
}

/// Hears of the mutations a client replays from its offline queue after a restart, whose
/// callers are gone.
///
/// ```swift
/// final class Replays: AWSAppSyncOfflineMutationDelegate {
///     func mutationCallback(recordIdentifier: String, operationString: String, snapshot: Snapshot?, error: Error?) {
///         print("Replayed \(recordIdentifier): \(snapshot ?? [:])")
///     }
/// }
/// ```
public protocol AWSAppSyncOfflineMutationDelegate: AnyObject, Sendable {
    /// A replayed mutation got its answer (`snapshot` is the response's `data`) or failed.
    func mutationCallback(recordIdentifier: String, operationString: String, snapshot: Snapshot?, error: (any Error)?)
}

/// Answers a conflict: the mutation to send once more in place of the refused one, an error,
/// or a cancel.
public final class AWSTaskCompletionSource<Result: Sendable>: Sendable {
    enum Outcome: Sendable {
        case result(Result)
        case error(any Error)
        case cancelled
    }

    /// Holds the answer apart from the source, so that a source dropped unanswered cancels.
    final class Answer: Sendable {
        private let state = Mutex<(outcome: Outcome?, waiter: CheckedContinuation<Outcome, Never>?)>((nil, nil))

        func set(_ outcome: Outcome) -> Bool {
            let (waiter, accepted) = state.withLock { state -> (CheckedContinuation<Outcome, Never>?, Bool) in
                guard state.outcome == nil else { return (nil, false) }
                state.outcome = outcome
                defer { state.waiter = nil }
                return (state.waiter, true)
            }
            waiter?.resume(returning: outcome)
            return accepted
        }

        func value() async -> Outcome {
            await withCheckedContinuation { continuation in
                let ready = state.withLock { state -> Outcome? in
                    if let outcome = state.outcome { return outcome }
                    state.waiter = continuation
                    return nil
                }
                if let ready { continuation.resume(returning: ready) }
            }
        }
    }

    let answer = Answer()

    init() {}

    deinit {
        _ = answer.set(.cancelled)
    }

    /// Answers with `result`; the first answer wins.
    ///
    /// - Returns: Whether this was the first answer.
    @discardableResult
    public func trySet(result: Result) -> Bool { answer.set(.result(result)) }

    /// Answers with `result`, as ``trySet(result:)``.
    public func set(result: Result) { trySet(result: result) }

    /// Answers with an error: the mutation fails with it.
    @discardableResult
    public func trySet(error: any Error) -> Bool { answer.set(.error(error)) }

    /// Answers with an error, as ``trySet(error:)``.
    public func set(error: any Error) { trySet(error: error) }

    /// Leaves the conflict unresolved: the mutation ends with the server's result.
    @discardableResult
    public func trySetCancelled() -> Bool { answer.set(.cancelled) }

    /// Leaves the conflict unresolved, as ``trySetCancelled()``.
    public func cancel() { trySetCancelled() }
}

extension GraphQLError {
    /// Whether the server refused the mutation as a conflict: a condition that failed
    /// (`ConditionalCheckFailedException`, DynamoDB's `DynamoDB:ConditionalCheckFailedException`,
    /// or its message `The conditional request failed…` without a type), or a conflict its
    /// resolver did not resolve (`ConflictUnhandled`).
    var isConflict: Bool {
        switch appSyncErrorType {
        case .conditionalCheckFailed?, .conflictUnhandled?: true
        default: false
        }
    }
}

/// A mutation queued by this run of the client: decodes its answer, writes it to the cache in
/// place of the optimistic layer, asks the conflict block, and calls the result handler.
final class LiveMutation<Mutation: GraphQLMutation>: QueuedMutationHandler {
    let id: String
    let mutation: Mutation
    let cache: ApolloStore
    let queue: DispatchQueue
    let conflictResolutionBlock: MutationConflictHandler<Mutation>?
    /// Whether a cancel is reported to the result handler (the async form, which waits for it).
    let reportsCancel: Bool
    let resultHandler: (@Sendable (GraphQLResult<Mutation.Data>?, (any Error)?) -> Void)?
    /// The mutation sent once more after the conflict block resolved a conflict.
    private let resent = Mutex<Mutation?>(nil)

    init(
        id: String,
        mutation: Mutation,
        cache: ApolloStore,
        queue: DispatchQueue,
        conflictResolutionBlock: MutationConflictHandler<Mutation>?,
        reportsCancel: Bool,
        resultHandler: (@Sendable (GraphQLResult<Mutation.Data>?, (any Error)?) -> Void)?
    ) {
        self.reportsCancel = reportsCancel
        self.id = id
        self.mutation = mutation
        self.cache = cache
        self.queue = queue
        self.conflictResolutionBlock = conflictResolutionBlock
        self.resultHandler = resultHandler
    }

    func handle(response json: JSONValue) async -> QueuedMutationOutcome {
        let resentMutation = resent.withLock { $0 }
        let sent = resentMutation ?? mutation
        let result: GraphQLResult<Mutation.Data>
        do {
            result = try AppSyncHTTPClient.decode(json, for: sent)
        } catch {
            return .done(deliver: rollBack(then: nil, error))
        }
        if resentMutation == nil, let conflictResolutionBlock,
            let conflict = result.errors?.first(where: \.isConflict)
        {
            let source = AWSTaskCompletionSource<Mutation>()
            let answer = source.answer
            let serverState = conflict.data?.objectValue
            queue.async { conflictResolutionBlock(serverState, source, result) }
            switch await answer.value() {
            case .result(let replacement):
                resent.withLock { $0 = replacement }
                return .resend(AWSAppSyncClient.requestBody(replacement))
            case .error(let error):
                return .done(deliver: rollBack(then: nil, error))
            case .cancelled:
                return .done(deliver: rollBack(then: result, nil))
            }
        }
        if result.errors?.contains(where: \.isConflict) == true || result.data == nil {
            return .done(deliver: rollBack(then: result, nil))
        }
        var failure: (any Error)?
        do {
            if let data = result.data {
                let ending = LayerEnding(data: data.snapshot, errors: result.errors)
                try cache.publish(data: data, for: sent, origin: nil, endingLayer: (id, ending))
            }
        } catch {
            failure = error
        }
        return .done(deliver: delivery(result, failure))
    }

    func fail(_ error: AWSAppSyncClientError) async -> @Sendable () -> Void {
        rollBack(then: nil, error)
    }

    func cancelled() {
        do {
            try cache.removeLayer(id)
        } catch {
            // The layer stays until the next start removes layers without a queued mutation.
        }
        guard reportsCancel else { return }
        delivery(
            nil,
            AWSAppSyncClientError(
                .cancelled,
                "\(Mutation.operationName) was cancelled and taken out of the offline queue before the server "
                    + "answered it. Perform it again if it is still wanted."
            )
        )()
    }

    /// Removes the optimistic layer, and returns how to deliver.
    private func rollBack(
        then result: GraphQLResult<Mutation.Data>?,
        _ error: (any Error)?
    ) -> @Sendable () -> Void {
        var failure = error
        do {
            try cache.removeLayer(id)
        } catch {
            failure = failure ?? error
        }
        return delivery(result, failure)
    }

    private func delivery(_ result: GraphQLResult<Mutation.Data>?, _ error: (any Error)?) -> @Sendable () -> Void {
        { [queue, resultHandler] in
            guard let resultHandler else { return }
            queue.async { resultHandler(result, error) }
        }
    }
}
