import Amplify
import Synchronization

/// Tells the hub `outboxStatus` as Amplify does, and never says "empty" while a change is
/// unsent.
///
/// Amplify dispatches ``OutboxStatusEvent`` when sync starts (the outbox's state then), each
/// time a local change is enqueued (`isEmpty: false`), and each time an event finishes
/// processing (the state after it); apps wait for `isEmpty` to go false and then true, for
/// instance before signing out, which discards the outbox.
///
/// Here each status comes from an ``OutboxSnapshot`` taken inside the transaction that changed
/// the outbox, together with whether the sync engine holds anything in memory (an event taken
/// and not yet sent, in flight, or answered and not yet settled): `isEmpty` is true only when
/// both are empty. Statuses are told in commit order: one whose snapshot is older than a status
/// told already is stale (a local change committed meanwhile) and is dropped, so a status is
/// never followed by an older one. A local change's status is told before its save returns, so
/// once every save of the app has returned, the next `isEmpty: true` means the backend answered
/// each of them and the answer was settled: applied to the store, or, for a refused change,
/// undone and reported.
///
/// Listeners are called in order, under a lock: they must return quickly, as every hub
/// listener must.
final class OutboxStatusReporter: Sendable {
    private struct State {
        /// The stamp of the last status told.
        var stamp: UInt64?
        /// The last status told.
        var isEmpty: Bool?
    }

    private let hub: HubCategory
    private let state = Mutex(State())

    init(hub: HubCategory) {
        self.hub = hub
    }

    /// Tells the hub the outbox's status at `snapshot` (empty only when `snapshot` is and
    /// `idle`, nothing being held in memory), unless a later snapshot's status was told already.
    /// With `always` false, a status equal to the last one told is not told again.
    ///
    /// - Returns: Whether a status was told.
    @discardableResult
    func report(_ snapshot: OutboxSnapshot, idle: Bool, always: Bool) -> Bool {
        let isEmpty = snapshot.isEmpty && idle
        return state.withLock { state in
            if let stamp = state.stamp, snapshot.stamp < stamp { return false }
            if !always, state.isEmpty == isEmpty { return false }
            state.stamp = snapshot.stamp
            state.isEmpty = isEmpty
            // Told under the lock: two statuses never reach listeners out of order.
            hub.dispatch(
                to: .dataStore,
                payload: HubPayload(
                    eventName: HubPayload.EventName.DataStore.outboxStatus,
                    data: OutboxStatusEvent(isEmpty: isEmpty)
                )
            )
            return true
        }
    }
}
