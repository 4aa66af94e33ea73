import Foundation
import Synchronization

/// Wakes tasks waiting for something to happen (new outbox events, the network back, a mutation
/// leaving the AppSync client's queue), without losing a wake-up: a waiter reads ``generation``
/// before it checks its condition, and a wait after that generation returns at once when the
/// signal fired in between.
package final class WakeSignal: Sendable {
    private struct State {
        var generation = 0
        var nextWaiter = 0
        var waiters: [Int: CheckedContinuation<Void, Never>] = [:]
    }
    private let state = Mutex(State())

    /// A signal that has not fired.
    package init() {}

    /// How many times the signal fired.
    package var generation: Int { state.withLock { $0.generation } }

    /// Wakes every waiter.
    package func fire() {
        let waiters = state.withLock { state in
            state.generation += 1
            defer { state.waiters = [:] }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Returns once the signal fired after `generation`, when `timeout` passed, or when the
    /// task is cancelled.
    package func wait(after generation: Int, timeout: Duration? = nil) async {
        guard let timeout else {
            await waitFired(after: generation)
            return
        }
        await withTaskGroup(of: Void.self) { group in
            group.addTask { try? await Task.sleep(for: timeout) }
            group.addTask { await self.waitFired(after: generation) }
            await group.next()
            group.cancelAll()
        }
    }

    private func waitFired(after generation: Int) async {
        let id = state.withLock { state in
            defer { state.nextWaiter += 1 }
            return state.nextWaiter
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let resumeNow = state.withLock { state -> Bool in
                    if state.generation > generation || Task.isCancelled { return true }
                    state.waiters[id] = continuation
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            state.withLock { $0.waiters.removeValue(forKey: id) }?.resume()
        }
    }
}
