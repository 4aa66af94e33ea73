import Synchronization

/// The store reads one request may have under way at once.
///
/// GraphQL runs a query's root fields, and the items of a list, side by side: without a bound,
/// one request of 2,000 aliased lists queues 2,000 reads ahead of every other request's, and
/// keeps reading after its resolver budget has decided its answer. Through the gate it holds
/// at most ``width`` of the store's readers, other requests' reads go between its own, and a
/// resolver that waited finds out at once whether the request still needs it.
final class ReadGate: Sendable {
    let width: Int
    private let state: Mutex<State>

    private struct State {
        var running = 0
        var waiters: [(id: Int, continuation: CheckedContinuation<Void, any Error>)] = []
        var nextID = 0
    }

    init(width: Int) {
        precondition(width > 0, "A read gate lets at least one read through.")
        self.width = width
        state = Mutex(State())
    }

    /// Runs `body` once fewer than ``width`` bodies run.
    ///
    /// - Throws: `CancellationError` when the calling task is cancelled while it waits, or what
    ///   `body` throws.
    func run<T: Sendable>(_ body: () async throws -> T) async throws -> T {
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
                    state.waiters.append((id, continuation))
                    return true
                }
                if !admitted { continuation.resume(throwing: CancellationError()) }
            }
        } onCancel: {
            let waiter = state.withLock { state in
                state.waiters.firstIndex { $0.id == id }.map { state.waiters.remove(at: $0) }
            }
            waiter?.continuation.resume(throwing: CancellationError())
        }
    }

    private func leave() {
        let next = state.withLock { state in
            if state.waiters.isEmpty {
                state.running -= 1
                return nil as CheckedContinuation<Void, any Error>?
            }
            // The slot passes to the first waiter: `running` stays the same.
            return state.waiters.removeFirst().continuation
        }
        next?.resume()
    }
}
