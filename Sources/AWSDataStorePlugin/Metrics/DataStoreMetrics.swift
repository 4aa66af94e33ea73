import AWSPluginsCore
import Amplify
import Foundation
import Metrics
import Synchronization

/// The device's health as DataStore reports it through swift-metrics, for the app to export
/// with whatever metrics backend it bootstraps: the outbox's depth and the age of its oldest
/// change, sync lag, reconnections and the mutations sent and refused. The names, types, units
/// and dimensions are listed in <doc:DeviceHealth>.
///
/// One per open store, made only when the configured factory is not swift-metrics' no-op one:
/// without a metrics backend DataStore reads nothing and computes nothing for them.
final class DataStoreMetrics: Sendable {
    /// The metric names, stable across releases.
    enum Name {
        static let outboxDepth = "datastore_outbox_depth"
        static let outboxOldestAge = "datastore_outbox_oldest_age_seconds"
        static let lastSync = "datastore_last_sync_timestamp_seconds"
        static let syncLag = "datastore_sync_lag_seconds"
        static let reconnects = "datastore_reconnects_total"
        static let mutationsSent = "datastore_mutations_sent_total"
        static let mutationsFailed = "datastore_mutations_failed_total"
    }

    /// How often the age of the oldest pending change is reported again while sync runs.
    static let ageInterval: Duration = .seconds(10)

    let outboxDepth: Gauge
    let outboxOldestAge: Gauge
    let reconnects: Counter
    let mutationsSent: Counter
    let mutationsFailed: [MutationFailureKind: Counter]
    let lastSync: [String: Gauge]
    let syncLag: [String: CoreMetrics.Timer]

    private struct State {
        /// When the oldest pending change was made; `nil` when the outbox is empty.
        var oldest: Date?
        /// Whether the subscriptions of the running sync were established once already.
        var established = false
    }
    private let state = Mutex(State())

    /// The metrics of a store of `modelNames`, made by `factory`; `nil` when `factory` is
    /// swift-metrics' no-op one.
    init?(factory: any MetricsFactory, modelNames: [String]) {
        guard !(factory is NOOPMetricsHandler) else { return nil }
        outboxDepth = Gauge(label: Name.outboxDepth, factory: factory)
        outboxOldestAge = Gauge(label: Name.outboxOldestAge, factory: factory)
        reconnects = Counter(label: Name.reconnects, factory: factory)
        mutationsSent = Counter(label: Name.mutationsSent, factory: factory)
        var failed: [MutationFailureKind: Counter] = [:]
        for kind in MutationFailureKind.allCases {
            failed[kind] = Counter(label: Name.mutationsFailed, dimensions: [("kind", kind.rawValue)], factory: factory)
        }
        mutationsFailed = failed
        var lastSync: [String: Gauge] = [:]
        var syncLag: [String: CoreMetrics.Timer] = [:]
        for model in modelNames {
            lastSync[model] = Gauge(label: Name.lastSync, dimensions: [("model", model)], factory: factory)
            syncLag[model] = CoreMetrics.Timer(label: Name.syncLag, dimensions: [("model", model)], factory: factory)
        }
        self.lastSync = lastSync
        self.syncLag = syncLag
    }

    // MARK: - Outbox

    /// Reports the outbox as a committed transaction left it: `depth` events, the oldest made
    /// at `oldest`.
    func outbox(depth: Int, oldest: Date?) {
        outboxDepth.record(depth)
        let age = state.withLock { state in
            state.oldest = oldest
            return Self.age(of: oldest)
        }
        outboxOldestAge.record(age)
    }

    /// Reports the age of the oldest pending change again: it grows while nothing is sent.
    func refreshAge() {
        outboxOldestAge.record(state.withLock { Self.age(of: $0.oldest) })
    }

    private static func age(of oldest: Date?) -> Double {
        oldest.map { max(0, Date().timeIntervalSince($0)) } ?? 0
    }

    // MARK: - Sync

    /// Sync starts: the next establishment of its subscriptions is not a reconnection. Returns
    /// the task that reports the oldest change's age every ``ageInterval`` until cancelled.
    func syncStarted() -> Task<Void, Never> {
        state.withLock { $0.established = false }
        return Task { [weak self] in
            while !Task.isCancelled {
                do {
                    try await Task.sleep(for: Self.ageInterval)
                } catch {
                    return
                }
                self?.refreshAge()
            }
        }
    }

    /// The subscriptions of the running sync were established, and one is connected: a
    /// reconnection when they were established before.
    func subscriptionsEstablished() {
        let again = state.withLock { state in
            defer { state.established = true }
            return state.established
        }
        if again { reconnects.increment() }
    }

    /// `model`'s sync query (base or delta) ended successfully now.
    func synced(_ model: String) {
        lastSync[model]?.record(Date().timeIntervalSince1970)
    }

    /// A subscription delivered `item` of `model` and it was applied now: the time since the
    /// backend changed it (`_lastChangedAt`), clock skew between the two included, 0 at least.
    func applied(_ item: JSONValue, of model: String) {
        guard let timer = syncLag[model], let changed = item["_lastChangedAt"]?.intValue else { return }
        let lag = Date().timeIntervalSince1970 - Double(changed) / 1000
        timer.recordNanoseconds(Int64(max(0, lag) * 1_000_000_000))
    }

    // MARK: - Mutations

    /// The backend answered an outbox mutation with `response`: one more sent, and one more
    /// failed, by kind, unless it applied the mutation.
    func mutationAnswered(_ response: GraphQLResponse<JSONValue>) {
        mutationsSent.increment()
        if let kind = Self.failure(of: response) { mutationsFailed[kind]?.increment() }
    }

    /// Sending an outbox mutation threw `error`: counted when the backend answered with an HTTP
    /// status; a request that did not reach it (the network) is neither sent nor failed.
    func mutationThrew(_ error: any Error) {
        guard case .httpStatusError(let status, _)? = error as? APIError else { return }
        mutationsSent.increment()
        mutationsFailed[MutationFailureKind(statusCode: status)]?.increment()
    }

    /// Why `response` did not apply the mutation; `nil` when it did (a record, or the
    /// idempotency layer saying that the backend applied it and lost its answer).
    static func failure(of response: GraphQLResponse<JSONValue>) -> MutationFailureKind? {
        switch response {
        case .success(let item):
            return item.isNull ? .other : nil
        case .failure(.partial(let item, _)) where !item.isNull:
            return nil
        case .failure(.error(let errors)), .failure(.partial(_, let errors)):
            if errors.contains(where: { $0.appSyncErrorType == .idempotentResponseLost }) { return nil }
            return MutationFailureKind(errors: errors)
        case .failure:
            return .other
        }
    }
}
