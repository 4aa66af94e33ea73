import AWSPluginsCore
import Amplify
import Foundation
import Metrics
import Synchronization

/// The device's health as ``AWSAppSyncClient`` reports it through swift-metrics, for the app to
/// export with whatever metrics backend it bootstraps: the offline mutation queue's depth and the
/// age of its oldest mutation, delta sync lag, reconnections of the real-time connection, and the
/// mutations sent and refused. The names, types, units and dimensions are listed in
/// <doc:DeviceHealth>.
///
/// One per client, made only when the configured factory is not swift-metrics' no-op one:
/// without a metrics backend the client reads nothing and computes nothing for them.
final class AppSyncClientMetrics: Sendable {
    /// The metric names, stable across releases.
    enum Name {
        static let queueDepth = "appsync_queue_depth"
        static let queueOldestAge = "appsync_queue_oldest_age_seconds"
        static let lastSync = "appsync_last_sync_timestamp_seconds"
        static let deltaSyncLag = "appsync_delta_sync_lag_seconds"
        static let reconnects = "appsync_reconnects_total"
        static let mutationsSent = "appsync_mutations_sent_total"
        static let mutationsFailed = "appsync_mutations_failed_total"
    }

    /// How often the age of the oldest queued mutation is reported again while the queue runs.
    static let ageInterval: Duration = .seconds(10)

    private let factory: any MetricsFactory
    let queueDepth: Gauge
    let queueOldestAge: Gauge
    let reconnects: Counter
    let mutationsSent: Counter
    let mutationsFailed: [MutationFailureKind: Counter]
    /// When the oldest queued mutation was queued; `nil` when the queue is empty.
    private let oldest = Mutex<Date?>(nil)

    /// The metrics made by `factory`; `nil` when `factory` is swift-metrics' no-op one.
    init?(factory: any MetricsFactory) {
        guard !(factory is NOOPMetricsHandler) else { return nil }
        self.factory = factory
        queueDepth = Gauge(label: Name.queueDepth, factory: factory)
        queueOldestAge = Gauge(label: Name.queueOldestAge, factory: factory)
        reconnects = Counter(label: Name.reconnects, factory: factory)
        mutationsSent = Counter(label: Name.mutationsSent, factory: factory)
        var failed: [MutationFailureKind: Counter] = [:]
        for kind in MutationFailureKind.allCases {
            failed[kind] = Counter(label: Name.mutationsFailed, dimensions: [("kind", kind.rawValue)], factory: factory)
        }
        mutationsFailed = failed
    }

    // MARK: - Queue

    /// Reports the queue as `store` holds it now: its depth and its oldest mutation's age. A
    /// store that cannot be read leaves the gauges as they are: the queue's own reads fail and
    /// are reported the same way.
    func queueChanged(_ store: OfflineMutationStore) {
        let depth: (count: Int, oldest: Date?)
        do {
            depth = try store.depth()
        } catch {
            return
        }
        queueDepth.record(depth.count)
        let age = oldest.withLock { oldest in
            oldest = depth.oldest
            return Self.age(of: oldest)
        }
        queueOldestAge.record(age)
    }

    /// Reports the age of the oldest queued mutation again: it grows while nothing is sent.
    func refreshAge() {
        queueOldestAge.record(oldest.withLock { Self.age(of: $0) })
    }

    private static func age(of oldest: Date?) -> Double {
        oldest.map { max(0, Date().timeIntervalSince($0)) } ?? 0
    }

    /// Reports the oldest mutation's age every ``ageInterval`` until the task is cancelled.
    func reportAges() async {
        while !Task.isCancelled {
            do {
                try await Task.sleep(for: Self.ageInterval)
            } catch {
                return
            }
            refreshAge()
        }
    }

    // MARK: - Mutations

    /// The server answered a queued mutation with the GraphQL response `json`: one more sent,
    /// and one more failed, by kind, when it carries errors and no data for the mutation.
    func mutationAnswered(_ json: JSONValue) {
        mutationsSent.increment()
        guard let body = json.objectValue, body["errors"]?.arrayValue?.isEmpty == false else { return }
        // A mutation with data was applied, whatever its other fields' errors.
        if let data = body["data"]?.objectValue, data.values.contains(where: { !$0.isNull }) { return }
        let errors: [GraphQLError]
        do {
            errors = try GraphQLError.appSyncErrors(body["errors"]) ?? []
        } catch {
            // Errors that are not AppSync's shape: refused all the same, for a reason not known.
            mutationsFailed[.other]?.increment()
            return
        }
        // The server applied the mutation and lost its answer: not a failure.
        if errors.contains(where: { $0.appSyncErrorType == .idempotentResponseLost }) { return }
        mutationsFailed[MutationFailureKind(errors: errors)]?.increment()
    }

    /// An attempt of a queued mutation failed with `error`: counted when the server answered
    /// with an HTTP status; an attempt that did not reach it (the network) is neither sent nor
    /// failed.
    func mutationThrew(_ error: AWSAppSyncClientError) {
        guard let status = error.statusCode else { return }
        mutationsSent.increment()
        mutationsFailed[MutationFailureKind(statusCode: status)]?.increment()
    }

    // MARK: - Sync and real time

    /// The real-time connection was acknowledged again after a drop.
    func reconnected() {
        reconnects.increment()
    }

    /// A sync operation whose base query is `operation` caught up now; `lag` is the time since
    /// the sync it caught up from, when it ran the delta query.
    func synced(_ operation: String, deltaLag lag: TimeInterval?) {
        Gauge(label: Name.lastSync, dimensions: [("operation", operation)], factory: factory)
            .record(Date().timeIntervalSince1970)
        guard let lag else { return }
        CoreMetrics.Timer(label: Name.deltaSyncLag, dimensions: [("operation", operation)], factory: factory)
            .recordNanoseconds(Int64(max(0, lag) * 1_000_000_000))
    }
}
