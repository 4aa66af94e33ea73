import Synchronization
import Testing

@testable import StratusServer

/// The first-come, first-served bound on bodies running at once.
@Suite struct AsyncGateTests {
    @Test func noMoreThanItsWidthRunAtOnceAndAllRun() async throws {
        let gate = AsyncGate(width: 3)
        let counts = Counts()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<40 {
                group.addTask {
                    try await gate.run {
                        let now = counts.running.add(1, ordering: .relaxed).newValue
                        counts.most.max(now, ordering: .relaxed)
                        try await Task.sleep(for: .milliseconds(1))
                        counts.running.subtract(1, ordering: .relaxed)
                        counts.finished.add(1, ordering: .relaxed)
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(counts.finished.load(ordering: .relaxed) == 40)
        #expect(counts.most.load(ordering: .relaxed) == 3)
    }

    @Test func aCancelledWaiterThrowsAndGivesUpItsTurn() async throws {
        let gate = AsyncGate(width: 1)
        let hold = Hold()
        let holder = Task { try await gate.run { await hold.hold() } }
        await hold.untilHeld()
        let waiter = Task { try await gate.run { "ran" } }
        try await Task.sleep(for: .milliseconds(20))
        waiter.cancel()
        await #expect(throws: CancellationError.self) { try await waiter.value }
        hold.release()
        try await holder.value
        // The cancelled waiter left no claim behind: the next caller goes straight in.
        #expect(try await gate.run { "next" } == "next")
    }

    /// Turns pass in arrival order, and a waiter that gave up is skipped without a trace.
    @Test func turnsPassInArrivalOrderSkippingAWaiterThatGaveUp() async throws {
        let gate = AsyncGate(width: 1)
        let order = Recorded<String>()
        let hold = Hold()
        let holder = Task { try await gate.run { await hold.hold() } }
        await hold.untilHeld()
        let first = await Self.waiter("first", ahead: 0, gate: gate, order: order)
        let second = await Self.waiter("second", ahead: 1, gate: gate, order: order)
        let third = await Self.waiter("third", ahead: 2, gate: gate, order: order)
        second.cancel()
        await #expect(throws: CancellationError.self) { try await second.value }
        #expect(gate.waiting == 2)
        hold.release()
        try await holder.value
        try await first.value
        try await third.value
        #expect(order.values == ["first", "third"])
        #expect(gate.waiting == 0)
    }

    /// A task that appends `name` to `order` in its turn, once it waits behind `ahead` others.
    private static func waiter(
        _ name: String,
        ahead: Int,
        gate: AsyncGate,
        order: Recorded<String>
    ) async -> Task<Void, any Error> {
        let task = Task { try await gate.run { order.append(name) } }
        while gate.waiting <= ahead { await Task.yield() }
        return task
    }
}

/// What the bodies run through a gate saw.
private final class Counts: Sendable {
    let running = Atomic<Int>(0)
    let most = Atomic<Int>(0)
    let finished = Atomic<Int>(0)
}

/// Values appended from several tasks.
final class Recorded<Value: Sendable>: Sendable {
    private let storage = Mutex<[Value]>([])

    func append(_ value: Value) { storage.withLock { $0.append(value) } }

    var values: [Value] { storage.withLock { $0 } }
}

/// A body that holds its turn until released, and tells when it has started.
struct Hold: Sendable {
    private let started: AsyncStream<Void>
    private let start: AsyncStream<Void>.Continuation
    private let released: AsyncStream<Void>
    private let releaser: AsyncStream<Void>.Continuation

    init() {
        (started, start) = AsyncStream.makeStream()
        (released, releaser) = AsyncStream.makeStream()
    }

    /// Says it started, then waits for ``release()``.
    func hold() async {
        start.yield()
        for await _ in released { break }
    }

    /// Returns once ``hold()`` has started.
    func untilHeld() async {
        for await _ in started { break }
    }

    /// Lets ``hold()`` return.
    func release() {
        releaser.yield()
    }
}
