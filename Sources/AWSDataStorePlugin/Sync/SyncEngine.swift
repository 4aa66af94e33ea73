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
///
/// This file holds the engine's state and lifecycle; each aspect has a file of its own:
/// `SyncEngine+Subscriptions.swift` (sessions of subscriptions), `SyncEngine+SyncQueries.swift`,
/// `SyncEngine+Requests.swift` (authorization modes, retries), and in `Outbox/` the outbox
/// loop (`SyncEngine+Outbox.swift`) and the delivery of one event (`SyncEngine+Delivery.swift`),
/// in `Conflicts/` the conflict handler's part.
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

    /// What the engine's tasks share, under ``state``.
    struct State {
        var tasks: [Task<Void, Never>] = []
        var networkActive: Bool?
        var sentReady = false
        /// Whether the outbox may send: the sync queries ended and the network is up.
        var outboxOpen = false
        /// The records with an event in flight: sent, or accepted and not settled yet.
        var inFlight: Set<RecordKey> = []
        /// The events the backend accepted, for the outbox loop to settle.
        var accepted: [AcceptedEvent] = []
        /// The events taken and not sent yet, oldest first; their records are in flight.
        var ready: [TakenEvent] = []
        /// The latest record a subscription delivered for each record in flight, held until
        /// the event's answer: see ``SyncEngine/holdWhileInFlight(_:modelName:)``.
        var echoes: [RecordKey: HeldEcho] = [:]
        /// How many senders run: at most ``DataStoreConfiguration/outboxConcurrency``.
        var senders = 0
        /// How many events the senders ended since the last round without an answer for the
        /// loop to settle (refused, resolved as the backend's record, stopped).
        var endedBySenders = 0

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
        mutating func takeEchoes(_ keys: Set<RecordKey>) -> [RecordKey: HeldEcho] {
            var taken: [RecordKey: HeldEcho] = [:]
            for key in keys {
                if let echo = echoes.removeValue(forKey: key) { taken[key] = echo }
            }
            return taken
        }
    }
    let state = Mutex(State())
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
        let ages = storage.metrics?.syncStarted()
        state.withLock { $0.tasks = [session, outbox] + (ages.map { [$0] } ?? []) }
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

    func dispatch(_ eventName: String, _ data: (any Sendable)? = nil) {
        hub.dispatch(to: .dataStore, payload: HubPayload(eventName: eventName, data: data))
    }

    func setNetwork(active: Bool) {
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
}
