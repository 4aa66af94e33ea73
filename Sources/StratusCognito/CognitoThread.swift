import DequeModule
import Dispatch
import Foundation
import Synchronization

/// Threads the local Cognito's work runs on, off the concurrency pool: a 3072-bit SRP
/// exponentiation takes about a second in a debug build and scrypt a large fraction of one, and
/// on the pool (one thread per core) they would hold a core the API's requests need.
///
/// Work runs here as tasks that prefer this executor: their synchronous stretches (hashing,
/// exponentiations, token signing, SQLite's calls) run on one of the threads, first come first
/// served, and while they wait for the store the thread is free.
final class CognitoThread: TaskExecutor {
    /// The thread the pools' reads and writes of their records run on, one operation at a time
    /// (see ``CognitoUserPool/serially(_:)``).
    static let shared = CognitoThread(name: "stratus.cognito", count: 1)

    /// The threads password hashing and SRP run on: half the cores (at least one), so that a
    /// burst of sign-ins and sign-ups leaves the other half to the API. ``PasswordLane`` bounds
    /// what each kind of work may hold of them.
    static let passwords = CognitoThread(
        name: "stratus.cognito.passwords",
        count: max(1, ProcessInfo.processInfo.activeProcessorCount / 2)
    )

    /// How many threads run the work.
    let count: Int

    private let jobs = Mutex<Deque<UnownedJob>>([])
    private let signal = DispatchSemaphore(value: 0)

    private init(name: String, count: Int) {
        self.count = count
        for index in 0..<count {
            let thread = Thread { [self] in loop() }
            thread.name = count == 1 ? name : "\(name).\(index)"
            thread.start()
        }
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        jobs.withLock { $0.append(job) }
        signal.signal()
    }

    /// The value of `work`, run on the threads.
    func run<T: Sendable>(_ work: @Sendable () async throws -> T) async throws -> T {
        try await withTaskExecutorPreference(self) { try await work() }
    }

    /// The value of `work`, run on the threads while the calling thread waits for it: for
    /// synchronous callers, such as a command's `run()`. Never call it from one of the threads.
    func waiting<T: Sendable>(for work: @escaping @Sendable () async throws -> T) throws -> T {
        let outcome = Outcome<T>()
        Task(executorPreference: self) {
            do {
                outcome.set(.success(try await work()))
            } catch {
                outcome.set(.failure(error))
            }
        }
        return try outcome.wait().get()
    }

    private func loop() {
        let executor = asUnownedTaskExecutor()
        while true {
            signal.wait()
            guard let job = jobs.withLock({ $0.popFirst() }) else { continue }
            job.runSynchronously(on: executor)
        }
    }
}

/// The result of work a synchronous caller waits for.
private final class Outcome<T: Sendable>: Sendable {
    private let result = Mutex<Result<T, any Error>?>(nil)
    private let done = DispatchSemaphore(value: 0)

    func set(_ value: Result<T, any Error>) {
        result.withLock { $0 = value }
        done.signal()
    }

    func wait() -> Result<T, any Error> {
        done.wait()
        return result.withLock { $0! }
    }
}
