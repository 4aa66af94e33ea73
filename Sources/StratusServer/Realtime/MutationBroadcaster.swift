import StratusCodegen
import Synchronization
import Tracing

/// Hands every committed write to the listeners that subscribed to its model and kind at the
/// time, in publication order.
///
/// Listeners say which events they want through ``subscribe(_:to:)``: a write of a `Post` by
/// `updatePost` reaches only the listeners with a subscription to ``Topic`` `(Post, update)`,
/// found by one dictionary lookup instead of a call to every listener.
///
/// ``publish(model:kind:item:selectedFields:)`` is synchronous and calls each listener under one
/// lock, so every listener sees the events in the same order, and a writer that publishes while
/// it holds an item's write lock publishes that item's events in commit order. Listeners must
/// not block: the real-time endpoint's listener, one per event loop (``RealtimeFanout``), only
/// appends the event to the loop's log.
final class MutationBroadcaster: Sendable {
    typealias Listener = @Sendable (WriteEvent) -> Void

    /// The events a subscription hears: the writes of one kind to one model.
    struct Topic: Hashable, Sendable {
        var model: String
        var kind: WriteEvent.Kind
    }

    private struct State {
        var listeners: [UInt64: Listener] = [:]
        /// The number of subscriptions of each listener to each topic.
        var subscriptions: [Topic: [UInt64: Int]] = [:]
        /// The listeners of each topic in the order they first subscribed to it, as an array:
        /// publishing walks it, which costs less than walking a dictionary.
        var fanout: [Topic: ContiguousArray<(token: UInt64, listener: Listener)>] = [:]
        var nextListener: UInt64 = 1
        var sequence: UInt64 = 0

        /// Takes listener `token` out of `topic` after its last subscription to it ended, and
        /// drops the topic when no listener is left.
        mutating func leave(_ token: UInt64, _ topic: Topic) {
            subscriptions[topic]?[token] = nil
            if subscriptions[topic]?.isEmpty ?? true {
                subscriptions[topic] = nil
                fanout[topic] = nil
            } else {
                fanout[topic]?.removeAll { $0.token == token }
            }
        }
    }

    private let state = Mutex(State())

    /// Registers `listener`; it hears the events of the topics it subscribes to with the token
    /// returned, which ``removeListener(_:)`` takes.
    func addListener(_ listener: @escaping Listener) -> UInt64 {
        state.withLock { state in
            let token = state.nextListener
            state.nextListener += 1
            state.listeners[token] = listener
            return token
        }
    }

    /// Stops calling the listener registered with `token`, for every topic.
    func removeListener(_ token: UInt64) {
        state.withLock { state in
            state.listeners[token] = nil
            for topic in Array(state.subscriptions.keys) where state.subscriptions[topic]?[token] != nil {
                state.leave(token, topic)
            }
        }
    }

    /// Adds one subscription of listener `token` to `topic`; the listener hears the topic's
    /// events from now on, until as many ``unsubscribe(_:from:)`` calls. Returns the sequence of
    /// the last event published before: every event the subscription brings has a higher one.
    @discardableResult
    func subscribe(_ token: UInt64, to topic: Topic) -> UInt64 {
        state.withLock { state in
            guard let listener = state.listeners[token] else { return state.sequence }
            if state.subscriptions[topic]?[token] == nil { state.fanout[topic, default: []].append((token, listener)) }
            state.subscriptions[topic, default: [:]][token, default: 0] += 1
            return state.sequence
        }
    }

    /// Removes one subscription of listener `token` to `topic`.
    func unsubscribe(_ token: UInt64, from topic: Topic) {
        state.withLock { state in
            guard let count = state.subscriptions[topic]?[token] else { return }
            if count > 1 {
                state.subscriptions[topic]?[token] = count - 1
            } else {
                state.leave(token, topic)
            }
        }
    }

    /// The listeners subscribed to `topic`, for tests.
    func listenerCount(of topic: Topic) -> Int {
        state.withLock { $0.subscriptions[topic]?.count ?? 0 }
    }

    /// Announces a committed write of `item` to every listener subscribed to its model and
    /// kind; `selectedFields` is evaluated only when there is one. With a `trace`, the fan-outs
    /// deliver the event in spans of that trace.
    func publish(
        model: ModelType,
        kind: WriteEvent.Kind,
        item: StoredItem,
        selectedFields: @autoclosure () -> Set<String>? = nil,
        trace: @autoclosure () -> EventTrace? = nil
    ) {
        state.withLock { state in
            guard let listeners = state.fanout[Topic(model: model.name, kind: kind)], !listeners.isEmpty else {
                return
            }
            state.sequence += 1
            let event = WriteEvent(
                sequence: state.sequence,
                kind: kind,
                item: ResolvedItem(model: model, item: item),
                selectedFields: selectedFields(),
                trace: trace()
            )
            for subscriber in listeners {
                subscriber.listener(event)
            }
        }
    }

    /// Publishes as ``publish(model:kind:item:selectedFields:trace:)`` does; in a traced request
    /// whose write has listeners, in a `publish` span whose context the fan-outs deliver in. A
    /// write nobody listens to gets no span: publishing it does nothing.
    func publishTraced(
        model: ModelType,
        kind: WriteEvent.Kind,
        item: StoredItem,
        selectedFields: @autoclosure () -> Set<String>? = nil
    ) {
        guard Traces.tracer != nil else {
            return publish(model: model, kind: kind, item: item, selectedFields: selectedFields())
        }
        let listeners = listenerCount(of: Topic(model: model.name, kind: kind))
        guard listeners > 0 else {
            // Published all the same: a subscription may start in between.
            return publish(model: model, kind: kind, item: item, selectedFields: selectedFields())
        }
        Traces.span("publish \(model.name)", kind: .producer) { span in
            span?.attributes["messaging.operation.type"] = "publish"
            span?.attributes["stratus.listeners"] = listeners
            publish(
                model: model,
                kind: kind,
                item: item,
                selectedFields: selectedFields(),
                trace: span == nil ? nil : EventTrace.current
            )
        }
    }
}
