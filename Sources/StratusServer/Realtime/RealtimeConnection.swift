import Foundation
import Synchronization

/// One real-time connection's subscriptions and the bounded queue of messages waiting to be
/// written to it.
///
/// The mutation path calls ``receive(_:)`` while it publishes: matching an event against the
/// subscriptions and enqueuing it never waits for the client. Starting and stopping a
/// subscription enqueue `start_ack` and `complete` under the same lock as events, so a client
/// sees `start_ack` before the first `data` of a subscription and no `data` after `complete`.
final class RealtimeConnection: Sendable {
    /// What the writer does next.
    enum Outbound: Sendable {
        /// Writes a protocol message.
        case message(JSON)
        /// Writes a `data` message for each subscription the event matched.
        case event(WriteEvent, [(id: String, request: SubscriptionRequest)])
        /// Closes the WebSocket.
        case close(code: UInt16, reason: String)
    }

    private struct ActiveSubscription {
        let request: SubscriptionRequest
        /// What its caller may read, decided when it started.
        let access: Authorization.Access
        /// When it started among the connection's subscriptions: `data` messages of one event
        /// follow this order.
        let order: Int
    }

    private struct State {
        var subscriptions: [String: ActiveSubscription] = [:]
        var started = 0
        var acknowledged = false
        /// When the queue overflowed, if it did.
        var overflowedAt: ContinuousClock.Instant?
        var lastTraffic: ContinuousClock.Instant
    }

    let limits: RealtimeLimits
    /// The messages to write, in order.
    let outbound: AsyncStream<Outbound>
    private let continuation: AsyncStream<Outbound>.Continuation
    private let state: Mutex<State>

    init(limits: RealtimeLimits) {
        self.limits = limits
        let (stream, continuation) = AsyncStream.makeStream(
            of: Outbound.self,
            bufferingPolicy: .bufferingOldest(max(limits.maxQueuedMessages, 1))
        )
        outbound = stream
        self.continuation = continuation
        state = Mutex(State(lastTraffic: .now))
    }

    /// Whether the queue overflowed; the connection is then closed with an error.
    var overflowedAt: ContinuousClock.Instant? { state.withLock { $0.overflowedAt } }

    /// When the client last sent a message.
    var lastTraffic: ContinuousClock.Instant { state.withLock { $0.lastTraffic } }

    var isAcknowledged: Bool { state.withLock { $0.acknowledged } }

    /// Notes a message from the client.
    func noteTraffic() {
        state.withLock { $0.lastTraffic = .now }
    }

    /// Enqueues a protocol message.
    func send(_ message: JSON) {
        state.withLock { enqueue(.message(message), in: &$0) }
    }

    /// Enqueues `connection_ack` and the first `ka`, once.
    func acknowledge() {
        state.withLock { state in
            guard !state.acknowledged else { return }
            state.acknowledged = true
            enqueue(
                .message([
                    "type": "connection_ack",
                    "payload": ["connectionTimeoutMs": .int(limits.connectionTimeoutMilliseconds)],
                ]),
                in: &state
            )
            enqueue(.message(["type": "ka"]), in: &state)
        }
    }

    /// Enqueues a close of the WebSocket.
    func close(code: UInt16, reason: String) {
        state.withLock { enqueue(.close(code: code, reason: reason), in: &$0) }
        continuation.finish()
    }

    /// Starts a subscription and enqueues its `start_ack`.
    ///
    /// - Throws: ``RealtimeError`` when the connection holds the most subscriptions it may or
    ///   `id` is already running.
    func start(id: String, request: SubscriptionRequest, access: Authorization.Access) throws(RealtimeError) {
        try state.withLock { state throws(RealtimeError) in
            guard state.subscriptions[id] == nil else { throw .duplicateID(id) }
            guard state.subscriptions.count < limits.maxSubscriptionsPerConnection else {
                throw .maxSubscriptionsReached(limits.maxSubscriptionsPerConnection)
            }
            state.started += 1
            state.subscriptions[id] = ActiveSubscription(request: request, access: access, order: state.started)
            enqueue(.message(["id": .string(id), "type": "start_ack"]), in: &state)
        }
    }

    /// Stops a subscription and enqueues `complete`.
    func stop(id: String) {
        state.withLock { state in
            state.subscriptions[id] = nil
            enqueue(.message(["id": .string(id), "type": "complete"]), in: &state)
        }
    }

    /// Enqueues `event` for the subscriptions it matches; called by the mutation path.
    func receive(_ event: WriteEvent) {
        state.withLock { state in
            guard !state.subscriptions.isEmpty else { return }
            var targets: [(order: Int, id: String, request: SubscriptionRequest)] = []
            for (id, subscription) in state.subscriptions
            where subscription.request.matches(event)
                && SubscriptionAuthorization.mayRead(item: event.item.item, access: subscription.access)
            {
                targets.append((subscription.order, id, subscription.request))
            }
            guard !targets.isEmpty else { return }
            targets.sort { $0.order < $1.order }
            enqueue(.event(event, targets.map { ($0.id, $0.request) }), in: &state)
        }
    }

    private func enqueue(_ element: Outbound, in state: inout State) {
        guard state.overflowedAt == nil else { return }
        if case .dropped = continuation.yield(element) {
            state.overflowedAt = .now
            continuation.finish()
        }
    }
}
