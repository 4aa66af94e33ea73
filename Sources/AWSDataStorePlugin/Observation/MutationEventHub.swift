import Amplify
import Synchronization

/// Hands every committed change to the observers of its model.
///
/// The storage engine publishes the events of a transaction right after it commits, on the
/// database's writer queue, so observers see changes in commit order. Handlers run on that queue
/// and must return quickly: they yield to a stream or set a flag.
final class MutationEventHub: Sendable {
    /// What an observer is told.
    enum Notification: Sendable {
        /// A record changed.
        case mutation(MutationEvent)
        /// Every change of the committed transaction to the observer's model was told: what
        /// waits to see a whole transaction acts now.
        case committed
        /// Every record may have changed (the store was cleared).
        case reset
    }

    private struct Observer: Sendable {
        let modelName: String
        let receive: @Sendable (Notification) -> Void
        let finish: @Sendable () -> Void
    }

    private struct State {
        var nextID = 0
        var observers: [Int: Observer] = [:]
        var isClosed = false
    }

    private let state = Mutex(State())

    /// Starts telling `receive` about changes to models named `modelName`; `finish` runs when the
    /// hub closes, at once when it is closed already (the store was stopped meanwhile). Returns
    /// the observer's identifier, for ``removeObserver(_:)``.
    func addObserver(
        modelName: String,
        receive: @escaping @Sendable (Notification) -> Void,
        finish: @escaping @Sendable () -> Void
    ) -> Int {
        let (id, isClosed) = state.withLock { state in
            let id = state.nextID
            state.nextID += 1
            if !state.isClosed {
                state.observers[id] = Observer(modelName: modelName, receive: receive, finish: finish)
            }
            return (id, state.isClosed)
        }
        if isClosed { finish() }
        return id
    }

    /// Stops telling an observer about changes.
    func removeObserver(_ id: Int) {
        _ = state.withLock { $0.observers.removeValue(forKey: id) }
    }

    /// The number of observers (for tests).
    var observerCount: Int { state.withLock { $0.observers.count } }

    /// Tells the observers of each event's model about it, in order, then tells each observer
    /// told of any that the transaction is over (``Notification/committed``): `events` are the
    /// changes of one committed transaction.
    func publish(_ events: [MutationEvent]) {
        guard !events.isEmpty else { return }
        let observers = state.withLock { Array($0.observers.values) }
        var told = Set<String>()
        for event in events {
            for observer in observers where observer.modelName == event.modelName {
                observer.receive(.mutation(event))
            }
            told.insert(event.modelName)
        }
        for observer in observers where told.contains(observer.modelName) {
            observer.receive(.committed)
        }
    }

    /// Tells every observer that every record may have changed.
    func publishReset() {
        let observers = state.withLock { Array($0.observers.values) }
        for observer in observers { observer.receive(.reset) }
    }

    /// Tells the observers of `modelName` that its records may have changed: its sync ended.
    func publishSynced(modelName: String) {
        let observers = state.withLock { Array($0.observers.values) }
        for observer in observers where observer.modelName == modelName { observer.receive(.reset) }
    }

    /// Removes every observer, telling each that observation is over.
    func close() {
        let observers = state.withLock { state in
            defer {
                state.observers.removeAll()
                state.isClosed = true
            }
            return Array(state.observers.values)
        }
        for observer in observers { observer.finish() }
    }
}
