import NIOCore
import OrderedCollections
import Synchronization
import Tracing

/// The subscribed real-time connections of one event loop, and the events published for them
/// that some of them have not had yet.
///
/// The broadcaster hands each event to the loop once (``post(_:)``), whatever the number of
/// subscribers, and the mutation goes on. The loop then sweeps the connections subscribed to the
/// events' topics, a few hundred per task so that its sockets are served in between: it gives
/// each connection every event published up to that moment that the connection has not had,
/// takes the messages they make and writes them with one flush. A sweep carries the events that
/// come while it runs to the connections it has not reached yet, and another sweep follows for
/// the others, so an event waits at most about one sweep. When events come faster than a sweep,
/// each connection gets several per visit, and the work paid per connection (its state read from
/// memory, its socket written) is paid once for all of them rather than once per event.
///
/// An event published in a traced request is delivered in a span of its trace, a child of the
/// request's `publish` span: `deliver Post` (a consumer span), from the moment the loop takes the
/// event to the end of the sweep that brought it to the last connection, with the number of
/// connections the sweep visited (`stratus.connections`). One span per loop and event, whatever
/// the number of subscribers.
final class RealtimeFanout: Sendable {
    /// A connection of the loop and how many of its subscriptions have one topic.
    ///
    /// The broadcaster counts the loop listener's subscriptions too, one per subscription of
    /// any connection: it is called outside this lock (it calls ``post(_:)`` under its own), and
    /// counts, unlike "first in, last out" calls, come out right in any order.
    private struct Target {
        let connection: RealtimeConnection
        let writer: RealtimeFrameWriter
        var subscriptions: Int
    }

    private struct State {
        /// The events published that some connection of their topic may not have had yet, in
        /// publication order.
        var log: [WriteEvent] = []
        /// Whether a sweep is scheduled or under way.
        var sweeping = false
        /// The connections of each topic, in the order they first subscribed to it.
        var targets: [MutationBroadcaster.Topic: OrderedDictionary<ObjectIdentifier, Target>] = [:]
        /// The loop's listener in the broadcaster.
        var listener: UInt64 = 0
        /// The delivery spans of the traced events in the log, by sequence.
        var deliveries: [UInt64: any Span] = [:]
    }

    /// One pass over the connections of the topics of the events in the log when it began.
    private struct Sweep {
        var targets: [Target]
        var next = 0
        /// The sequence of the last event published when the sweep began: once it ends, every
        /// connection subscribed then has had every event up to it.
        let end: UInt64
    }

    /// The most connections a task of the sweep visits before it gives the loop back.
    static let connectionsPerTask = 512

    let eventLoop: any EventLoop
    private let events: MutationBroadcaster
    private let state = Mutex(State())
    /// The sweep under way; read and written on the loop only.
    private let sweep: NIOLoopBoundBox<Sweep?>

    /// The fan-out of `eventLoop`, listening to `events`.
    ///
    /// The listener holds the fan-out weakly and stays registered when the fan-out goes: it
    /// would otherwise be removed from the fan-out's deinit, which can run inside the
    /// broadcaster's lock (at the end of a ``post(_:)``) and would take that lock again. Once
    /// its connections are removed it has no topic, so it is never called.
    static func make(eventLoop: any EventLoop, events: MutationBroadcaster) -> RealtimeFanout {
        let fanout = RealtimeFanout(eventLoop: eventLoop, events: events)
        let listener = events.addListener { [weak fanout] event in fanout?.post(event) }
        fanout.state.withLock { $0.listener = listener }
        return fanout
    }

    private init(eventLoop: any EventLoop, events: MutationBroadcaster) {
        self.eventLoop = eventLoop
        self.events = events
        sweep = .makeEmptyBox(valueType: Sweep.self, eventLoop: eventLoop)
    }

    /// Delivers `topic`'s events to `connection`, written by `writer`, from now on, until as many
    /// ``unsubscribe(_:from:)`` calls or ``remove(_:)``. Returns the sequence of the last event
    /// published before, which the subscription ignores.
    func subscribe(
        _ connection: RealtimeConnection,
        writer: RealtimeFrameWriter,
        to topic: MutationBroadcaster.Topic
    ) -> UInt64 {
        let listener = state.withLock { state in
            state.targets[topic, default: [:]][
                ObjectIdentifier(connection),
                default: Target(connection: connection, writer: writer, subscriptions: 0)
            ].subscriptions += 1
            return state.listener
        }
        // Outside the lock: the broadcaster calls `post` under its own.
        return events.subscribe(listener, to: topic)
    }

    /// Removes one subscription of `connection` to `topic`.
    func unsubscribe(_ connection: RealtimeConnection, from topic: MutationBroadcaster.Topic) {
        let listener: UInt64? = state.withLock { state in
            let key = ObjectIdentifier(connection)
            guard let target = state.targets[topic]?[key] else { return nil }
            if target.subscriptions > 1 {
                state.targets[topic]?[key]?.subscriptions -= 1
            } else {
                state.targets[topic]?[key] = nil
                if state.targets[topic]?.isEmpty ?? false { state.targets[topic] = nil }
            }
            return state.listener
        }
        if let listener { events.unsubscribe(listener, from: topic) }
    }

    /// Removes every subscription of `connection`, when it ends.
    func remove(_ connection: RealtimeConnection) {
        let key = ObjectIdentifier(connection)
        let (listener, left) = state.withLock { state in
            var left: [(MutationBroadcaster.Topic, Int)] = []
            for (topic, targets) in state.targets {
                guard let target = targets[key] else { continue }
                left.append((topic, target.subscriptions))
                state.targets[topic]?[key] = nil
                if state.targets[topic]?.isEmpty ?? false { state.targets[topic] = nil }
            }
            return (state.listener, left)
        }
        for (topic, count) in left {
            for _ in 0..<count { events.unsubscribe(listener, from: topic) }
        }
    }

    /// The connections subscribed to `topic`, for tests.
    func connectionCount(of topic: MutationBroadcaster.Topic) -> Int {
        state.withLock { $0.targets[topic]?.count ?? 0 }
    }

    /// Takes `event` for delivery on the loop; called by the broadcaster, under its lock, in
    /// publication order.
    private func post(_ event: WriteEvent) {
        let delivery = event.trace.map { trace in
            trace.tracer.startSpan("deliver \(event.modelName)", context: trace.context, ofKind: .consumer)
        }
        let schedules = state.withLock { state in
            state.log.append(event)
            if let delivery { state.deliveries[event.sequence] = delivery }
            if state.sweeping { return false }
            state.sweeping = true
            return true
        }
        if schedules { eventLoop.execute { self.continueSweep() } }
    }

    /// Visits the next connections of the sweep under way, or of a new one when the log has
    /// events; schedules itself again until the log is empty.
    private func continueSweep() {
        guard var current = sweep.value ?? beginSweep() else { return }
        let stop = min(current.next + Self.connectionsPerTask, current.targets.count)
        while current.next < stop {
            let target = current.targets[current.next]
            current.next += 1
            // The log as it is now: the events published since the sweep began go with it.
            let events = state.withLock { $0.log }
            target.connection.receive(events)
            RealtimeEndpoint.write(target.connection.takePending(), of: target.connection, to: target.writer)
        }
        if current.next < current.targets.count {
            sweep.value = current
        } else {
            sweep.value = nil
            let (more, delivered) = state.withLock { state in
                var delivered: [any Span] = []
                if !state.deliveries.isEmpty {
                    for (sequence, span) in state.deliveries where sequence <= current.end {
                        delivered.append(span)
                        state.deliveries[sequence] = nil
                    }
                }
                if let kept = state.log.firstIndex(where: { $0.sequence > current.end }) {
                    state.log.removeSubrange(..<kept)
                } else {
                    state.log.removeAll(keepingCapacity: true)
                }
                state.sweeping = !state.log.isEmpty
                return (state.sweeping, delivered)
            }
            for span in delivered {
                span.attributes["messaging.operation.type"] = "process"
                span.attributes["stratus.connections"] = current.targets.count
                span.end()
            }
            guard more else { return }
        }
        eventLoop.execute { self.continueSweep() }
    }

    /// A sweep of the connections of the topics of the events in the log; `nil`, ending the
    /// sweeps, when the log is empty.
    private func beginSweep() -> Sweep? {
        state.withLock { state in
            guard let last = state.log.last else {
                state.sweeping = false
                return nil
            }
            var topics: [MutationBroadcaster.Topic] = []
            for event in state.log {
                let topic = MutationBroadcaster.Topic(model: event.modelName, kind: event.kind)
                if !topics.contains(topic) { topics.append(topic) }
            }
            let lists = topics.compactMap { state.targets[$0]?.values }
            if lists.count == 1 { return Sweep(targets: Array(lists[0]), end: last.sequence) }
            // A connection subscribed to several of the topics is visited once.
            var visited = Set<ObjectIdentifier>()
            var targets: [Target] = []
            for list in lists {
                for target in list where visited.insert(ObjectIdentifier(target.connection)).inserted {
                    targets.append(target)
                }
            }
            return Sweep(targets: targets, end: last.sequence)
        }
    }
}
