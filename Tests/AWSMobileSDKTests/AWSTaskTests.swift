import AWSCore
import Foundation
import Synchronization
import Testing

/// `AWSTask`: results, errors, continuations and the `async` bridge.
@Suite struct AWSTaskTests {
    struct Refusal: Error, Equatable {
        var reason: String
    }

    @Test func completedTasksHoldTheirResultOrError() {
        let done = AWSTask(result: 42)
        #expect(done.result == 42)
        #expect(done.error == nil)
        #expect(done.isCompleted)
        #expect(!done.isFaulted)

        let failed = AWSTask<Int>(error: Refusal(reason: "no"))
        #expect(failed.result == nil)
        #expect(failed.error as? Refusal == Refusal(reason: "no"))
        #expect(failed.isFaulted)
    }

    @Test func continueWithRunsOnceTheOperationCompletes() async throws {
        let gate = AsyncStream<Void>.makeStream()
        let task = AWSTask<String> {
            var iterator = gate.stream.makeAsyncIterator()
            await iterator.next()
            return "done"
        }
        #expect(!task.isCompleted)
        let seen = Mutex<[String]>([])
        let next = task.continueWith { (task: AWSTask) -> Any? in
            seen.withLock { $0.append(task.result ?? "nil") }
            return nil
        }
        gate.continuation.yield()
        try await next.value
        #expect(seen.withLock { $0 } == ["done"])
        #expect(try await task.value == "done")
    }

    @Test func theAsyncBridgeThrowsTheTasksError() async {
        let task = AWSTask<Int> { throw Refusal(reason: "refused") }
        await #expect(throws: Refusal(reason: "refused")) { try await task.value }
        let next = task.continueWith { task in task.error == nil ? "ok" : "failed" }
        await #expect(throws: Never.self) { try await next.value }
    }

    @Test func aContinuationReturningATaskCompletesWithIt() async {
        let first = AWSTask(result: 1)
        let chained = first.continueWith { _ in AWSTask<Int>(error: Refusal(reason: "second")) }
        await #expect(throws: Refusal(reason: "second")) { try await chained.value }

        let skipped = Mutex(false)
        let failing = AWSTask<Int>(error: Refusal(reason: "first"))
            .continueOnSuccessWith { _ in
                skipped.withLock { $0 = true }
                return nil
            }
        await #expect(throws: Refusal(reason: "first")) { try await failing.value }
        #expect(!skipped.withLock { $0 })
    }

    @Test func regionsHaveAWSNames() {
        #expect(AWSRegionType.USEast1.name == "us-east-1")
        #expect(AWSRegionType.APNortheast2.name == "ap-northeast-2")
        #expect("eu-west-1".aws_regionTypeValue() == .EUWest1)
        #expect("mars-north-1".aws_regionTypeValue() == .Unknown)
        #expect(Set(AWSRegionType.allCases.map(\.name)).count == AWSRegionType.allCases.count)
    }
}
