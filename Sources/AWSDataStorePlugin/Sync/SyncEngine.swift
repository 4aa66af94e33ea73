import AWSPluginsCore
import AWSWire
import Amplify
import Foundation
import Synchronization

/// DataStore's sync with an AppSync backend, through the API category.
///
/// Per model it subscribes to `onCreate`, `onUpdate` and `onDelete` (one shared real-time
/// connection), holding the events back; once every subscription is established it runs the
/// sync queries, parents before children (a delta sync from `lastSync` when the last one is
/// recent enough and the sync expression is unchanged, a base sync otherwise), applies the held
/// events, and lets the outbox drain. When a subscription drops it reports the network as
/// inactive, and once they are all back it syncs what changed meanwhile and drains the outbox
/// again.
///
/// The outbox sends the oldest event of each record, up to ``DataStoreConfiguration/outboxConcurrency``
/// records at once, each with its event's id as `Idempotency-Key`; network failures are
/// retried with jittered backoff (at once when the network comes back), and nothing is removed
/// from the outbox before the backend answered it.
final class SyncEngine: Sendable {
    let storage: StorageEngine
    let api: any APICategory
    let hub: HubCategory
    let configuration: DataStoreConfiguration
    /// The models in sync order: every parent before its children.
    let modelNames: [String]
    /// Whether a user is signed in with valid tokens, when the models need one; sync waits
    /// for one, and a request refused for want of one waits rather than failing.
    let hasSignedInUser: (@Sendable () async -> Bool)?

    private struct State {
        var tasks: [Task<Void, Never>] = []
        var networkActive: Bool?
        var sentReady = false
        /// Whether the outbox may send: the sync queries ended and the network is up.
        var outboxOpen = false
        /// The records with an event in flight: sent, or accepted and not settled yet.
        var inFlight: Set<String> = []
        /// The events the backend accepted, for the outbox loop to settle.
        var accepted: [AcceptedEvent] = []
        /// The events taken and not sent yet, oldest first; their records are in flight.
        var ready: [TakenEvent] = []
        /// The latest record a subscription delivered for each record in flight, held until
        /// the event's answer: see ``SyncEngine/holdWhileInFlight(_:modelName:)``.
        var echoes: [String: HeldEcho] = [:]
        /// How many senders run: at most ``DataStoreConfiguration/outboxConcurrency``.
        var senders = 0
        /// How many events the senders ended since the last round without an answer for the
        /// loop to settle (refused, resolved as the backend's record, stopped).
        var endedBySenders = 0
        var localListener: Int?

        /// Whether nothing of the outbox is held in memory: no event taken and not sent, in
        /// flight, or answered and not settled.
        var isIdle: Bool { inFlight.isEmpty && ready.isEmpty && accepted.isEmpty }

        /// Counts the senders to start now, while the outbox is open: one per ready event, up to
        /// `concurrency` running.
        mutating func claimSenders(concurrency: Int) -> Int {
            let claimed = outboxOpen ? min(concurrency - senders, ready.count) : 0
            senders += claimed
            return claimed
        }

        /// Removes the held records of `keys` and returns them.
        mutating func takeEchoes(_ keys: Set<String>) -> [String: HeldEcho] {
            var taken: [String: HeldEcho] = [:]
            for key in keys {
                if let echo = echoes.removeValue(forKey: key) { taken[key] = echo }
            }
            return taken
        }
    }
    private let state = Mutex(State())
    /// Fires when the outbox has work: a new event, a finished send, the network back.
    let outboxSignal = WakeSignal()
    /// Tells the hub `outboxStatus`.
    let outboxStatus: OutboxStatusReporter

    init(
        storage: StorageEngine,
        api: any APICategory,
        hub: HubCategory,
        configuration: DataStoreConfiguration,
        hasSignedInUser: (@Sendable () async -> Bool)? = nil
    ) {
        self.storage = storage
        self.api = api
        self.hub = hub
        self.outboxStatus = OutboxStatusReporter(hub: hub)
        self.configuration = configuration
        self.modelNames = Self.syncOrder(storage.catalog)
        self.hasSignedInUser = hasSignedInUser
    }

    /// Whether sync waits for a user to sign in: the models need one and nobody is signed in
    /// with valid tokens.
    func awaitsUser() async -> Bool {
        guard let hasSignedInUser else { return false }
        return await !hasSignedInUser()
    }

    /// The models with every parent (belongsTo target) before its children.
    static func syncOrder(_ catalog: ModelCatalog) -> [String] {
        var ordered: [String] = []
        var visited: Set<String> = []
        func visit(_ name: String, _ path: Set<String>) {
            guard !visited.contains(name), !path.contains(name), let table = catalog.tables[name] else { return }
            for foreignKey in table.foreignKeys where foreignKey.parentTable != name {
                visit(foreignKey.parentTable, path.union([name]))
            }
            if visited.insert(name).inserted { ordered.append(name) }
        }
        for name in catalog.modelNames { visit(name, []) }
        return ordered
    }

    // MARK: - Lifecycle

    /// Starts syncing.
    func start() {
        storage.syncStatus.begin()
        storage.outboxListener.withLock { listener in
            listener = OutboxListener { [weak self] change in self?.enqueued(change) }
        }
        let session = Task { await self.runSessions() }
        let outbox = Task { await self.runOutbox() }
        state.withLock { $0.tasks = [session, outbox] }
    }

    /// Stops syncing and waits until nothing is in flight.
    func stop() async {
        storage.outboxListener.withLock { $0 = nil }
        let tasks = state.withLock { state in
            defer { state.tasks = [] }
            return state.tasks
        }
        for task in tasks { task.cancel() }
        outboxSignal.fire()
        for task in tasks { await task.value }
        // Accepted events not settled yet stay in the outbox, and are sent again under their keys.
        state.withLock { state in
            state.accepted = []
            state.ready = []
            state.senders = 0
            state.endedBySenders = 0
            state.inFlight = []
            // What the subscriptions delivered meanwhile comes again with the next sync query.
            state.echoes = [:]
        }
        storage.syncStatus.end()
    }

    // MARK: - Hub

    private func dispatch(_ eventName: String, _ data: (any Sendable)? = nil) {
        hub.dispatch(to: .dataStore, payload: HubPayload(eventName: eventName, data: data))
    }

    private func setNetwork(active: Bool) {
        let changed = state.withLock { state -> Bool in
            guard state.networkActive != active else { return false }
            state.networkActive = active
            if !active { state.outboxOpen = false }
            return true
        }
        if changed { dispatch(HubPayload.EventName.DataStore.networkStatus, NetworkStatusEvent(active: active)) }
    }

    /// Reports `error` as "`message`: `error`", unless it is the cancellation of the engine's
    /// own tasks by `stop()`, which is not a failure: what was being done stays to be done.
    func report(_ message: String, _ error: any Error) {
        // Errors while the engine's own task is being cancelled come from stop(): the storage
        // calls turn the cancellation into a DataStoreError, so the task says it, not the error.
        if Self.isCancellation(error) || Task.isCancelled { return }
        report(DataStoreError(.sync, "\(message): \(error)"))
    }

    private static func isCancellation(_ error: any Error) -> Bool {
        if error is CancellationError { return true }
        if case .networkError(_, let underlying)? = error as? APIError { return isCancellation(underlying) }
        return false
    }

    /// Reports an error no caller can be told of.
    func report(_ error: DataStoreError) {
        if let handler = configuration.errorHandler {
            handler(error)
        } else {
            storage.log(.init(level: .error, message: error.message))
        }
    }

    // MARK: - Subscriptions and sync queries

    /// What the subscriptions deliver, merged.
    private enum Incoming: Sendable {
        case connection(Int, SubscriptionConnectionState)
        case item(String, JSONValue)
        case failed(Int, String)
        case unreadable(String)
    }

    /// Runs subscription sessions until the engine stops: each lives until a subscription
    /// fails for good, and the next starts after a backoff.
    private func runSessions() async {
        var failures = 0
        while !Task.isCancelled {
            // Signed out or expired: nothing to sync as nobody; a sign-in starts sync again.
            if await awaitsUser() {
                try? await Task.sleep(for: .seconds(1))
                continue
            }
            let ended = await runSession()
            if Task.isCancelled { return }
            failures = ended ? 0 : failures + 1
            try? await Task.sleep(for: Self.backoff(attempt: max(failures, 1)))
        }
    }

    /// One session: subscribe, sync, apply, and keep applying until the engine stops or a
    /// subscription ends. Returns whether it ever became ready.
    private func runSession() async -> Bool {
        let (stream, continuation) = AsyncStream.makeStream(of: Incoming.self)
        var pumps: [Task<Void, Never>] = []
        var index = 0
        for name in modelNames {
            guard let table = storage.catalog.tables[name] else { continue }
            for type in GraphQLSubscriptionType.allCases {
                let request = GraphQLRequest<JSONValue>.syncSubscription(modelSchema: table.schema, type: type)
                let modes = table.schema.authModes(for: .read, strategy: configuration.authModeStrategy)
                let id = index
                index += 1
                let api = api
                pumps.append(
                    Task {
                        var refusals: [String] = []
                        for mode in modes {
                            var attempt = request
                            attempt.authMode = mode
                            let sequence = api.subscribe(request: attempt)
                            do {
                                try await withTaskCancellationHandler {
                                    for try await event in sequence {
                                        switch event {
                                        case .connection(let state): continuation.yield(.connection(id, state))
                                        case .data(.success(let item)): continuation.yield(.item(name, item))
                                        case .data(.failure(let error)):
                                            continuation.yield(
                                                .unreadable("an event of \(name) could not be read: \(error)")
                                            )
                                        }
                                    }
                                } onCancel: {
                                    sequence.cancel()
                                }
                                if Task.isCancelled { return }
                                refusals.append("the subscription to \(type.rawValue)\(name) ended")
                            } catch {
                                refusals.append("the subscription to \(type.rawValue)\(name) failed: \(error)")
                            }
                        }
                        continuation.yield(.failed(id, refusals.joined(separator: "; ")))
                    }
                )
            }
        }
        defer {
            for pump in pumps { pump.cancel() }
            continuation.finish()
        }
        var connected = Set<Int>()
        var unavailable = Set<Int>()
        var needsSync = true
        var becameReady = false
        var held: [(String, JSONValue)] = []
        for await incoming in stream {
            if Task.isCancelled { break }
            switch incoming {
            case .connection(let id, .connected):
                connected.insert(id)
            case .connection(let id, .connecting):
                connected.remove(id)
            case .connection(let id, .disconnected):
                // What changed while the connection was down comes with the next sync query.
                connected.remove(id)
                needsSync = true
                setNetwork(active: false)
            case .item(let name, let item):
                if needsSync {
                    held.append((name, item))
                } else {
                    await apply(item, modelName: name)
                }
            case .unreadable(let problem):
                report(DataStoreError(.sync, "DataStore skipped a subscription event: \(problem)"))
            case .failed(let id, let problem):
                // A subscription the backend refuses for good (a model without subscriptions, an
                // auth rule the mode does not meet) is left out; the others carry on.
                if unavailable.insert(id).inserted {
                    connected.remove(id)
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
            guard needsSync, connected.count + unavailable.count == index else { continue }
            // An acknowledged subscription shows the backend can be reached; when none could be
            // established, the sync queries show it.
            if !connected.isEmpty { setNetwork(active: true) }
            dispatch(HubPayload.EventName.DataStore.subscriptionsEstablished)
            var attempt = 0
            while !Task.isCancelled {
                do {
                    try await syncQueries()
                    break
                } catch {
                    attempt += 1
                    setNetwork(active: false)
                    if !Self.isRetryable(error), await !awaitsUser() {
                        report("DataStore's sync query failed", error)
                    }
                    try? await Task.sleep(for: Self.backoff(attempt: attempt))
                }
            }
            if Task.isCancelled { break }
            setNetwork(active: true)
            for (name, item) in held { await apply(item, modelName: name) }
            held = []
            needsSync = false
            becameReady = true
            let firstReady = state.withLock { state in
                defer { state.sentReady = true }
                state.outboxOpen = true
                return !state.sentReady
            }
            if firstReady { dispatch(HubPayload.EventName.DataStore.ready) }
            outboxSignal.fire()
        }
        return becameReady
    }

    /// Applies a record a subscription delivered, and tells the hub. A record outside the
    /// model's sync expression is left out, as the sync queries leave it out; a deletion is
    /// always applied (it only removes what the store holds).
    private func apply(_ item: JSONValue, modelName: String) async {
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
        } catch {
            report("DataStore could not apply a \(modelName) from a subscription", error)
        }
    }

    /// A record a subscription delivered while the same record had an outbox event in flight.
    struct HeldEcho: Sendable {
        let modelName: String
        let item: JSONValue
    }

    /// Holds `item` when its record has an outbox event in flight, and says whether it did.
    ///
    /// Such a record is most often the event's own write coming back, and the event's answer
    /// carries the same record: writing it to the store on its own (where it would wait for
    /// the answer, see ``StorageEngine/reconcile(_:table:_:_:)``) would cost a transaction per
    /// sent event. Only the latest one is held; once the event is answered,
    /// ``release(_:answered:)`` drops it when the answer is as new, and applies it otherwise.
    private func holdWhileInFlight(_ item: JSONValue, modelName: String) -> Bool {
        // A record without a readable identifier goes to the store, which reports it.
        guard let table = storage.catalog.tables[modelName], let identifier = try? table.identifier(of: item) else {
            return false
        }
        let key = Outbox.recordKey(modelName, identifier)
        return state.withLock { state in
            guard state.inFlight.contains(key) else { return false }
            if let held = state.echoes[key], let heldVersion = held.item["_version"]?.intValue,
                let version = item["_version"]?.intValue, version < heldVersion
            {
                return true
            }
            state.echoes[key] = HeldEcho(modelName: modelName, item: item)
            return true
        }
    }

    /// Applies the records held for records no longer in flight, unless the answer of their
    /// event (`answered`, by record key) has them already: a `_version` as high or higher.
    private func release(_ echoes: [String: HeldEcho], answered: [String: JSONValue] = [:]) async {
        for (key, echo) in echoes {
            if let version = echo.item["_version"]?.intValue,
                let answer = answered[key]?["_version"]?.intValue, version <= answer
            {
                continue
            }
            await apply(echo.item, modelName: echo.modelName)
        }
    }

    /// Runs every model's sync query, in sync order.
    private func syncQueries() async throws {
        dispatch(HubPayload.EventName.DataStore.syncQueriesStarted, SyncQueriesStartedEvent(models: modelNames))
        for name in modelNames {
            try Task.checkCancellation()
            let event: ModelSyncedEvent
            do {
                event = try await syncModel(name)
            } catch let refused as SyncQueryRefused {
                report(refused.error)
                continue
            }
            storage.syncStatus.markSynced(name)
            storage.hub.publishSynced(modelName: name)
            dispatch(HubPayload.EventName.DataStore.modelSynced, event)
        }
        dispatch(HubPayload.EventName.DataStore.syncQueriesReady)
    }

    /// Syncs one model: a delta sync when the last sync is recent and used the same
    /// expression, a base sync otherwise.
    func syncModel(_ name: String) async throws -> ModelSyncedEvent {
        guard let table = storage.catalog.tables[name] else {
            return ModelSyncedEvent(
                modelName: name,
                isFullSync: false,
                isDeltaSync: false,
                added: 0,
                updated: 0,
                deleted: 0
            )
        }
        let filter = configuration.syncExpressions.first { $0.modelSchema.name == name }
            .flatMap { $0.modelPredicate().graphQLFilter(for: table.schema) }
        let expression = try filter.map { try CanonicalJSON.text(of: $0) }
        let stored = try await storage.lastSync(of: name)
        let now = Int(Date().timeIntervalSince1970 * 1000)
        let isDelta =
            stored.lastSync.map { now - $0 < Int(configuration.syncInterval * 1000) } == true
            && stored.expression == expression
        let lastSync = isDelta ? stored.lastSync : nil
        let readModes = table.schema.authModes(for: .read, strategy: configuration.authModeStrategy)
        var nextToken: String?
        var startedAt: Int?
        var fetched = 0
        var counts = ModelSyncCounts()
        repeat {
            let limit = max(1, min(configuration.syncPageSize, configuration.syncMaxRecords - fetched))
            let request = GraphQLRequest<JSONValue>.syncQuery(
                modelSchema: table.schema,
                filter: filter,
                limit: limit,
                nextToken: nextToken,
                lastSync: lastSync
            )
            let page: JSONValue
            let response: GraphQLResponse<JSONValue>
            do {
                response = try await send(request, modes: readModes, mutation: false)
            } catch {
                // Retried as a whole: a network failure, or a user who signed out meanwhile.
                if Self.isRetryable(error) { throw error }
                if await awaitsUser() { throw error }
                response = .failure(.unknown("\(error)", "", error))
            }
            switch response {
            case .success(let value):
                page = value
            case .failure(let error):
                throw SyncQueryRefused(
                    error: DataStoreError(
                        .sync,
                        "The backend refused the sync query of \(name): \(error) Its records are not synced; check "
                            + "the API's authorization modes against the model's @auth rules (or set "
                            + "DataStoreConfiguration.authModeStrategy to .multiAuth)."
                    )
                )
            }
            let items = page["items"]?.arrayValue ?? []
            nextToken = page["nextToken"]?.stringValue
            startedAt = startedAt ?? page["startedAt"]?.intValue
            fetched += items.count
            let result = try await storage.reconcile(items, modelName: name)
            for refused in result.refused { report(refused) }
            counts.add(result.applied, of: name)
        } while nextToken != nil && fetched < configuration.syncMaxRecords && !Task.isCancelled
        try await storage.setLastSync(of: name, startedAt ?? stored.lastSync, expression: expression)
        return ModelSyncedEvent(
            modelName: name,
            isFullSync: !isDelta,
            isDeltaSync: isDelta,
            added: counts.added,
            updated: counts.updated,
            deleted: counts.deleted
        )
    }

    /// A model's sync query the backend refused for good: the other models sync on.
    struct SyncQueryRefused: Error {
        let error: DataStoreError
    }

    // MARK: - Outbox

    /// A local change was committed: tell the hub of the events it put in the outbox and of the
    /// outbox's status (not empty, unless the change only cancelled an unsent event), and wake
    /// the outbox. Called on the writer's queue as the change commits, before its save returns.
    private func enqueued(_ change: OutboxChange) {
        // Decoding each saved model for the payload is wasted work when nothing listens.
        if hub.hasListeners(on: .dataStore, eventName: HubPayload.EventName.DataStore.outboxMutationEnqueued) {
            for event in change.enqueued {
                if let model = try? event.decodeModel() {
                    dispatch(
                        HubPayload.EventName.DataStore.outboxMutationEnqueued,
                        OutboxMutationEvent(
                            modelName: event.modelName,
                            element: .init(
                                model: model,
                                version: event.version,
                                deleted: event.mutationType == "delete"
                            )
                        )
                    )
                }
            }
        }
        // As Amplify does, each enqueue says the outbox is not empty.
        outboxStatus.report(
            change.snapshot,
            idle: state.withLock { $0.isIdle },
            always: !change.enqueued.isEmpty
        )
        outboxSignal.fire()
        // A change merged away (a create and a delete) leaves the backend's record, if it sent
        // one. Only a delete merges an event away.
        let deletions = change.events.filter { $0.mutationType == "delete" }
        guard !deletions.isEmpty else { return }
        Task {
            do {
                let result = try await storage.applyDeferred(after: deletions)
                for event in result.applied { dispatch(HubPayload.EventName.DataStore.syncReceived, event) }
            } catch {
                report("DataStore could not apply a record the backend sent", error)
            }
        }
    }

    /// Sends the outbox while the engine runs.
    ///
    /// This loop alone writes the outbox's bookkeeping: each round settles the events the
    /// backend accepted since the last one and takes the events to send next, in one
    /// transaction (``StorageEngine/outboxRound(settling:take:excluding:)``); the sends only
    /// talk to the backend. An accepted event keeps its record in flight until it is settled,
    /// so a record never has two events in flight.
    ///
    /// The rounds take up to twice ``DataStoreConfiguration/outboxConcurrency`` events ahead,
    /// and at most that many senders run: a sender whose send ends starts the next taken event
    /// at once, while the loop settles the answer, instead of leaving its slot empty until the
    /// next round commits.
    private func runOutbox() async {
        let concurrency = max(1, configuration.outboxConcurrency)
        await reportStartStatus()
        await withDiscardingTaskGroup { group in
            while !Task.isCancelled {
                let generation = outboxSignal.generation
                let (open, inFlight, accepted, ended, senders) = state.withLock { state in
                    defer {
                        state.accepted = []
                        state.endedBySenders = 0
                    }
                    let senders = state.claimSenders(concurrency: concurrency)
                    return (state.outboxOpen, state.inFlight, state.accepted, state.endedBySenders, senders)
                }
                for _ in 0..<senders { group.addTask { await self.sendReady() } }
                let settling = Set(accepted.map { Outbox.recordKey($0.event.modelName, $0.event.modelId) })
                let busy = inFlight.subtracting(settling)
                let room = open ? 2 * concurrency - busy.count : 0
                // Events ended by senders get a round too, for the status after them.
                guard room > 0 || !accepted.isEmpty || ended > 0 else {
                    await outboxSignal.wait(after: generation)
                    continue
                }
                let round: OutboxRound
                do {
                    round = try await storage.outboxRound(settling: accepted, take: max(0, room), excluding: busy)
                } catch {
                    // The accepted events stay in the outbox: they are sent again under their keys,
                    // and a backend that honours the keys answers them without applying them twice.
                    let echoes = state.withLock { state in
                        state.inFlight.subtract(settling)
                        state.endedBySenders += ended
                        return state.takeEchoes(settling)
                    }
                    report("DataStore could not update its outbox", error)
                    await release(echoes)
                    await outboxSignal.wait(after: generation, timeout: .seconds(5))
                    continue
                }
                let (idle, started, echoes) = state.withLock { state in
                    state.inFlight.subtract(settling)
                    for taken in round.taken {
                        state.inFlight.insert(Outbox.recordKey(taken.event.modelName, taken.event.modelId))
                    }
                    state.ready += round.taken
                    // A record taken again keeps its held record for the next answer, newer still.
                    let echoes = state.takeEchoes(settling.subtracting(state.inFlight))
                    return (state.isIdle, state.claimSenders(concurrency: concurrency), echoes)
                }
                for _ in 0..<started { group.addTask { await self.sendReady() } }
                settled(accepted, round.settled)
                // As Amplify does, each time events finished processing the status is told again;
                // otherwise only when it changed. A local change committed since the round has
                // told a later status, and this one is dropped.
                outboxStatus.report(round.snapshot, idle: idle, always: !accepted.isEmpty || ended > 0)
                if !echoes.isEmpty {
                    // An answer the round could not settle is sent again and answered the same.
                    let answered = Dictionary(
                        accepted.map { (Outbox.recordKey($0.event.modelName, $0.event.modelId), $0.item) },
                        uniquingKeysWith: { _, last in last }
                    )
                    await release(echoes, answered: answered)
                }
                await outboxSignal.wait(after: generation)
            }
            group.cancelAll()
        }
    }

    /// Tells the hub the outbox's status as sync starts, as Amplify does.
    private func reportStartStatus() async {
        do {
            let snapshot = try await storage.outboxSnapshot()
            outboxStatus.report(snapshot, idle: state.withLock { $0.isIdle }, always: true)
        } catch {
            report("DataStore could not read its outbox", error)
        }
    }

    /// One sender: sends the taken events, oldest first, until none is left or the outbox
    /// closes, then leaves its slot. An accepted event stays in flight until the loop settles it.
    private func sendReady() async {
        while true {
            let next = state.withLock { state -> TakenEvent? in
                guard state.outboxOpen, !state.ready.isEmpty, !Task.isCancelled else {
                    state.senders -= 1
                    return nil
                }
                return state.ready.removeFirst()
            }
            guard let next else { return }
            if await !send(next) {
                let key = Outbox.recordKey(next.event.modelName, next.event.modelId)
                let echoes = state.withLock { state in
                    state.inFlight.remove(key)
                    state.endedBySenders += 1
                    return state.takeEchoes([key])
                }
                await release(echoes)
            }
            outboxSignal.fire()
        }
    }

    /// Tells the hub of the accepted events a round settled, and reports those it could not.
    private func settled(_ accepted: [AcceptedEvent], _ outcomes: [Result<ReconcileResult, DataStoreError>]) {
        let processed = HubPayload.EventName.DataStore.outboxMutationProcessed
        // Decoding each record for the payload is wasted work when nothing listens.
        let heard = hub.hasListeners(on: .dataStore, eventName: processed)
        for (accepted, outcome) in zip(accepted, outcomes) {
            switch outcome {
            case .success:
                if heard { dispatch(processed, outboxEvent(accepted.event.modelName, accepted.item)) }
            case .failure(let error):
                report("DataStore could not settle the outbox event '\(accepted.event.id)'", error)
            }
        }
    }

    /// What the backend answered to an outbox event.
    private enum Answer {
        case accepted(JSONValue)
        case conflict(JSONValue)
        case conditionFailed(String)
        case refused(String)
        case answerLost
    }

    /// Sends one event until the backend answers it. An accepted event goes to the outbox loop
    /// to be settled, and the call returns `true`: the record stays in flight until then. Any
    /// other answer is settled here, and the call returns `false`.
    private func send(_ taken: TakenEvent) async -> Bool {
        let event = taken.event
        guard let table = storage.catalog.tables[event.modelName] else { return false }
        var json: [String: JSONValue]
        var condition: JSONValue?
        var version: Int?
        do {
            guard case .object(let members) = try JSONValue(parsing: event.json) else {
                throw DataStoreError(.invalidDatabase, "it is not a JSON object")
            }
            json = members
            condition = try event.graphQLFilterJSON.map { try JSONValue(parsing: $0) }
            version = [taken.version, event.version].compactMap { $0 }.max()
        } catch {
            report(
                DataStoreError(.sync, "The outbox event '\(event.id)' of \(event.modelName) cannot be sent: \(error)")
            )
            return false
        }
        var key = event.id
        for round in 0..<4 {
            let request = Self.mutation(table, event.mutationType, json, version, condition, key: key)
            let operation: ModelOperation =
                switch event.mutationType {
                case "create": .create
                case "delete": .delete
                default: .update
                }
            let modes = table.schema.authModes(for: operation, strategy: configuration.authModeStrategy)
            guard let answer = await deliver(request, modes: modes) else { return false }
            do {
                switch answer {
                case .accepted(let item):
                    state.withLock { $0.accepted.append(AcceptedEvent(event: event, item: item)) }
                    return true
                case .conflict(let remote):
                    // A record deleted on the backend cannot be changed: the deletion wins, as
                    // in Amplify, without asking the handler.
                    let resolution =
                        remote["_deleted"]?.booleanValue == true
                        ? .applyRemote : await resolveConflict(event, local: json, remote: remote)
                    let remoteVersion = remote["_version"]?.intValue
                    switch resolution {
                    case .applyRemote, .none:
                        _ = try await storage.finish(event, item: remote, force: true)
                        return false
                    case .retryLocal:
                        break
                    case .retry(let model):
                        guard case .object(let members) = try model.jsonValue() else { return false }
                        json = members
                    }
                    version = remoteVersion ?? version
                    key = "\(event.id).\(round + 1)"
                case .conditionFailed(let message):
                    dispatch(
                        HubPayload.EventName.DataStore.conditionalSaveFailed,
                        outboxEvent(event.modelName, .object(json))
                    )
                    storage.log(.init(level: .warning, message: message))
                    await revert(event, table: table)
                    return false
                case .answerLost:
                    await revert(event, table: table)
                    return false
                case .refused(let message):
                    report(
                        DataStoreError(
                            .sync,
                            "The backend refused the \(event.mutationType) of \(event.modelName) '\(event.modelId)': "
                                + "\(message) The local change is undone and the backend's record kept."
                        )
                    )
                    dispatch(
                        HubPayload.EventName.DataStore.outboxMutationFailed,
                        outboxEvent(event.modelName, .object(json))
                    )
                    await revert(event, table: table)
                    return false
                }
            } catch {
                // Stopping cancels a send; the event stays in the outbox for the next start.
                if !Task.isCancelled {
                    report("DataStore could not settle the outbox event '\(event.id)'", error)
                }
                return false
            }
        }
        report(
            DataStoreError(
                .sync,
                "The \(event.mutationType) of \(event.modelName) '\(event.modelId)' met a conflict four times in a "
                    + "row; the backend's record is kept."
            )
        )
        await revert(event, table: table)
        return false
    }

    /// The mutation of an outbox event, with its idempotency key.
    private static func mutation(
        _ table: ModelTable,
        _ kind: String,
        _ json: [String: JSONValue],
        _ version: Int?,
        _ condition: JSONValue?,
        key: String
    ) -> GraphQLRequest<JSONValue> {
        var request = GraphQLRequest<JSONValue>.syncMutation(
            modelSchema: table.schema,
            kind: kind,
            json: json,
            version: version,
            condition: condition
        )
        request.headers["Idempotency-Key"] = key
        return request
    }

    /// Sends `request` until the backend answers, backing off while the network fails;
    /// `nil` when the engine stopped first.
    private func deliver(_ request: GraphQLRequest<JSONValue>, modes: [AWSAuthorizationType?]) async -> Answer? {
        var attempt = 0
        while !Task.isCancelled {
            let generation = outboxSignal.generation
            do {
                let response = try await send(request, modes: modes, mutation: true)
                switch response {
                case .success(let item) where !item.isNull:
                    return .accepted(item)
                case .success:
                    return .refused("it answered null.")
                case .failure(.partial(let item, _)) where !item.isNull:
                    return .accepted(item)
                case .failure(.error(let errors)), .failure(.partial(_, let errors)):
                    if let conflict = errors.first(where: { $0.errorType == "ConflictUnhandled" }),
                        let data = conflict.data, !data.isNull
                    {
                        return .conflict(data)
                    }
                    // The backend applied the change but lost its answer: read its record.
                    if errors.contains(where: { $0.errorType == "IdempotentResponseLostException" }) {
                        return .answerLost
                    }
                    let message = errors.map(\.description).joined(separator: "; ")
                    if errors.contains(where: { $0.errorType?.contains("ConditionalCheckFailed") == true }) {
                        return .conditionFailed(message)
                    }
                    return .refused(message)
                case .failure(let error):
                    return .refused("\(error)")
                }
            } catch {
                // Without a signed-in user the request never reached the backend: the change
                // waits for the next sign-in, as a network failure waits for the network.
                if !Self.isRetryable(error), await !awaitsUser() { return .refused("\(error)") }
                attempt += 1
                await outboxSignal.wait(after: generation, timeout: Self.backoff(attempt: attempt))
            }
        }
        return nil
    }

    /// Asks the conflict handler; `nil` when it cannot be asked (a record that cannot be read).
    private func resolveConflict(
        _ event: MutationEvent,
        local: [String: JSONValue],
        remote: JSONValue
    ) async -> DataStoreConflictHandlerResolution? {
        let localModel: any Model
        let remoteModel: any Model
        do {
            localModel = try ModelRegistry.decode(modelName: event.modelName, from: .object(local))
            remoteModel = try ModelRegistry.decode(modelName: event.modelName, from: remote)
        } catch {
            report("The records of a conflict on \(event.modelName) cannot be read", error)
            return nil
        }
        let handler = configuration.conflictHandler
        return await withCheckedContinuation { continuation in
            let answered = Mutex(false)
            handler(DataStoreConflictData(local: localModel, remote: remoteModel)) { resolution in
                let first = answered.withLock { answered in
                    defer { answered = true }
                    return !answered
                }
                if first { continuation.resume(returning: resolution) }
            }
        }
    }

    /// Undoes a refused change: the backend's record replaces the local one, or the local one
    /// goes when the backend has none.
    private func revert(_ event: MutationEvent, table: ModelTable) async {
        do {
            let keyValues = try JSONValue(parsing: event.json)
            var key: [String: JSONValue] = [:]
            for name in table.primaryKey { key[name] = keyValues[name] ?? .null }
            let request = GraphQLRequest<JSONValue>.syncGet(modelSchema: table.schema, key: key)
            let modes = table.schema.authModes(for: .read, strategy: configuration.authModeStrategy)
            switch try await send(request, modes: modes, mutation: false) {
            case .success(let item) where !item.isNull:
                _ = try await storage.finish(event, item: item, force: true)
            case .success:
                _ = try await storage.dropLocal(event)
            case .failure(.error(let errors)) where Self.isUnauthorized(errors):
                // The user may not read the record (another owner's): it has no place here.
                _ = try await storage.dropLocal(event)
            case .failure(let error):
                _ = try await storage.finish(event, item: nil)
                report("DataStore could not read the backend's \(table.name)", error)
            }
        } catch {
            report("DataStore could not undo the refused change '\(event.id)'", error)
            _ = try? await storage.finish(event, item: nil)
        }
    }

    private func outboxEvent(_ modelName: String, _ item: JSONValue) -> OutboxMutationEvent? {
        guard let model = try? ModelRegistry.decode(modelName: modelName, from: item) else { return nil }
        return OutboxMutationEvent(
            modelName: modelName,
            element: .init(
                model: model,
                version: item["_version"]?.intValue,
                lastChangedAt: item["_lastChangedAt"]?.intValue,
                deleted: item["_deleted"]?.booleanValue
            )
        )
    }

    // MARK: - Retries

    /// Whether `error` is worth sending again: the network failed, or the backend is busy.
    static func isRetryable(_ error: any Error) -> Bool {
        switch error as? APIError {
        case .networkError: return true
        // 409: the backend is still answering the same idempotency key.
        case .httpStatusError(let status, _): return status >= 500 || status == 429 || status == 408 || status == 409
        default: return false
        }
    }

    /// `2^attempt · 100 ms` (``Backoff``), capped at 5 minutes, with half of it random.
    static func backoff(attempt: Int) -> Duration {
        let base = Backoff.exponential(attempt: attempt + 1, base: .milliseconds(100), cap: .seconds(300))
        return base / 2 + (base / 2) * Double.random(in: 0...1)
    }
}
