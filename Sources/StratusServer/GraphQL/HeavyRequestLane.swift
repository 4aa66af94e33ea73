import DequeModule
import Dispatch
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// One thread of its own, at a lower scheduling priority, for the requests that may hold a
/// core for long: large documents, which take long to parse and validate, and many root fields,
/// which GraphQL runs as thousands of small tasks.
///
/// On the shared concurrency pool (one thread per core) such tasks would queue ahead of every
/// other request's work, and a normal query would wait for them all. On the lane, the operating
/// system shares the cores between the lane's thread and the pool, and at its lower priority
/// (``niceness``) the lane gives way whenever another request has work, so a normal query is
/// answered as fast as on an idle server.
///
/// Heavy requests run one at a time, in arrival order: each may hold a hundred megabytes or more
/// while it runs (GraphQL's tasks and its resolved items), and several at once would add up, so
/// the server's resident memory stays near what one of them needs. (The memory a request frees
/// stays with the allocator for the next one: giving it back to the system with `malloc_trim`
/// took 35–50 ms with the allocator's locks held, and every other request waited.)
final class HeavyRequestLane: TaskExecutor {
    /// Documents longer than this many bytes of text are parsed, validated and run on the lane.
    static let documentBytes = 65_536
    /// Requests whose variables hold more values than this (a filter of thousands of
    /// conditions sent as a variable) run on the lane too.
    static let variableValues = 4_096
    /// Operations with more root selections than this run on the lane.
    static let rootSelections = 32
    /// The lane thread's nice value (Linux): 10 leaves it about a tenth of a core that normal
    /// requests also want.
    static let niceness: Int32 = 10

    private let thread = LaneThread()
    private let admission = AsyncGate(width: 1)
    private let jobs = Atomic<Int>(0)
    private let requests = Atomic<Int>(0)

    init() {
        thread.start()
    }

    deinit {
        thread.stop()
    }

    /// How many jobs have run on the lane.
    var jobsRun: Int { jobs.load(ordering: .relaxed) }

    /// How many requests have run on the lane.
    var requestsRun: Int { requests.load(ordering: .relaxed) }

    /// How many heavy requests wait for the one that runs.
    var waiting: Int { admission.waiting }

    func enqueue(_ job: consuming ExecutorJob) {
        jobs.add(1, ordering: .relaxed)
        thread.submit(UnownedJob(job), on: asUnownedTaskExecutor())
    }

    /// The value of `work`, run on the lane once the heavy requests before it have ended;
    /// cancelling the caller cancels it.
    ///
    /// A caller cancelled while it waits for its turn runs at once: cancelled work ends early.
    func run<T: Sendable>(_ work: @escaping @Sendable () async -> T) async -> T {
        do {
            return try await admission.run { await runOnThread(work) }
        } catch {
            return await runOnThread(work)
        }
    }

    private func runOnThread<T: Sendable>(_ work: @escaping @Sendable () async -> T) async -> T {
        requests.add(1, ordering: .relaxed)
        let task = Task(executorPreference: self) { await work() }
        let value = await withTaskCancellationHandler {
            await task.value
        } onCancel: {
            task.cancel()
        }
        return value
    }
}

/// The lane's thread and the jobs it runs, first in, first out.
private final class LaneThread: Sendable {
    private let state = Mutex<Deque<(UnownedJob, UnownedTaskExecutor)>>([])
    private let signal = DispatchSemaphore(value: 0)

    func start() {
        let thread = Thread { [self] in loop() }
        thread.name = "stratus.heavy-requests"
        thread.start()
    }

    func submit(_ job: UnownedJob, on executor: UnownedTaskExecutor) {
        state.withLock { $0.append((job, executor)) }
        signal.signal()
    }

    /// Ends the thread once the work submitted has run.
    func stop() {
        // The one signal without work: the thread ends when it finds no work for a signal.
        signal.signal()
    }

    private func loop() {
        #if canImport(Glibc)
            // On Linux a thread has a nice value of its own, and 0 names the calling thread.
            _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, HeavyRequestLane.niceness)
        #endif
        while true {
            signal.wait()
            let next = state.withLock { $0.popFirst() }
            // Only `stop` signals without work.
            guard let (job, executor) = next else { return }
            job.runSynchronously(on: executor)
        }
    }
}
