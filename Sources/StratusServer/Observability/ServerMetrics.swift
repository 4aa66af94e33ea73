import CoreMetrics
import Synchronization

/// What the server counts and times, through swift-metrics: requests, real-time connections,
/// subscriptions and deliveries, idempotent replays and conflicts. `stratus serve` exports them
/// in Prometheus's text format on `/metrics` (``MetricsEndpoint``); an application embedding the
/// server passes the `MetricsFactory` of its own backend.
///
/// The names follow AppSync's CloudWatch metrics where one exists, in Prometheus's spelling:
///
/// | AppSync | here |
/// |---|---|
/// | `Requests` | `stratus_requests_total` (`operation`, `status`, `auth_mode`) |
/// | `4XXError`, `5XXError` | `stratus_4xx_error_total`, `stratus_5xx_error_total` (`operation`) |
/// | `Latency` | `stratus_latency_seconds` (`operation`), a histogram |
/// | `ConnectSuccess`, `ConnectClientError` | `stratus_connect_success_total`, `stratus_connect_client_error_total` |
/// | `DisconnectSuccess` | `stratus_disconnect_success_total` |
/// | `ActiveConnections`, `ActiveSubscriptions` | `stratus_active_connections`, `stratus_active_subscriptions` |
/// | `SubscribeSuccess`, `SubscribeClientError` | `stratus_subscribe_success_total`, `stratus_subscribe_client_error_total` |
/// | `UnsubscribeSuccess` | `stratus_unsubscribe_success_total` |
/// | `PublishDataMessageSuccess` | `stratus_publish_data_message_success_total` |
/// | `ConnectionDuration` | `stratus_connection_duration_seconds`, a histogram |
///
/// and the server's own: `stratus_slow_consumer_closes_total`, `stratus_idempotent_replays_total`,
/// `stratus_conflicts_total` (`outcome`: `rejected`, `merged`, `resolved`, `removed`), and the
/// local Cognito's `stratus_cognito_requests_total` (`operation`, `status`) and
/// `stratus_cognito_sign_ins_total` (`outcome`: `success`, `refused`), and the functions'
/// `stratus_function_invocations_total` (`function`, `outcome`: `success`, `error`, `timeout`,
/// `crash`, `invalid_result`) and `stratus_function_duration_seconds` (`function`); the time of
/// each kind of resolver, `stratus_resolver_latency_seconds` (`kind`: `direct`, `generated`,
/// `function`); the store's `stratus_store_query_seconds` (`operation`, `store`) and
/// `stratus_store_calls_in_flight`; and, for servers sharing a PostgreSQL database,
/// `stratus_journal_delivery_lag_seconds` from a write's time to its delivery here.
///
/// ```swift
/// let registry = PrometheusCollectorRegistry()
/// let metrics = ServerMetrics(factory: PrometheusMetricsFactory(registry: registry))
/// let http = StratusHTTPServer(server: server, authorization: authorization, metrics: metrics)
/// ```
public final class ServerMetrics: Sendable {
    /// The metrics of the server answering the current request, for what the request runs
    /// (resolvers, functions) to count in; `nil` when nothing counts.
    @TaskLocal package static var current: ServerMetrics?

    private let factory: any MetricsFactory
    private let counters = Mutex<[CounterKey: Counter]>([:])
    private let timers = Mutex<[CounterKey: Timer]>([:])
    private let activeConnections: Meter
    private let activeSubscriptions: Meter
    private let connectionDurations: Timer
    private let storeCallsInFlight: Meter
    private let journalLag: Timer

    private struct CounterKey: Hashable {
        var name: String
        var dimensions: [String]
    }

    /// Metrics made by `factory`, each once.
    public init(factory: any MetricsFactory) {
        self.factory = factory
        activeConnections = Meter(label: "stratus_active_connections", factory: factory)
        activeSubscriptions = Meter(label: "stratus_active_subscriptions", factory: factory)
        connectionDurations = Timer(label: "stratus_connection_duration_seconds", factory: factory)
        storeCallsInFlight = Meter(label: "stratus_store_calls_in_flight", factory: factory)
        journalLag = Timer(label: "stratus_journal_delivery_lag_seconds", factory: factory)
    }

    /// The counter `name` with the dimensions `names` valued `values`, made on first use.
    private func count(_ name: String, _ dimensions: KeyValuePairs<String, String> = [:], by amount: Int = 1) {
        let key = CounterKey(name: name, dimensions: dimensions.map(\.value))
        let counter = counters.withLock { counters in
            if let counter = counters[key] { return counter }
            let counter = Counter(label: name, dimensions: dimensions.map { ($0.key, $0.value) }, factory: factory)
            counters[key] = counter
            return counter
        }
        counter.increment(by: amount)
    }

    /// Records `duration` in the histogram `name` whose `dimension` is `value`, made on first use.
    private func time(_ name: String, _ dimension: String, _ value: String, _ duration: Duration) {
        time(name, [dimension: value], duration)
    }

    /// Records `duration` in the histogram `name` with the dimensions `names` valued `values`,
    /// made on first use.
    private func time(_ name: String, _ dimensions: KeyValuePairs<String, String>, _ duration: Duration) {
        let timer = timers.withLock { timers in
            let key = CounterKey(name: name, dimensions: dimensions.map(\.value))
            if let timer = timers[key] { return timer }
            let timer = Timer(label: name, dimensions: dimensions.map { ($0.key, $0.value) }, factory: factory)
            timers[key] = timer
            return timer
        }
        timer.recordNanoseconds(Self.nanoseconds(duration))
    }

    private static func nanoseconds(_ duration: Duration) -> Int64 {
        duration.components.seconds * 1_000_000_000 + duration.components.attoseconds / 1_000_000_000
    }

    // MARK: - Requests

    /// One request to `/graphql` or a REST API answered with `status` after `duration`.
    ///
    /// - Parameters:
    ///   - operation: `query`, `mutation` or `subscription`; `-` when the request did not get as
    ///     far as naming one (a REST request, an unreadable body).
    ///   - authorizationMode: The mode that authorized it, `-` when none did.
    func request(operation: String, status: Int, authorizationMode: String, duration: Duration) {
        count(
            "stratus_requests_total",
            ["operation": operation, "status": String(status), "auth_mode": authorizationMode]
        )
        if (400..<500).contains(status) {
            count("stratus_4xx_error_total", ["operation": operation])
        } else if status >= 500 {
            count("stratus_5xx_error_total", ["operation": operation])
        }
        time("stratus_latency_seconds", "operation", operation, duration)
    }

    /// A request's operation ran `duration` on the path `kind`: `direct` (the direct path of
    /// single lists, syncs, gets and mutations) or `generated` (the GraphQL executor over the
    /// generated and hand-written resolvers). Each function invocation is timed as `function`.
    func resolved(_ kind: String, duration: Duration) {
        time("stratus_resolver_latency_seconds", "kind", kind, duration)
    }

    /// A call of the item store (`fetchItem`, `fetchPage`, `fetchChanges`, `write`) took
    /// `duration` on `store` (`sqlite`, `postgresql`).
    func storeCall(_ operation: String, store: String, duration: Duration) {
        time("stratus_store_query_seconds", ["operation": operation, "store": store], duration)
    }

    /// The store calls under way changed by `change`: how much of the store's connections the
    /// server uses, waiting for one included.
    func storeCallsInFlight(changedBy change: Int) {
        if change > 0 {
            storeCallsInFlight.increment(by: Double(change))
        } else {
            storeCallsInFlight.decrement(by: Double(-change))
        }
    }

    /// A write another server (or this one) made in a shared store reached this server's
    /// subscribers `lag` after the write's time.
    package func journalDelivered(lag: Duration) {
        journalLag.recordNanoseconds(Self.nanoseconds(lag))
    }

    /// A mutation answered again from its `Idempotency-Key`'s record.
    func idempotentReplay() {
        count("stratus_idempotent_replays_total")
    }

    /// A versioned write met a conflict and `outcome` settled it: `rejected`, `merged`,
    /// `resolved` or `removed`.
    func conflict(_ outcome: String) {
        count("stratus_conflicts_total", ["outcome": outcome])
    }

    // MARK: - Functions

    /// An invocation of the function `name` ended after `duration` with `outcome`: `success`,
    /// `error` (the handler reported one), `timeout`, `crash` or `invalid_result`.
    func functionInvoked(_ name: String, outcome: String, duration: Duration) {
        count("stratus_function_invocations_total", ["function": name, "outcome": outcome])
        time("stratus_function_duration_seconds", "function", name, duration)
        resolved("function", duration: duration)
    }

    // MARK: - Cognito

    /// A call of the local Cognito's `operation` answered with `status`; `signedIn` says, for a
    /// sign-in step, whether it issued tokens (`true`) or refused (`false`), and is `nil` for other
    /// calls and for steps that answer a challenge.
    package func cognito(operation: String, status: Int, signedIn: Bool?) {
        count("stratus_cognito_requests_total", ["operation": operation, "status": String(status)])
        if let signedIn {
            count("stratus_cognito_sign_ins_total", ["outcome": signedIn ? "success" : "refused"])
        }
    }

    // MARK: - Real time

    /// A WebSocket connection opened.
    func connectionOpened() {
        activeConnections.increment()
    }

    /// A WebSocket connection that was open for `duration` closed.
    func connectionClosed(after duration: Duration) {
        activeConnections.decrement()
        connectionDurations.recordNanoseconds(Self.nanoseconds(duration))
        count("stratus_disconnect_success_total")
    }

    /// A `connection_init` answered with `connection_ack` (`true`) or `connection_error`.
    func connected(_ succeeded: Bool) {
        count(succeeded ? "stratus_connect_success_total" : "stratus_connect_client_error_total")
    }

    /// A `start` answered with `start_ack` (`true`) or `error`.
    func subscribed(_ succeeded: Bool) {
        count(succeeded ? "stratus_subscribe_success_total" : "stratus_subscribe_client_error_total")
    }

    /// A `stop` answered with `complete`.
    func unsubscribed() {
        count("stratus_unsubscribe_success_total")
    }

    /// The running subscriptions changed by `change`.
    func subscriptionsChanged(by change: Int) {
        if change > 0 {
            activeSubscriptions.increment(by: Double(change))
        } else if change < 0 {
            activeSubscriptions.decrement(by: Double(-change))
        }
    }

    /// `count` `data` messages were queued for subscribers.
    func published(_ count: Int) {
        self.count("stratus_publish_data_message_success_total", by: count)
    }

    /// A connection that read too slowly was closed.
    func slowConsumerClosed() {
        count("stratus_slow_consumer_closes_total")
    }
}
