import Foundation
import NIOCore
import OrderedCollections
import Synchronization

/// One real-time connection's subscriptions and the bounded queue of messages waiting to be
/// written to it.
///
/// The event loop's ``RealtimeFanout`` calls ``receive(_:)`` with the events published since its
/// last pass, then takes the messages with ``takePending()``: matching an event against the
/// subscriptions, encoding its `data` messages and enqueuing them never waits for the client.
/// Starting and stopping a subscription enqueue `start_ack` and `complete` under the same lock
/// as events, so a client sees `start_ack` before the first `data` of a subscription and no
/// `data` after `complete`.
///
/// For the other messages, the writer is told through `wake` when messages wait and no earlier
/// call is still being served; it then takes every waiting message with ``takePending()``,
/// writes them all and flushes once. Either way, the writer reports with ``written(_:)`` when
/// the socket took them. Messages taken but not yet written still count against
/// ``RealtimeLimits/maxQueuedMessages`` and their bytes against
/// ``RealtimeLimits/maxQueuedBytes``, so a client that stops reading fills the queue and gets
/// the slow-consumer error rather than silent losses, and holds no more memory than the bound.
/// The bytes are counted as the client would receive them, though a `data` message's payload is
/// one buffer shared with every subscription and connection that gets the same bytes.
final class RealtimeConnection: Sendable {
    /// What the writer writes, in order.
    enum Outbound: Sendable {
        /// A text message: its bytes, ready to be framed.
        case message(ByteBuffer)
        /// A `data` message: the subscription's id as JSON text and the event's payload, which
        /// the writer joins (``write(to:)``) into the frames of its batch.
        case data(quotedID: String, payload: ByteBuffer)
        /// Closes the WebSocket after the messages before it.
        case close(code: UInt16, reason: String)

        /// Whether it is a message rather than a close.
        var isMessage: Bool {
            if case .close = self { false } else { true }
        }

        /// The message's bytes; `nil` for a close.
        var bytes: ByteBuffer? {
            switch self {
            case .message(let bytes): return bytes
            case .data:
                var message = ByteBufferAllocator().buffer(capacity: size)
                write(to: &message)
                return message
            case .close: return nil
            }
        }

        /// The size of the message in bytes; 0 for a close.
        var size: Int {
            switch self {
            case .message(let bytes): bytes.readableBytes
            case .data(let quotedID, let payload):
                RealtimeDataMessage.size(quotedID: quotedID, payload: payload)
            case .close: 0
            }
        }

        /// Appends the message's bytes to `buffer`, as ``bytes`` has them, without making them
        /// first; nothing for a close.
        func write(to buffer: inout ByteBuffer) {
            switch self {
            case .message(let bytes): buffer.writeImmutableBuffer(bytes)
            case .data(let quotedID, let payload):
                RealtimeDataMessage.write(quotedID: quotedID, payload: payload, to: &buffer)
            case .close: break
            }
        }
    }

    /// Which bound a slow consumer went past.
    enum Overflow: Sendable, Hashable {
        case messages, bytes
    }

    /// Why the writer ends the connection.
    enum Ending: Sendable, Hashable {
        /// The messages before a ``Outbound/close(code:reason:)`` are written: close now.
        case close(code: UInt16, reason: String)
        /// The queue overflowed: send the slow-consumer error and close.
        case slowConsumer
    }

    /// A class, so that matching an event retains one reference per subscription instead of
    /// copying the request's fields.
    ///
    /// What matching reads is kept in fields of its own, so that matching copies no request.
    private final class ActiveSubscription: Sendable {
        let id: String
        let request: SubscriptionRequest
        /// What its caller may read, decided when it started.
        let access: Authorization.Access
        /// The subscription's id as JSON text, for its `data` messages.
        let quotedID: String
        let kind: WriteEvent.Kind
        let modelName: String
        /// The filters to evaluate; `nil` when the subscription has none.
        let filter: ItemPredicate?
        let selectionKey: String
        /// The last event published before the subscription was registered: it hears only the
        /// events after it.
        let after: UInt64
        /// The token its `start` carried, checked again while it runs; `nil` when it runs on
        /// the connection's credentials.
        let token: RealtimeToken?

        init(
            id: String,
            request: SubscriptionRequest,
            access: Authorization.Access,
            quotedID: String,
            after: UInt64,
            token: RealtimeToken?
        ) {
            self.id = id
            self.after = after
            self.token = token
            self.request = request
            self.access = access
            self.quotedID = quotedID
            kind = request.kind
            modelName = request.model.name
            filter = request.filter
            selectionKey = request.selectionKey
        }

        /// Whether `event` is one the subscription hears (``SubscriptionRequest/matches(_:)``),
        /// published after it was registered, and its caller may read.
        func hears(_ event: WriteEvent) -> Bool {
            event.sequence > after
                && SubscriptionRequest.matches(event, kind: kind, modelName: modelName, filter: filter)
                && SubscriptionAuthorization.mayRead(item: event.item.item, access: access)
        }
    }

    private struct State {
        /// The subscriptions by id, in the order they started, which is the order of the `data`
        /// messages of one event: matching walks their array of values, with no sort.
        var subscriptions: OrderedDictionary<String, ActiveSubscription> = [:]
        /// The ids of the running subscriptions to hand-written subscription fields, which
        /// ``HandWrittenStarts`` serves: they count toward the limit too.
        var handWritten: Set<String> = []
        var acknowledged = false
        /// When the queue overflowed, if it did.
        var overflowedAt: ContinuousClock.Instant?
        /// The bound the queue went past, if it did.
        var overflow: Overflow?
        var lastTraffic: ContinuousClock.Instant
        /// Messages the writer has not taken yet.
        var pending: [Outbound] = []
        /// Messages the writer took whose write has not completed.
        var inFlight = 0
        /// The bytes of the messages pending and in flight.
        var queuedBytes = 0
        /// The bytes of those the gauge was told of.
        var reportedBytes = 0
        /// The running subscriptions the gauge was told of.
        var reportedSubscriptions = 0
        /// The `data` messages queued since the gauge was last told.
        var unreportedData = 0
        /// Whether the connection ended: nothing is queued any more.
        var released = false
        /// Whether the writer was woken and has not taken the pending messages yet.
        var wakeRequested = false
        /// Whether a close was enqueued: nothing follows it.
        var closing = false
        /// The sequence of the last event given to ``receive(_:)``: it ignores those up to it.
        var received: UInt64 = 0
    }

    let limits: RealtimeLimits
    /// Why the connection ends, once: the writer waits for it.
    let endings: AsyncStream<Ending>
    private let endingContinuation: AsyncStream<Ending>.Continuation
    private let state: Mutex<State>
    private let wake: @Sendable (RealtimeConnection) -> Void
    /// Where the connection's queued bytes are added up with the other connections'.
    private let gauge: RealtimeQueueGauge?

    /// A connection whose writer `wake` schedules (on the channel's event loop, say); it is
    /// called outside the connection's lock. `gauge` adds its queued bytes up with others'.
    init(
        limits: RealtimeLimits,
        gauge: RealtimeQueueGauge? = nil,
        wake: @escaping @Sendable (RealtimeConnection) -> Void = { _ in }
    ) {
        self.limits = limits
        self.gauge = gauge
        self.wake = wake
        (endings, endingContinuation) = AsyncStream.makeStream(of: Ending.self)
        state = Mutex(State(lastTraffic: .now))
    }

    /// Whether the queue overflowed; the connection is then closed with an error.
    var overflowedAt: ContinuousClock.Instant? { state.withLock { $0.overflowedAt } }

    /// The bound the queue went past, if it did.
    var overflow: Overflow? { state.withLock { $0.overflow } }

    /// The bytes of the messages waiting and in flight.
    var queuedBytes: Int { state.withLock { $0.queuedBytes } }

    var isAcknowledged: Bool { state.withLock { $0.acknowledged } }

    /// What ``RealtimeWatcher`` reads of a connection at each tick.
    struct WatchStatus {
        /// When the queue overflowed, if it did.
        var overflowedAt: ContinuousClock.Instant?
        /// When the client last sent a message.
        var lastTraffic: ContinuousClock.Instant
        var acknowledged: Bool
    }

    /// What the watcher reads, taken under one lock.
    var watchStatus: WatchStatus {
        state.withLock {
            WatchStatus(overflowedAt: $0.overflowedAt, lastTraffic: $0.lastTraffic, acknowledged: $0.acknowledged)
        }
    }

    /// Notes a message from the client.
    func noteTraffic() {
        state.withLock { $0.lastTraffic = .now }
    }

    /// Enqueues a protocol message.
    func send(_ message: JSON) {
        enqueuing { _ = enqueue(.message(ByteBuffer(string: message.text)), in: &$0) }
    }

    /// Enqueues the `data` message of a hand-written subscription.
    func sendData(_ message: JSON) {
        enqueuing { state in
            let queued = enqueue(.message(ByteBuffer(string: message.text)), in: &state)
            if queued { state.unreportedData += 1 }
        }
    }

    /// Enqueues `connection_ack` and the first `ka`, once.
    func acknowledge() {
        enqueuing { state in
            guard !state.acknowledged else { return }
            state.acknowledged = true
            let ack: JSON = [
                "type": "connection_ack",
                "payload": ["connectionTimeoutMs": .int(limits.connectionTimeoutMilliseconds)],
            ]
            enqueue(.message(ByteBuffer(string: ack.text)), in: &state)
            enqueue(.message(ByteBuffer(string: #"{"type":"ka"}"#)), in: &state)
        }
    }

    /// Enqueues a close of the WebSocket; nothing is enqueued after it.
    func close(code: UInt16, reason: String) {
        enqueuing { state in
            enqueue(.close(code: code, reason: reason), in: &state)
            state.closing = true
        }
    }

    /// Starts a subscription and enqueues its `start_ack`; it hears the events whose sequence is
    /// above `after` (``MutationBroadcaster/subscribe(_:to:)`` tells it). `admitted` runs once the
    /// subscription is admitted, before its `start_ack` is queued (the endpoint tells the live
    /// monitor there, so that a client that heard `start_ack` finds its subscription listed).
    ///
    /// - Throws: ``RealtimeError`` when the connection holds the most subscriptions it may or
    ///   `id` is already running.
    func start(
        id: String,
        request: SubscriptionRequest,
        access: Authorization.Access,
        after: UInt64 = 0,
        token: RealtimeToken? = nil,
        admitted: () -> Void = {}
    ) throws(RealtimeError) {
        try enqueuing { state throws(RealtimeError) in
            try admit(id: id, in: state)
            let quotedID = JSON.string(id).text
            let subscription = ActiveSubscription(
                id: id,
                request: request,
                access: access,
                quotedID: quotedID,
                after: after,
                token: token
            )
            state.subscriptions[id] = subscription
            // Before the acknowledgement is queued: its writer may send it at once.
            admitted()
            enqueue(.message(ByteBuffer(string: #"{"id":"# + quotedID + #","type":"start_ack"}"#)), in: &state)
        }
    }

    /// Refuses a subscription `id` when one with that id is running or the connection holds
    /// the most subscriptions it may, model and hand-written ones together.
    private func admit(id: String, in state: State) throws(RealtimeError) {
        guard state.subscriptions[id] == nil, !state.handWritten.contains(id) else { throw .duplicateID(id) }
        guard state.subscriptions.count + state.handWritten.count < limits.maxSubscriptionsPerConnection else {
            throw .maxSubscriptionsReached(limits.maxSubscriptionsPerConnection)
        }
    }

    /// Counts a subscription `id` to a hand-written subscription field as running; its owner
    /// then listens for its events and calls ``acknowledgeHandWritten(id:)``, so that no event
    /// published after the client hears `start_ack` can miss it. Its `data` messages are sent by
    /// its owner.
    ///
    /// - Throws: ``RealtimeError`` when the connection holds the most subscriptions it may or
    ///   `id` is already running.
    func startHandWritten(id: String) throws(RealtimeError) {
        try enqueuing { state throws(RealtimeError) in
            try admit(id: id, in: state)
            state.handWritten.insert(id)
        }
    }

    /// Enqueues the `start_ack` of the hand-written subscription `id`, once it listens.
    func acknowledgeHandWritten(id: String) {
        enqueuing { state in
            guard state.handWritten.contains(id) else { return }
            enqueue(
                .message(ByteBuffer(string: #"{"id":"# + JSON.string(id).text + #","type":"start_ack"}"#)),
                in: &state
            )
        }
    }

    /// Stops counting the hand-written subscription `id` and enqueues its `complete`.
    func stopHandWritten(id: String) {
        enqueuing { state in
            state.handWritten.remove(id)
            enqueue(
                .message(ByteBuffer(string: #"{"id":"# + JSON.string(id).text + #","type":"complete"}"#)),
                in: &state
            )
        }
    }

    /// Stops counting the hand-written subscription `id`, whose credentials no longer hold, and
    /// enqueues its `error` with `payload` instead of `complete`.
    func endHandWritten(id: String, payload: JSON) {
        enqueuing { state in
            guard state.handWritten.remove(id) != nil else { return }
            let error: JSON = ["id": .string(id), "type": "error", "payload": payload]
            enqueue(.message(ByteBuffer(string: error.text)), in: &state)
        }
    }

    /// Stops a subscription and enqueues `complete`; returns the subscription stopped, if `id`
    /// was running.
    @discardableResult
    func stop(id: String) -> SubscriptionRequest? {
        enqueuing { state in
            let stopped = state.subscriptions.removeValue(forKey: id)
            enqueue(
                .message(ByteBuffer(string: #"{"id":"# + JSON.string(id).text + #","type":"complete"}"#)),
                in: &state
            )
            return stopped?.request
        }
    }

    /// Ends a subscription whose credentials no longer hold: enqueues its `error` with `payload`
    /// instead of `complete`; returns the subscription ended, if `id` was running.
    func end(subscription id: String, payload: JSON) -> SubscriptionRequest? {
        enqueuing { state in
            guard let ended = state.subscriptions.removeValue(forKey: id) else { return nil }
            let error: JSON = ["id": .string(id), "type": "error", "payload": payload]
            enqueue(.message(ByteBuffer(string: error.text)), in: &state)
            return ended.request
        }
    }

    /// The tokens of the running subscriptions that carried their own, by subscription id.
    var subscriptionTokens: [(id: String, token: RealtimeToken)] {
        state.withLock { state in
            state.subscriptions.values.compactMap { subscription in subscription.token.map { (subscription.id, $0) } }
        }
    }

    /// The subscriptions running, for the listener's bookkeeping when the connection ends.
    var runningRequests: [SubscriptionRequest] {
        state.withLock { $0.subscriptions.values.map(\.request) }
    }

    /// Enqueues a `data` message of each event for each subscription it matches, event by event
    /// in the order the subscriptions started; `events` are in publication order, and those it
    /// was given before are skipped. It does not wake the writer: the caller, the loop's
    /// ``RealtimeFanout``, takes the messages with ``takePending()`` and writes them.
    func receive(_ events: [WriteEvent]) {
        let (changes, queued) = state.withLock { state in
            let received = state.received
            guard let last = events.last?.sequence, last > received else { return (Changes(), 0) }
            state.received = last
            guard !state.subscriptions.isEmpty, state.overflowedAt == nil, !state.closing else { return (Changes(), 0) }
            for event in events where event.sequence > received {
                for subscription in state.subscriptions.values where subscription.hears(event) {
                    enqueueData(of: event, for: subscription, in: &state)
                }
            }
            return (unreported(in: &state), state.queuedBytes)
        }
        report(changes, connectionQueue: queued)
    }

    /// Enqueues the `data` message of `event` for `target`, or an error when it is too large.
    private func enqueueData(of event: WriteEvent, for target: ActiveSubscription, in state: inout State) {
        let payload = event.payloads.payload(for: target.selectionKey) { target.request.payload(for: event) }
        if RealtimeDataMessage.size(quotedID: target.quotedID, payload: payload) > limits.maxPayloadBytes {
            let error: JSON = [
                "id": .string(target.id), "type": "error",
                "payload": RealtimeError.payloadTooLarge(limits.maxPayloadBytes).payload,
            ]
            enqueue(.message(ByteBuffer(string: error.text)), in: &state)
        } else {
            if enqueue(.data(quotedID: target.quotedID, payload: payload), in: &state) { state.unreportedData += 1 }
        }
    }

    /// The messages waiting, in order; they count as in flight until ``written(_:bytes:)``.
    /// Called by the writer after `wake`.
    func takePending() -> [Outbound] {
        state.withLock { state in
            state.wakeRequested = false
            let taken = state.pending
            state.pending = []
            state.inFlight += taken.count
            return taken
        }
    }

    /// Notes that `count` messages of `bytes` bytes taken by ``takePending()`` were written (or
    /// failed to be).
    func written(_ count: Int, bytes: Int) {
        let changes = state.withLock { state in
            state.inFlight -= count
            state.queuedBytes -= bytes
            return unreported(in: &state)
        }
        report(changes, connectionQueue: 0)
    }

    /// Drops the messages that still wait when the connection ends; those in flight are counted
    /// out as their writes fail.
    func release() {
        let changes = state.withLock { state in
            state.released = true
            state.queuedBytes -= state.pending.reduce(0) { $0 + $1.size }
            state.pending = []
            return unreported(in: &state)
        }
        report(changes, connectionQueue: 0)
    }

    /// What the gauge was not told of yet.
    private struct Changes {
        var bytes = 0
        var subscriptions = 0
        var data = 0
    }

    /// The changes of ``State/queuedBytes``, of the running subscriptions (none once released)
    /// and the `data` messages queued that the gauge was not told of, now noted as told.
    private func unreported(in state: inout State) -> Changes {
        let running = state.released ? 0 : state.subscriptions.count + state.handWritten.count
        let changes = Changes(
            bytes: state.queuedBytes - state.reportedBytes,
            subscriptions: running - state.reportedSubscriptions,
            data: state.unreportedData
        )
        state.reportedBytes = state.queuedBytes
        state.reportedSubscriptions = running
        state.unreportedData = 0
        return changes
    }

    /// Tells the gauge of `changes`, outside the lock.
    private func report(_ changes: Changes, connectionQueue: Int) {
        guard let gauge else { return }
        if changes.bytes != 0 { gauge.add(changes.bytes, connectionQueue: connectionQueue) }
        if changes.subscriptions != 0 { gauge.metrics?.subscriptionsChanged(by: changes.subscriptions) }
        if changes.data != 0 {
            gauge.metrics?.published(changes.data)
            gauge.monitor?.delivered(changes.data)
        }
    }

    /// Tells the writer how the connection ends.
    func end(_ ending: Ending) {
        endingContinuation.yield(ending)
    }

    /// Runs `body` under the lock, then wakes the writer if it enqueued the first message since
    /// the writer last took them.
    private func enqueuing<Value, Failure: Error>(
        _ body: (inout State) throws(Failure) -> Value
    ) throws(Failure) -> Value {
        let (value, wakes, changes, queued) = try state.withLock { state throws(Failure) in
            let wasRequested = state.wakeRequested
            let value = try body(&state)
            let wakes = !wasRequested && !state.pending.isEmpty
            if wakes { state.wakeRequested = true }
            return (value, wakes, unreported(in: &state), state.queuedBytes)
        }
        report(changes, connectionQueue: queued)
        if wakes { wake(self) }
        return value
    }

    /// Queues `element` unless the connection ended or its queue overflows now; says whether it
    /// did.
    @discardableResult
    private func enqueue(_ element: Outbound, in state: inout State) -> Bool {
        guard state.overflowedAt == nil, !state.closing, !state.released else { return false }
        let size = element.size
        if state.pending.count + state.inFlight >= max(limits.maxQueuedMessages, 1) {
            overflow(.messages, in: &state)
            return false
        } else if state.queuedBytes + size > limits.maxQueuedBytes {
            overflow(.bytes, in: &state)
            return false
        }
        state.pending.append(element)
        state.queuedBytes += size
        return true
    }

    private func overflow(_ bound: Overflow, in state: inout State) {
        state.overflowedAt = .now
        state.overflow = bound
        endingContinuation.yield(.slowConsumer)
    }
}
