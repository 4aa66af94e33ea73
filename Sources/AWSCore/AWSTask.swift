import Foundation
import Synchronization

/// The result of an asynchronous call of the AWS Mobile SDK's API: a value or an error, once.
///
/// Code written for the AWS Mobile SDK reads it in a continuation:
///
/// ```swift
/// client.invoke(request).continueWith { (task: AWSTask) -> Any? in
///     if let error = task.error { print("Error occurred: \(error)"); return nil }
///     print(task.result!.statusCode)
///     return nil
/// }
/// ```
///
/// New code awaits it instead: `let response = try await client.invoke(request).value`.
///
/// A task completes once; ``result`` and ``error`` are `nil` until then. Continuations run on
/// a task of the Swift concurrency pool, never on the caller's thread, so blocks must be
/// `@Sendable`.
public final class AWSTask<ResultType: Sendable>: Sendable {
    private enum State {
        case pending([@Sendable (Result<ResultType, any Error>) -> Void])
        case completed(Result<ResultType, any Error>)
    }

    private let state: Mutex<State>

    /// A task that has completed with `result`.
    public init(result: ResultType) {
        state = Mutex(.completed(.success(result)))
    }

    /// A task that has failed with `error`.
    public init(error: any Error) {
        state = Mutex(.completed(.failure(error)))
    }

    /// A task that completes with what `operation` returns or throws; `operation` starts at once.
    ///
    /// ```swift
    /// func fetchName() -> AWSTask<String> {
    ///     AWSTask { try await server.name() }
    /// }
    /// ```
    public convenience init(operation: @escaping @Sendable () async throws -> ResultType) {
        self.init(pending: ())
        Task {
            do {
                complete(.success(try await operation()))
            } catch {
                complete(.failure(error))
            }
        }
    }

    private init(pending: Void) {
        state = Mutex(.pending([]))
    }

    /// The value the task completed with; `nil` while it runs and when it failed.
    public var result: ResultType? {
        guard case .completed(.success(let value)) = state.withLock({ $0 }) else { return nil }
        return value
    }

    /// The error the task failed with; `nil` while it runs and when it succeeded.
    public var error: (any Error)? {
        guard case .completed(.failure(let error)) = state.withLock({ $0 }) else { return nil }
        return error
    }

    /// Whether the task has completed, with a value or an error.
    public var isCompleted: Bool {
        if case .completed = state.withLock({ $0 }) { return true }
        return false
    }

    /// Whether the task failed.
    public var isFaulted: Bool { error != nil }

    /// The value, once the task completes: the bridge to `async` code.
    ///
    /// - Throws: The error the task failed with.
    public var value: ResultType {
        get async throws {
            try await withCheckedThrowingContinuation { continuation in
                whenCompleted { continuation.resume(with: $0) }
            }
        }
    }

    /// Runs `block` with this task once it has completed, and returns a task that completes
    /// when `block` has run. When `block` returns an `AWSTask`, the returned task completes
    /// when that one does, with its error if it fails.
    ///
    /// The value `block` returns is not kept: continuation chains of the AWS Mobile SDK that
    /// pass values along should `await` ``value`` instead.
    @discardableResult
    public func continueWith(block: @escaping @Sendable (AWSTask<ResultType>) -> Any?) -> AWSTask<Void> {
        let next = AWSTask<Void>(pending: ())
        whenCompleted { _ in
            let returned = block(self)
            if let chained = returned as? any AWSTaskCompletion {
                chained.whenDone { next.complete($0) }
            } else {
                next.complete(.success(()))
            }
        }
        return next
    }

    /// Runs `block` with the value once the task has succeeded; a failure skips `block` and
    /// passes on to the returned task.
    @discardableResult
    public func continueOnSuccessWith(block: @escaping @Sendable (AWSTask<ResultType>) -> Any?) -> AWSTask<Void> {
        let next = AWSTask<Void>(pending: ())
        whenCompleted { outcome in
            if case .failure(let error) = outcome {
                next.complete(.failure(error))
                return
            }
            let returned = block(self)
            if let chained = returned as? any AWSTaskCompletion {
                chained.whenDone { next.complete($0) }
            } else {
                next.complete(.success(()))
            }
        }
        return next
    }

    /// Blocks the calling thread until the task completes; never call it from a task of the
    /// Swift concurrency pool, whose threads the task may need.
    public func waitUntilFinished() {
        let done = DispatchSemaphore(value: 0)
        whenCompleted { _ in done.signal() }
        done.wait()
    }

    /// Calls `handler` with the outcome, on a new task, once the task completes.
    private func whenCompleted(_ handler: @escaping @Sendable (Result<ResultType, any Error>) -> Void) {
        let outcome: Result<ResultType, any Error>? = state.withLock { state in
            switch state {
            case .pending(var handlers):
                handlers.append(handler)
                state = .pending(handlers)
                return nil
            case .completed(let outcome):
                return outcome
            }
        }
        if let outcome {
            Task { handler(outcome) }
        }
    }

    /// Completes the task; a task completes once, and later outcomes are ignored.
    private func complete(_ outcome: Result<ResultType, any Error>) {
        let handlers: [@Sendable (Result<ResultType, any Error>) -> Void] = state.withLock { state in
            guard case .pending(let handlers) = state else { return [] }
            state = .completed(outcome)
            return handlers
        }
        for handler in handlers {
            Task { handler(outcome) }
        }
    }
}

/// A task whose completion a continuation can wait for without knowing its result type.
private protocol AWSTaskCompletion: Sendable {
    func whenDone(_ handler: @escaping @Sendable (Result<Void, any Error>) -> Void)
}

extension AWSTask: AWSTaskCompletion {
    fileprivate func whenDone(_ handler: @escaping @Sendable (Result<Void, any Error>) -> Void) {
        whenCompleted { handler($0.map { _ in () }) }
    }
}
