import AWSPluginsCore
import Amplify
import Foundation
import Synchronization

/// What the handler of a queued mutation made of an answer.
enum QueuedMutationOutcome: Sendable {
    /// Send this request body once more in the mutation's place (a resolved conflict).
    case resend(String)
    /// Done: the queue deletes the mutation, then calls this to deliver the result.
    case done(deliver: @Sendable () -> Void)
}

/// What the caller of a queued mutation does with its outcome; see ``MutationQueue``.
protocol QueuedMutationHandler: Sendable {
    /// Handles the server's GraphQL response.
    func handle(response: JSONValue) async -> QueuedMutationOutcome
    /// Handles a failure that retrying will not mend; returns how to deliver it.
    func fail(_ error: AWSAppSyncClientError) async -> @Sendable () -> Void
    /// The mutation was cancelled: no result will be delivered.
    func cancelled()
}

/// The offline mutation queue of one client: mutations are written to
/// ``OfflineMutationStore`` before they are sent, then sent one at a time in the order they
/// were queued, or, with ``MutationOrdering/perRecord(maxConcurrent:)``, several at once of
/// different records, each record's in order.
///
/// A mutation is deleted when the server answers it with a GraphQL response (errors included),
/// when it fails in a way retrying will not mend (a refusal such as HTTP 400 or 403, a second
/// 401 after the credentials were fetched again), and when it is cancelled. It stays, and is
/// tried again, when the server cannot be reached (after `2^n·100 ms + jitter`, capped at 5 min,
/// or at once when the API answers again), when the server answers a status `RetryRule` retries
/// for a request with an `Idempotency-Key` (408, 409, 429, 5xx other than 501 and 505; after its
/// `Retry-After` when it gives one), and when a token or credentials could not be had because
/// their service could not be reached. A provider that refuses (nobody is signed in) fails the
/// mutation, as a refusal by the API would: its caller gets the error. Every attempt
/// carries the mutation's durable id as its `Idempotency-Key`, so that a server keeping the
/// first response per key applies a mutation replayed after a crash once.
///
/// Mutations found in the database when the client starts have no caller any more: their
/// outcomes go to `replayed`.
final class MutationQueue: Sendable {
    private struct State {
        var handlers: [String: any QueuedMutationHandler] = [:]
        var cancelled: Set<String> = []
        var inFlight: Set<String> = []
        /// When mutations that failed may be tried again, and whether to probe the network
        /// meanwhile.
        var backoff: [String: (until: ContinuousClock.Instant, probe: Bool)] = [:]
        /// When the network was last probed.
        var probed: ContinuousClock.Instant?
        /// How many mutations were settled and deleted: a look at the queue read before the
        /// last one may still hold it, and is read again.
        var settled = 0
    }

    /// What one look at the head of the queue decided.
    private struct Plan {
        /// Mutations to send now.
        var send: [QueuedMutation] = []
        /// Cancelled mutations to delete.
        var drop: [String] = []
        /// How long until a mutation waiting after a failure may be tried again.
        var wake: Duration?
        /// Whether one of those waits after a network failure.
        var probe = false
    }

    private enum Verdict {
        case refreshAndRetry
        case retry(after: Duration, probe: Bool)
        case drop
    }

    let store: OfflineMutationStore
    private let http: AppSyncHTTPClient
    private let cache: ApolloStore
    private let policy: MutationRetryPolicy
    private let ordering: MutationOrdering
    private let replayed: @Sendable (OfflineMutationResult) -> Void
    /// The device-health metrics; `nil` without a metrics backend.
    private let metrics: AppSyncClientMetrics?
    private let doorbell = Doorbell()
    /// Fires after each deletion from the store: see ``waitUntilEmpty()``.
    let deletions = WakeSignal()
    private let state = Mutex(State())
    private let task = Mutex<Task<Void, Never>?>(nil)

    init(
        store: OfflineMutationStore,
        http: AppSyncHTTPClient,
        cache: ApolloStore,
        policy: MutationRetryPolicy,
        ordering: MutationOrdering = .serial,
        metrics: AppSyncClientMetrics? = nil,
        replayed: @escaping @Sendable (OfflineMutationResult) -> Void
    ) {
        self.store = store
        self.http = http
        self.cache = cache
        self.policy = policy
        self.ordering = ordering
        self.metrics = metrics
        self.replayed = replayed
    }

    /// Starts sending the queued mutations.
    func start() {
        task.withLock { task in
            guard task == nil else { return }
            task = Task { await self.run() }
        }
        // What an earlier run left in the queue counts from the start.
        metrics?.queueChanged(store)
    }

    /// Stops sending; queued mutations stay in the database.
    func stop() {
        let running = task.withLock { task in
            defer { task = nil }
            return task
        }
        running?.cancel()
        doorbell.ring()
    }

    /// Queues a mutation for `handler`; it is on disk when this returns.
    ///
    /// - Throws: ``AWSAppSyncClientError`` (``AWSAppSyncClientError/Code/cache``) when it
    ///   cannot be written.
    func enqueue(
        id: String,
        operationName: String,
        requestBody: String,
        recordKey: String? = nil,
        selections: String? = nil,
        handler: any QueuedMutationHandler
    ) throws {
        state.withLock { $0.handlers[id] = handler }
        do {
            _ = try store.enqueue(
                id: id,
                operationName: operationName,
                requestBody: requestBody,
                recordKey: recordKey,
                selections: selections
            )
        } catch {
            state.withLock { _ = $0.handlers.removeValue(forKey: id) }
            throw AWSAppSyncClientError(
                .cache,
                "Cannot queue \(operationName) in the offline mutation queue: \(sentence: error) "
                    + "Check that the cache directory is writable and has space."
            )
        }
        metrics?.queueChanged(store)
        doorbell.ring()
    }

    /// Cancels the queued mutation `id`: it is deleted and its handler hears nothing more. One
    /// already sent may still be applied by the server.
    func cancel(_ id: String) {
        let (handler, inFlight) = state.withLock { state in
            state.cancelled.insert(id)
            return (state.handlers.removeValue(forKey: id), state.inFlight.contains(id))
        }
        if !inFlight {
            do {
                try store.delete(id)
            } catch {
                // The loop skips it all the same, and deletes it when it comes to it.
            }
            metrics?.queueChanged(store)
            deletions.fire()
        }
        handler?.cancelled()
    }

    /// Cancels every queued mutation and empties the queue.
    ///
    /// - Throws: ``AWSAppSyncClientError`` (``AWSAppSyncClientError/Code/cache``) when the
    ///   database cannot be written.
    func cancelAll() throws {
        let ids: [String]
        do {
            ids = try store.deleteAll()
        } catch {
            throw AWSAppSyncClientError(
                .cache,
                "Cannot clear the offline mutation queue: \(sentence: error) Check that the cache directory is writable."
            )
        }
        let handlers = state.withLock { state in
            ids.compactMap { id -> (any QueuedMutationHandler)? in
                state.cancelled.insert(id)
                return state.handlers.removeValue(forKey: id)
            }
        }
        metrics?.queueChanged(store)
        deletions.fire()
        for handler in handlers { handler.cancelled() }
    }

    /// Returns once the store holds no mutation: read again after each deletion, so it never
    /// returns while one is queued, in flight, or waiting to be tried again.
    ///
    /// - Throws: `CancellationError` when the task is cancelled; the store's error when it
    ///   cannot be read.
    func waitUntilEmpty() async throws {
        while true {
            try Task.checkCancellation()
            let generation = deletions.generation
            if try store.isEmpty() { return }
            await deletions.wait(after: generation)
        }
    }

    /// The network works again (another request of the client got an answer): a mutation
    /// waiting after a network failure is tried at once.
    func networkAvailable() {
        let waiting = state.withLock { state -> Bool in
            let probing = state.backoff.filter(\.value.probe).keys
            for id in probing { state.backoff[id] = nil }
            return !probing.isEmpty
        }
        if waiting { doorbell.ring() }
    }

    // MARK: - Sending

    private func run() async {
        await withDiscardingTaskGroup { group in
            if let metrics { group.addTask { await metrics.reportAges() } }
            while !Task.isCancelled {
                let settled = state.withLock { $0.settled }
                let window: [QueuedMutation]
                do {
                    window = try store.first(ordering.isPerRecord ? Self.window : 1)
                } catch {
                    await doorbell.wait(timeout: policy.probeInterval)
                    continue
                }
                let planned = state.withLock { state -> Plan? in
                    state.settled == settled ? plan(window, state: &state) : nil
                }
                guard let plan = planned else { continue }
                for id in plan.drop { finish(id) }
                for mutation in plan.send {
                    group.addTask {
                        await self.attempt(mutation)
                        self.doorbell.ring()
                    }
                }
                guard plan.drop.isEmpty else { continue }
                guard let wake = plan.wake else {
                    await doorbell.wait(timeout: nil)
                    continue
                }
                guard plan.probe, wake > policy.probeInterval else {
                    await doorbell.wait(timeout: wake)
                    continue
                }
                await doorbell.wait(timeout: policy.probeInterval)
                let due = state.withLock { state -> Bool in
                    guard state.probed.map({ .now - $0 >= policy.probeInterval }) ?? true else { return false }
                    state.probed = .now
                    return true
                }
                if due, !Task.isCancelled, await http.isReachable() { networkAvailable() }
            }
        }
    }

    /// Chooses what to send from the first mutations of the queue, marking them in flight.
    ///
    /// A mutation may go when no mutation before it that is still queued (in flight, waiting
    /// to be tried again, or not sent yet) writes its record, and none before it is sent
    /// alone. Serial ordering sends every mutation alone, so only the head goes, and only when
    /// nothing is in flight.
    private func plan(_ window: [QueuedMutation], state: inout State) -> Plan {
        var plan = Plan()
        let now = ContinuousClock.now
        var records: Set<String> = []
        var earlier = false
        for mutation in window {
            let inFlight = state.inFlight.contains(mutation.id)
            if !inFlight, state.cancelled.contains(mutation.id) {
                plan.drop.append(mutation.id)
                continue
            }
            let record = ordering.isPerRecord ? mutation.recordKey : nil
            if let record {
                guard records.insert(record).inserted else {
                    earlier = true
                    continue
                }
            } else if earlier {
                break
            }
            earlier = true
            if !inFlight {
                if let backoff = state.backoff[mutation.id], backoff.until > now {
                    let remaining = backoff.until - now
                    plan.wake = plan.wake.map { min($0, remaining) } ?? remaining
                    plan.probe = plan.probe || backoff.probe
                } else if state.inFlight.count < ordering.maxConcurrent {
                    state.backoff[mutation.id] = nil
                    state.inFlight.insert(mutation.id)
                    plan.send.append(mutation)
                }
            }
            if record == nil { break }
        }
        return plan
    }

    /// How many mutations from the head of the queue per-record ordering looks at.
    private static let window = 256

    /// Sends `mutation` (again after a 401 or a resolved conflict) and settles its outcome.
    private func attempt(_ mutation: QueuedMutation) async {
        var body = mutation.requestBody
        var key = mutation.id
        var refreshed = false
        var resent = false
        while true {
            do {
                let json = try await http.post(body: body, operationName: mutation.operationName, idempotencyKey: key)
                metrics?.mutationAnswered(json)
                let (handler, cancelled) = state.withLock {
                    ($0.handlers[mutation.id], $0.cancelled.contains(mutation.id))
                }
                var deliver: (@Sendable () -> Void)?
                if let handler {
                    switch await handler.handle(response: json) {
                    case .resend(let resend) where !resent:
                        resent = true
                        refreshed = false
                        body = resend
                        key = mutation.id + "-resend"
                        continue
                    case .resend:
                        break
                    case .done(let delivery):
                        deliver = delivery
                    }
                } else if !cancelled {
                    await replay(mutation, response: json, error: nil)
                }
                finish(mutation.id)
                deliver?()
                return
            } catch {
                let failure =
                    error as? AWSAppSyncClientError
                    ?? AWSAppSyncClientError(.requestFailed, "\(mutation.operationName) failed: \(sentence: error)")
                metrics?.mutationThrew(failure)
                switch verdict(failure, failures: mutation.attempts + 1, refreshed: refreshed) {
                case .refreshAndRetry:
                    // The token or credentials may have expired since they were fetched: the
                    // next attempt fetches them again.
                    refreshed = true
                    continue
                case .retry(let delay, let probe):
                    do {
                        try store.recordFailure(of: mutation.id, error: failure.message)
                    } catch {
                        // The count is informational; the mutation itself is still queued.
                    }
                    state.withLock { state in
                        state.inFlight.remove(mutation.id)
                        state.backoff[mutation.id] = (.now + delay, probe)
                    }
                    return
                case .drop:
                    let (handler, cancelled) = state.withLock {
                        ($0.handlers[mutation.id], $0.cancelled.contains(mutation.id))
                    }
                    var deliver: (@Sendable () -> Void)?
                    if let handler {
                        deliver = await handler.fail(failure)
                    } else if !cancelled {
                        await replay(mutation, response: nil, error: failure)
                    }
                    finish(mutation.id)
                    deliver?()
                    return
                }
            }
        }
    }

    /// What to do after a failed attempt, the `failures`-th of the mutation.
    ///
    /// The statuses retried are `RetryRule`'s, for a request with an `Idempotency-Key` (every
    /// queued mutation carries one): 408, 429, 5xx other than 501 and 505, and 409, which the
    /// server answers while the first request with the key still runs (its answer lost to a
    /// cut); the repeat gets the kept response once that one is done. On top of the rule, a
    /// first 401 is sent again with the token or credentials fetched anew.
    private func verdict(_ error: AWSAppSyncClientError, failures: Int, refreshed: Bool) -> Verdict {
        guard let status = error.statusCode else {
            return error.code == .requestFailed
                ? .retry(after: policy.delay(afterFailures: failures), probe: true) : .drop
        }
        if status == 401, !refreshed { return .refreshAndRetry }
        guard error.isRetryable else { return .drop }
        return .retry(after: error.retryAfter ?? policy.delay(afterFailures: failures), probe: false)
    }

    /// Deletes `id` from the queue once it is settled.
    private func finish(_ id: String) {
        do {
            try store.delete(id)
        } catch {
            // Left in the queue, it is sent again with the same Idempotency-Key.
        }
        state.withLock { state in
            state.handlers[id] = nil
            state.cancelled.remove(id)
            state.inFlight.remove(id)
            state.backoff[id] = nil
            state.settled += 1
        }
        metrics?.queueChanged(store)
        deletions.fire()
    }

    /// Reports the outcome of a mutation queued by an earlier run of the client, and writes its
    /// answer to the cache over its optimistic layer, committed or removed as a live
    /// mutation's is.
    private func replay(_ mutation: QueuedMutation, response: JSONValue?, error: AWSAppSyncClientError?) async {
        var data: Snapshot?
        var errors: [GraphQLError]?
        var failure = error
        if let body = response?.objectValue {
            data = body["data"]?.objectValue
            do {
                errors = try GraphQLError.appSyncErrors(body["errors"])
            } catch {
                failure = AWSAppSyncClientError(
                    .parseError,
                    "The response of \(mutation.operationName) has malformed errors: \(sentence: error)"
                )
            }
        }
        do {
            if let data, let stored = mutation.selections {
                try cache.publish(
                    mutationData: data,
                    selections: try StoredSelections.selections(from: stored),
                    endingLayer: mutation.id,
                    failure == nil ? LayerEnding(data: data, errors: errors) : .remove
                )
            } else {
                try cache.removeLayer(mutation.id)
            }
        } catch {
            failure =
                failure
                ?? (error as? AWSAppSyncClientError)
                ?? AWSAppSyncClientError(
                    .cache,
                    "The answer to the replayed \(mutation.operationName) cannot be written to the cache: "
                        + "\(sentence: error) Fetch the queries that read its records again."
                )
        }
        var operationString = ""
        do {
            operationString = try mutation.operationString()
        } catch {
            failure =
                failure
                ?? AWSAppSyncClientError(
                    .cache,
                    "The queued request of \(mutation.operationName) is not JSON: \(sentence: error) Clear the queue."
                )
        }
        replayed(
            OfflineMutationResult(
                recordIdentifier: mutation.id,
                operationName: mutation.operationName,
                operationString: operationString,
                snapshot: data,
                errors: errors,
                error: failure
            )
        )
    }
}
