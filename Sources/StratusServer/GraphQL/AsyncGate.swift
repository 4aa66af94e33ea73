import DequeModule
import Synchronization

/// A first-come, first-served bound on how many bodies run at once.
///
/// A request's store reads go through one of width 4: GraphQL runs a query's root fields, and
/// the items of a list, side by side, and without a bound one request of 2,000 aliased lists
/// queues 2,000 reads ahead of every other request's, and keeps reading after its resolver
/// budget has decided its answer. Through the gate it holds at most ``width`` of the store's
/// readers, other requests' reads go between its own, and a resolver that waited finds out at
/// once whether the request still needs it. Heavy requests go through one of width 1 (see
/// ``HeavyRequestLane``).
///
/// Entering, leaving and giving up a wait each take constant time, however many wait.
package final class AsyncGate: Sendable {
    let width: Int
    private let state: Mutex<State>

    private struct State {
        var running = 0
        /// The waiters' ids in arrival order; the id of one that gave up stays until its turn.
        var order: Deque<Int> = []
        var waiters: [Int: CheckedContinuation<Void, any Error>] = [:]
        var nextID = 0
    }

    package init(width: Int) {
        precondition(width > 0, "A gate lets at least one body through.")
        self.width = width
        state = Mutex(State())
    }

    /// How many callers wait for their turn.
    var waiting: Int { state.withLock { $0.waiters.count } }

    /// Runs `body` once fewer than ``width`` bodies run.
    ///
    /// - Throws: `CancellationError` when the calling task is cancelled while it waits, or what
    ///   `body` throws.
    package func run<T: Sendable>(_ body: () async throws -> T) async throws -> T {
        try await enter()
        defer { leave() }
        return try await body()
    }

    private func enter() async throws {
        let id: Int? = state.withLock { state in
            if state.running < width {
                state.running += 1
                return nil
            }
            state.nextID += 1
            return state.nextID
        }
        guard let id else { return }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let admitted = state.withLock { state in
                    // Cancelled before it could wait: the handler below found nothing to resume.
                    if Task.isCancelled { return false }
                    state.order.append(id)
                    state.waiters[id] = continuation
                    return true
                }
                if !admitted { continuation.resume(throwing: CancellationError()) }
            }
        } onCancel: {
            let waiter = state.withLock { $0.waiters.removeValue(forKey: id) }
            waiter?.resume(throwing: CancellationError())
        }
    }

    private func leave() {
        let next = state.withLock { state in
            while let id = state.order.popFirst() {
                // The slot passes to the first waiter still waiting: `running` stays the same.
                if let waiter = state.waiters.removeValue(forKey: id) { return Optional(waiter) }
            }
            state.running -= 1
            return nil
        }
        next?.resume()
    }
}
