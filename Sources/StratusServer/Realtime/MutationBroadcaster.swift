import StratusCodegen
import Synchronization

/// Hands every committed write to the listeners registered at the time, in publication order.
///
/// ``publish(model:kind:item:)`` is synchronous and calls each listener under one lock, so every
/// listener sees the events in the same order, and a writer that publishes while it holds an
/// item's write lock publishes that item's events in commit order. Listeners must not block:
/// a real-time connection only enqueues the event in its own bounded queue.
final class MutationBroadcaster: Sendable {
    typealias Listener = @Sendable (WriteEvent) -> Void

    private struct State {
        var listeners: [UInt64: Listener] = [:]
        var nextListener: UInt64 = 1
        var sequence: UInt64 = 0
    }

    private let state = Mutex(State())

    /// Registers `listener` for the events published from now on; returns the token that
    /// ``removeListener(_:)`` takes.
    func addListener(_ listener: @escaping Listener) -> UInt64 {
        state.withLock { state in
            let token = state.nextListener
            state.nextListener += 1
            state.listeners[token] = listener
            return token
        }
    }

    /// Stops calling the listener registered with `token`.
    func removeListener(_ token: UInt64) {
        _ = state.withLock { $0.listeners.removeValue(forKey: token) }
    }

    /// Announces a committed write of `item` to every listener; `selectedFields` is evaluated
    /// only when there is one.
    func publish(
        model: ModelType,
        kind: WriteEvent.Kind,
        item: StoredItem,
        selectedFields: @autoclosure () -> Set<String>? = nil
    ) {
        state.withLock { state in
            guard !state.listeners.isEmpty else { return }
            state.sequence += 1
            let event = WriteEvent(
                sequence: state.sequence,
                kind: kind,
                item: ResolvedItem(model: model, item: item),
                selectedFields: selectedFields()
            )
            for listener in state.listeners.values {
                listener(event)
            }
        }
    }
}
