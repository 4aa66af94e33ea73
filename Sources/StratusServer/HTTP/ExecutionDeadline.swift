import Synchronization

/// Waits for a request's work until its deadline, and no longer.
///
/// A task group would wait for its child to end even after cancelling it, so a request whose
/// work does not notice cancellation at once would hold its caller past the deadline. The work
/// runs in its own task instead: at the deadline, or when the caller is cancelled, it is
/// cancelled and left to end on its own, and the caller answers at once.
enum ExecutionDeadline {
    /// The value of `work`, or `nil` when it is not done within `timeout` or the calling task
    /// is cancelled; `work` is cancelled then.
    static func value<Value: Sendable>(of work: Task<Value, Never>, timeout: Duration) async -> Value? {
        let race = Race<Value>()
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                race.begin(continuation)
                let timer = Task {
                    // Cancelled when the work finishes first; the guard below tells which.
                    try? await Task.sleep(for: timeout)
                    guard !Task.isCancelled else { return }
                    // The deadline's answer first: work that ends as soon as it is cancelled
                    // must not win the race with the value it gives then.
                    race.finish(with: nil)
                    work.cancel()
                }
                Task {
                    let value = await work.value
                    timer.cancel()
                    race.finish(with: value)
                }
            }
        } onCancel: {
            race.finish(with: nil)
            work.cancel()
        }
    }

    /// The first of the work, the deadline and cancellation to finish, which resumes the waiter.
    private final class Race<Value: Sendable>: Sendable {
        private enum State {
            case idle
            case waiting(CheckedContinuation<Value?, Never>)
            case finished(Value?)
        }

        private let state = Mutex<State>(.idle)

        func begin(_ continuation: CheckedContinuation<Value?, Never>) {
            let finished: Value?? = state.withLock { state in
                switch state {
                case .idle:
                    state = .waiting(continuation)
                    return nil
                case .waiting:
                    preconditionFailure("A race has one waiter.")
                case .finished(let value):
                    return .some(value)
                }
            }
            if let finished { continuation.resume(returning: finished) }
        }

        func finish(with value: Value?) {
            let continuation: CheckedContinuation<Value?, Never>? = state.withLock { state in
                switch state {
                case .idle:
                    state = .finished(value)
                    return nil
                case .waiting(let continuation):
                    state = .finished(value)
                    return continuation
                case .finished:
                    return nil
                }
            }
            continuation?.resume(returning: value)
        }
    }
}
