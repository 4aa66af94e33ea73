import Foundation
import StratusCodegen
import Synchronization

/// What the real-time side of a server is doing now: its open connections with their
/// subscriptions, and the last writes committed. The console's Live page reads it
/// (`GET /console/api/live`).
///
/// A server made without one (``StratusHTTPServer/liveMonitor`` is `nil`, as with
/// `stratus serve --no-console`) tracks nothing.
///
/// ```swift
/// let monitor = LiveMonitor()
/// let http = StratusHTTPServer(server: server, authorization: authorization, liveMonitor: monitor)
/// // … later:
/// for connection in monitor.connections { print(connection.identity ?? "-", connection.subscriptions.count) }
/// ```
public final class LiveMonitor: Sendable {
    /// How many committed writes a monitor keeps unless told otherwise.
    public static let defaultCapacity = 200

    /// An open real-time connection.
    public struct Connection: Sendable, Hashable {
        /// The connection's number, from 1 in the order they opened.
        public var id: Int
        /// When it opened.
        public var opened: Date
        /// The mode the connection was authorized with; `nil` when it was refused.
        public var authorizationMode: String?
        /// Who opened it (``Identity``, summarized as a request history shows it); `nil` when
        /// it was refused.
        public var identity: String?
        /// Its subscriptions, in the order they started.
        public var subscriptions: [Subscription]
    }

    /// A running subscription of a connection.
    public struct Subscription: Sendable, Hashable {
        /// The id the client gave it in `start`.
        public var id: String
        /// The subscription field: `onCreateNote`.
        public var field: String
        /// The model whose writes it hears.
        public var model: String
        /// The filter the server applies to each event, its arguments included, in the filter
        /// grammar (`{"and": [{"owner": {"eq": "alice"}}]}`); `nil` for none.
        public var filter: JSON?
        /// The mode its `start` was authorized with (a `start` may carry credentials of its own).
        public var authorizationMode: String
        /// Who started it.
        public var identity: String
        /// When it started.
        public var started: Date
    }

    /// A committed write.
    public struct Event: Sendable, Hashable {
        /// The event's number, from 1 in commit order.
        public var sequence: Int
        /// When the write was heard, just after its commit.
        public var time: Date
        /// The model written.
        public var model: String
        /// `create`, `update` or `delete`.
        public var kind: String
        /// The mutation field that made such a write: `createNote`.
        public var mutation: String?
        /// The item after the write, with `_version`, `_deleted` and `_lastChangedAt` when the
        /// model has conflict detection.
        public var item: JSONObject
    }

    /// How many events the monitor keeps.
    public let capacity: Int
    private let state = Mutex(State())
    private let deliveryCount = Atomic<Int>(0)

    /// The `data` messages queued to subscribers since the server started: read twice, the
    /// deliveries per second between.
    public var deliveries: Int { deliveryCount.load(ordering: .relaxed) }

    private struct State {
        var connections: [Int: Connection] = [:]
        var lastConnection = 0
        var events: [Event] = []
        var oldest = 0
        var lastEvent = 0
    }

    /// A monitor that keeps the last `capacity` writes.
    public init(capacity: Int = LiveMonitor.defaultCapacity) {
        precondition(capacity > 0, "A live monitor keeps at least one event; it was given \(capacity).")
        self.capacity = capacity
    }

    /// The open connections, oldest first.
    public var connections: [Connection] {
        state.withLock { $0.connections.values.sorted { $0.id < $1.id } }
    }

    /// The events kept whose sequence is above `after`, newest first.
    public func events(after: Int = 0) -> [Event] {
        state.withLock { state in
            let ordered = state.events[state.oldest...] + state.events[..<state.oldest]
            return Array(ordered.reversed().prefix { $0.sequence > after })
        }
    }

    // MARK: - What the endpoint tells

    /// Counts a connection open, authorized as `identity` (`nil`: refused); its number.
    func opened(authorizationMode: String?, identity: String?) -> Int {
        state.withLock { state in
            state.lastConnection += 1
            let id = state.lastConnection
            state.connections[id] = Connection(
                id: id,
                opened: Date(),
                authorizationMode: authorizationMode,
                identity: identity,
                subscriptions: []
            )
            return id
        }
    }

    /// Counts `count` `data` messages queued to subscribers.
    func delivered(_ count: Int) {
        deliveryCount.add(count, ordering: .relaxed)
    }

    func closed(_ connection: Int) {
        state.withLock { $0.connections[connection] = nil }
    }

    /// Adds subscription `id` of `request` to `connection`, started as `identity`.
    func started(_ id: String, _ request: SubscriptionRequest, on connection: Int, identity: Identity) {
        let subscription = Subscription(
            id: id,
            field: request.fieldName,
            model: request.model.name,
            filter: request.filter.map(\.filterJSON),
            authorizationMode: identity.authorizationMode.rawValue,
            identity: identity.summary(apiKey: nil),
            started: Date()
        )
        state.withLock { $0.connections[connection]?.subscriptions.append(subscription) }
    }

    func stopped(_ id: String, on connection: Int) {
        state.withLock { $0.connections[connection]?.subscriptions.removeAll { $0.id == id } }
    }

    /// Keeps a committed write, dropping the oldest when full.
    func heard(_ event: WriteEvent) {
        let stored = event.item.item
        var item = stored.values
        if let version = stored.version { item["_version"] = .int(version) }
        if let lastChangedAt = stored.lastChangedAt {
            item["_deleted"] = stored.deleted.map { .bool($0) } ?? .null
            item["_lastChangedAt"] = .int(lastChangedAt)
        }
        let mutation = event.kind.mutationField(of: event.item.model)
        state.withLock { state in
            state.lastEvent += 1
            let kept = Event(
                sequence: state.lastEvent,
                time: Date(),
                model: event.modelName,
                kind: event.kind.rawValue,
                mutation: mutation,
                item: item
            )
            if state.events.count < capacity {
                state.events.append(kept)
            } else {
                state.events[state.oldest] = kept
                state.oldest = (state.oldest + 1) % capacity
            }
        }
    }

    /// Listens to every write of `models` published by `events` until the returned token is
    /// removed (``MutationBroadcaster/removeListener(_:)``).
    func listen(to events: MutationBroadcaster, models: [ModelType]) -> UInt64 {
        let token = events.addListener { [self] event in heard(event) }
        for model in models {
            for kind in WriteEvent.Kind.allCases {
                events.subscribe(token, to: MutationBroadcaster.Topic(model: model.name, kind: kind))
            }
        }
        return token
    }
}

extension ItemPredicate {
    /// The predicate in the filter grammar of `Model<T>FilterInput`.
    var filterJSON: JSON {
        switch self {
        case .all(let predicates): return ["and": .array(predicates.map(\.filterJSON))]
        case .any(let predicates): return ["or": .array(predicates.map(\.filterJSON))]
        case .not(let predicate): return ["not": predicate.filterJSON]
        case .field(let name, let condition):
            let (key, value): (String, JSON) =
                switch condition {
                case .compare(let comparison, let value): (comparison.rawValue, value)
                case .between(let low, let high): ("between", [low, high])
                case .beginsWith(let prefix): ("beginsWith", .string(prefix))
                case .contains(let value): ("contains", value)
                case .notContains(let value): ("notContains", value)
                case .exists(let exists): ("attributeExists", .bool(exists))
                case .attributeType(let type): ("attributeType", .string(type))
                case .size(let comparison, let size): ("size", [comparison.rawValue: .int(size)])
                case .sizeBetween(let low, let high): ("size", ["between": [.int(low), .int(high)]])
                case .isIn(let values): ("in", .array(values))
                case .notIn(let values): ("notIn", .array(values))
                }
            return .object(JSONObject([(name, .object(JSONObject([(key, value)])))]))
        }
    }
}
