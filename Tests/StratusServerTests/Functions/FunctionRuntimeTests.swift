import Foundation
import StratusServer
import Testing

/// Functions as long-running processes that poll the Lambda Runtime API the server hosts:
/// one process serves many invocations, `concurrency` processes serve them side by side, and
/// errors, crashes and timeouts become AppSync's errors while the process is started again.
@Suite struct FunctionRuntimeTests {
    static let client = URL(filePath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appending(path: "Interop/runtime_client.py")

    static let schema = """
        type Note @model { id: ID! }
        type Answer { pid: Int requestId: String deadlineMs: Float functionArn: String function: String field: String }
        type Query { answer(mode: String, place: String): Answer slow(mode: String): Answer }
        """

    /// A server whose `answer` field runs the client with `concurrency` processes and a timeout
    /// of 20 seconds, and whose `slow` field runs it in a function that times out after 3.
    static func server(concurrency: Int = 1) async throws -> TestServer {
        try await TestServer(
            schema,
            configuration: ServerConfiguration(
                functions: [
                    "answer-dev": LocalFunction(
                        handler: .runtime(["python3", client.path], concurrency: concurrency),
                        timeout: .seconds(20)
                    ),
                    "slow-dev": LocalFunction(
                        handler: .runtime(["python3", client.path], concurrency: 1),
                        timeout: .seconds(3)
                    ),
                ],
                resolvers: ["Query.answer": .function("answer-dev"), "Query.slow": .function("slow-dev")]
            )
        )
    }

    static let selection = "{ pid requestId deadlineMs functionArn function field }"

    @Test func oneProcessServesManyInvocations() async throws {
        let server = try await Self.server()
        var pids: Set<Int> = []
        var requestIds: Set<String> = []
        for _ in 0..<5 {
            let started = Date().timeIntervalSince1970 * 1000
            let body = await server.json("{ answer \(Self.selection) }")
            let finished = Date().timeIntervalSince1970 * 1000
            let answer = try #require(body["data"]?["answer"], "\(body)")
            pids.insert(try #require(answer["pid"]?.intValue))
            requestIds.insert(try #require(answer["requestId"]?.stringValue))
            let deadline = try #require(answer["deadlineMs"]?.doubleValue)
            // The function's 20 seconds, from when its process took the invocation.
            #expect(deadline >= (started + 20_000).rounded(.down) && deadline <= finished + 20_000)
            #expect(answer["functionArn"] == "arn:aws:lambda:us-east-1:000000000000:function:answer-dev")
            #expect(answer["function"] == "answer-dev")
            #expect(answer["field"] == "Query.answer")
        }
        #expect(pids.count == 1)
        #expect(requestIds.count == 5)
    }

    @Test func concurrentInvocationsRunInSeveralProcesses() async throws {
        let server = try await Self.server(concurrency: 2)
        // Each invocation waits until the other one runs: only two processes answer both at once.
        let place = temporaryDirectory()
        try FileManager.default.createDirectory(at: place, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: place) }
        let query = #"{ answer(mode: "meet", place: "\#(place.path)") { pid } }"#
        async let first = server.json(query)
        async let second = server.json(query)
        let pids = Set([await first, await second].compactMap { $0["data"]?["answer"]?["pid"]?.intValue })
        #expect(pids.count == 2)
    }

    @Test func errorsCrashesAndTimeoutsAreAppSyncErrorsAndTheProcessComesBack() async throws {
        let server = try await Self.server()
        func error(_ field: String, _ mode: String) async -> JSON? {
            await server.json(#"{ \#(field)(mode: "\#(mode)") { pid } }"#)["errors"]?[0]
        }
        func pid(_ field: String = "answer") async -> Int? {
            await server.json("{ \(field) { pid } }")["data"]?[field]?["pid"]?.intValue
        }
        let first = await pid()
        #expect(await error("answer", "fail")?["errorType"] == "Lambda:Unhandled")
        #expect(await error("answer", "fail")?["message"] == "It failed on purpose")
        #expect(await pid() == first)
        #expect(await error("answer", "crash")?["message"] == "Runtime exited with error: exit status 3")
        let restarted = await pid()
        #expect(restarted != nil && restarted != first)
        let slow = await pid("slow")
        let timedOut = await error("slow", "hang")
        #expect(timedOut?["errorType"] == "Lambda:Unhandled")
        #expect(timedOut?["message"] == "Task timed out after 3.00 seconds")
        let afterTimeout = await pid("slow")
        #expect(slow != nil && afterTimeout != nil && afterTimeout != slow)
    }

    @Test func aRuntimeThatCannotStartFailsWithItsExitNotATimeout() async throws {
        let server = try await TestServer(
            Self.schema,
            configuration: ServerConfiguration(
                functions: [
                    "answer-dev": LocalFunction(
                        handler: .runtime(["python3", "-c", "import sys; sys.exit(2)"], concurrency: 1),
                        timeout: .seconds(60)
                    )
                ],
                resolvers: ["Query.answer": .function("answer-dev")]
            )
        )
        // Without a process that ever asked for an invocation, it fails with the exit, not with a
        // timeout (60 + 10 seconds).
        let body = await server.json("{ answer { pid } }")
        #expect(body["errors"]?[0]?["message"] == "Runtime exited with error: exit status 2")
    }
}
