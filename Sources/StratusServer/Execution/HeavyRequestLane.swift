import Dispatch
import Synchronization

/// One thread of its own for the requests that may hold a core for long: large documents, which
/// take long to parse and validate, and many root fields, which GraphQL runs side by side.
///
/// Such a request runs as thousands of small tasks. On the shared concurrency pool (one thread
/// per core) they queue ahead of every other request's work, and a normal query waits for them
/// all; on the lane, the operating system shares the cores between the lane's thread and the
/// pool, so other requests go on. Heavy requests wait for each other, one at a time.
final class HeavyRequestLane: TaskExecutor {
    /// Documents longer than this many bytes of text are parsed, validated and run on the lane.
    static let documentBytes = 65_536
    /// Operations with more root selections than this run on the lane.
    static let rootSelections = 32

    private let queue = DispatchQueue(label: "stratus.heavy-requests")
    private let jobs = Atomic<Int>(0)

    /// How many jobs have run on the lane.
    var jobsRun: Int { jobs.load(ordering: .relaxed) }

    func enqueue(_ job: consuming ExecutorJob) {
        jobs.add(1, ordering: .relaxed)
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        queue.async { job.runSynchronously(on: executor) }
    }

    /// The value of `work`, run on the lane; cancelling the caller cancels it.
    func run<T: Sendable>(_ work: @escaping @Sendable () async -> T) async -> T {
        let task = Task(executorPreference: self) { await work() }
        return await withTaskCancellationHandler {
            await task.value
        } onCancel: {
            task.cancel()
        }
    }
}
