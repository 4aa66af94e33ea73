import Synchronization

/// Wakes a waiting task: rung when work arrives or the network returns. A ring while nobody
/// waits is kept for the next wait.
final class Doorbell: Sendable {
    private struct State {
        var rung = false
        var waiter: CheckedContinuation<Void, Never>?
        var generation = 0
    }

    private let state = Mutex(State())

    /// Wakes the waiter, or the next one.
    func ring() {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard let waiter = state.waiter else {
                state.rung = true
                return nil
            }
            state.waiter = nil
            return waiter
        }
        waiter?.resume()
    }

    /// Returns when rung, or after `timeout` when one is given.
    func wait(timeout: Duration?) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let generation = state.withLock { state -> Int? in
                if state.rung {
                    state.rung = false
                    return nil
                }
                state.generation += 1
                state.waiter = continuation
                return state.generation
            }
            guard let generation else {
                continuation.resume()
                return
            }
            guard let timeout else { return }
            Task { [self] in
                do {
                    try await Task.sleep(for: timeout)
                } catch {
                    // Cancelled: wake the waiter all the same.
                }
                let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
                    guard state.generation == generation, let waiter = state.waiter else { return nil }
                    state.waiter = nil
                    return waiter
                }
                waiter?.resume()
            }
        }
    }
}
