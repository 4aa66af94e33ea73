import AWSPluginsCore
import Amplify
import Foundation

extension SyncEngine {
    /// What the subscriptions deliver, merged.
    enum Incoming: Sendable {
        case connection(Int, SubscriptionConnectionState)
        case item(String, JSONValue)
        case failed(Int, String)
        case unreadable(String)
    }

    /// Runs subscription sessions until the engine stops: each lives until a subscription
    /// fails for good, and the next starts after a backoff.
    func runSessions() async {
        var failures = 0
        while !Task.isCancelled {
            // Signed out or expired: nothing to sync as nobody; a sign-in starts sync again.
            if await awaitsUser() {
                await Self.pause(for: .seconds(1))
                continue
            }
            let ended = await runSession()
            if Task.isCancelled { return }
            failures = ended ? 0 : failures + 1
            await Self.pause(for: Self.backoff(attempt: max(failures, 1)))
        }
    }

    /// Waits `duration`, or until the task is cancelled: every caller checks
    /// `Task.isCancelled` next.
    private static func pause(for duration: Duration) async {
        // `Task.sleep` throws only `CancellationError`, which the callers see as `Task.isCancelled`.
        try? await Task.sleep(for: duration)
    }

    /// One session: subscribe, sync, apply, and keep applying until the engine stops or a
    /// subscription ends. Returns whether it ever became ready.
    func runSession() async -> Bool {
        let (stream, continuation) = AsyncStream.makeStream(of: Incoming.self)
        let pumps = subscribe(continuation)
        defer {
            for pump in pumps { pump.cancel() }
            continuation.finish()
        }
        var session = SubscriptionSession(subscriptions: pumps.count)
        for await incoming in stream {
            if Task.isCancelled { break }
            await receive(incoming, &session)
            guard session.needsSync, session.allSettled else { continue }
            // An acknowledged subscription shows the backend can be reached; when none could be
            // established, the sync queries show it.
            if session.hasConnection {
                setNetwork(active: true)
                storage.metrics?.subscriptionsEstablished()
            }
            dispatch(HubPayload.EventName.DataStore.subscriptionsEstablished)
            guard await catchUp(applying: session.held) else { break }
            session.ready()
        }
        return session.becameReady
    }

    /// Handles one thing the subscriptions delivered: a connection's state, a record (held
    /// while the session needs a sync query, applied otherwise), or a failure.
    private func receive(_ incoming: Incoming, _ session: inout SubscriptionSession) async {
        switch incoming {
        case .connection(let id, let connectionState):
            if session.connection(id, connectionState) == .lost {
                // What changed while the connection was down comes with the next sync query.
                setNetwork(active: false)
            }
        case .item(let name, let item):
            if session.needsSync {
                session.held.append((name, item))
            } else {
                await apply(item, modelName: name)
            }
        case .unreadable(let problem):
            report(DataStoreError(.sync, "DataStore skipped a subscription event: \(problem)"))
        case .failed(let id, let problem):
            // A subscription the backend refuses for good (a model without subscriptions, an
            // auth rule the mode does not meet) is left out; the others carry on.
            if session.leaveOut(id) {
                storage.log(
                    .init(
                        level: .warning,
                        message: "DataStore syncs without one subscription: \(problem). Changes made elsewhere "
                            + "to that model arrive with the next sync query instead; check the API's "
                            + "authorization modes and the model's @auth rules and subscriptions if it should work."
                    )
                )
            }
        }
    }

    /// Catches up once every subscription is settled: runs the sync queries until they end,
    /// applies the records `held` meanwhile, and opens the outbox. Returns `false` when the
    /// engine stopped first.
    private func catchUp(applying held: [(String, JSONValue)]) async -> Bool {
        var attempt = 0
        while !Task.isCancelled {
            do {
                try await syncQueries()
                break
            } catch {
                attempt += 1
                setNetwork(active: false)
                if !Self.isRetryable(error, sentWithIdempotencyKey: false), await !awaitsUser() {
                    report("DataStore's sync query failed", error)
                }
                await Self.pause(for: Self.backoff(attempt: attempt))
            }
        }
        if Task.isCancelled { return false }
        setNetwork(active: true)
        for (name, item) in held { await apply(item, modelName: name) }
        let firstReady = state.withLock { state in
            defer { state.sentReady = true }
            state.outboxOpen = true
            return !state.sentReady
        }
        if firstReady { dispatch(HubPayload.EventName.DataStore.ready) }
        outboxSignal.fire()
        return true
    }

    /// Subscribes to every model's `onCreate`, `onUpdate` and `onDelete`, each in a task that
    /// yields what it delivers to `continuation`; returns the tasks, one per subscription.
    private func subscribe(_ continuation: AsyncStream<Incoming>.Continuation) -> [Task<Void, Never>] {
        var pumps: [Task<Void, Never>] = []
        for name in modelNames {
            guard let table = storage.catalog.tables[name] else { continue }
            let modes = table.schema.authModes(for: .read, strategy: configuration.authModeStrategy)
            for type in GraphQLSubscriptionType.allCases {
                let request = GraphQLRequest<JSONValue>.syncSubscription(modelSchema: table.schema, type: type)
                let subscription = Subscription(id: pumps.count, modelName: name, type: type, request: request)
                let api = api
                pumps.append(Task { await subscription.pump(api: api, modes: modes, into: continuation) })
            }
        }
        return pumps
    }

    /// Applies a record a subscription delivered, and tells the hub. A record outside the
    /// model's sync expression is left out, as the sync queries leave it out; a deletion is
    /// always applied (it only removes what the store holds).
    func apply(_ item: JSONValue, modelName: String) async {
        if let expression = configuration.syncExpressions.first(where: { $0.modelSchema.name == modelName }),
            let schema = storage.catalog.tables[modelName]?.schema,
            item["_deleted"]?.booleanValue != true
        {
            do {
                guard try expression.modelPredicate().evaluate(target: item, schema: schema) else { return }
            } catch {
                report(
                    "DataStore could not check a \(modelName) from a subscription against its sync expression",
                    error
                )
                return
            }
        }
        if holdWhileInFlight(item, modelName: modelName) { return }
        do {
            let result = try await storage.reconcile([item], modelName: modelName)
            for refused in result.refused { report(refused) }
            for event in result.applied { dispatch(HubPayload.EventName.DataStore.syncReceived, event) }
            storage.metrics?.applied(item, of: modelName)
        } catch {
            report("DataStore could not apply a \(modelName) from a subscription", error)
        }
    }
}

/// One model's subscription to one kind of change.
private struct Subscription: Sendable {
    let id: Int
    let modelName: String
    let type: GraphQLSubscriptionType
    let request: GraphQLRequest<JSONValue>

    /// Subscribes with each mode in turn while the backend ends or refuses the subscription,
    /// yielding what it delivers; yields ``SyncEngine/Incoming/failed(_:_:)`` once every mode
    /// was refused.
    func pump(
        api: any APICategory,
        modes: [AWSAuthorizationType?],
        into continuation: AsyncStream<SyncEngine.Incoming>.Continuation
    ) async {
        var refusals: [String] = []
        for mode in modes {
            var attempt = request
            attempt.authMode = mode
            let sequence = api.subscribe(request: attempt)
            do {
                try await withTaskCancellationHandler {
                    for try await event in sequence {
                        continuation.yield(incoming(event))
                    }
                } onCancel: {
                    sequence.cancel()
                }
                if Task.isCancelled { return }
                refusals.append("the subscription to \(type.rawValue)\(modelName) ended")
            } catch {
                refusals.append("the subscription to \(type.rawValue)\(modelName) failed: \(error)")
            }
        }
        continuation.yield(.failed(id, refusals.joined(separator: "; ")))
    }

    private func incoming(_ event: GraphQLSubscriptionEvent<JSONValue>) -> SyncEngine.Incoming {
        switch event {
        case .connection(let state): .connection(id, state)
        case .data(.success(let item)): .item(modelName, item)
        case .data(.failure(let error)): .unreadable("an event of \(modelName) could not be read: \(error)")
        }
    }
}
