import Synchronization
import Testing

@testable import StratusServer

/// The bound on the store reads one request has under way.
@Suite struct ReadGateTests {
    @Test func noMoreThanItsWidthRunAtOnceAndAllRun() async throws {
        let gate = ReadGate(width: 3)
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
        let gate = ReadGate(width: 1)
        let (entered, enter) = AsyncStream<Void>.makeStream()
        let (release, releaser) = AsyncStream<Void>.makeStream()
        let holder = Task {
            try await gate.run {
                enter.yield()
                for await _ in release { break }
            }
        }
        for await _ in entered { break }
        let waiter = Task { try await gate.run { "ran" } }
        try await Task.sleep(for: .milliseconds(20))
        waiter.cancel()
        await #expect(throws: CancellationError.self) { try await waiter.value }
        releaser.yield()
        try await holder.value
        // The cancelled waiter left no claim behind: the next caller goes straight in.
        #expect(try await gate.run { "next" } == "next")
    }
}

/// What the bodies run through a gate saw.
private final class Counts: Sendable {
    let running = Atomic<Int>(0)
    let most = Atomic<Int>(0)
    let finished = Atomic<Int>(0)
}
