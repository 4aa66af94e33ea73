import Foundation
import StratusCodegen
import Synchronization
import Testing

@testable import StratusServer

/// Clients that hold connections without sending a request: garbage, half a request, an
/// oversized header, idle keep-alive connections, and too many connections from one address.
@Suite struct ConnectionLimitsTests {
    static let badRequest = "HTTP/1.1 400 Bad Request\r\nconnection: close\r\ncontent-length: 0\r\n\r\n"

    static let request = """
        POST /graphql HTTP/1.1\r
        Host: 127.0.0.1\r
        Content-Type: application/json\r
        x-api-key: da2-valid\r
        Content-Length: 41\r
        \r
        {"query":"{ getPost(id: \\"1\\") { id } }"}
        """

    @Test(
        arguments: [
            "GARBAGE GARBAGE GARBAGE\r\n\r\n",
            "POST /graphql HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: -1\r\n\r\n",
        ]
    )
    func anUnparsableRequestHeadIsAnswered400AndClosed(head: String) async throws {
        try await HTTPEndpointTests.withEndpoint { url in
            let socket = try RawSocket(port: try #require(url.port))
            socket.write(head)
            #expect(await socket.answer(within: .seconds(30)) == Self.badRequest)
        }
    }

    @Test func anOversizedHeaderIsAnswered431AndClosed() async throws {
        try await HTTPEndpointTests.withEndpoint { url in
            let socket = try RawSocket(port: try #require(url.port))
            socket.write(
                "POST /graphql HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Padding: " + String(repeating: "a", count: 1 << 20)
                    + "\r\n\r\n"
            )
            #expect(
                await socket.answer(within: .seconds(30))
                    == "HTTP/1.1 431 Request Header Fields Too Large\r\nconnection: close\r\ncontent-length: 0\r\n\r\n"
            )
        }
    }

    @Test func aPartialRequestHeadIsClosedAtItsDeadline() async throws {
        try await HTTPEndpointTests.withEndpoint(limits: ServerLimits(requestHeadTimeout: .milliseconds(300))) { url in
            let silent = try RawSocket(port: try #require(url.port))
            let partial = try RawSocket(port: try #require(url.port))
            partial.write("POST /graphql HTTP/1.1\r\nHost: 127.0.0.1\r\n")
            #expect(await silent.answer(within: .seconds(30)) == "")
            #expect(await partial.answer(within: .seconds(30)) == "")
        }
    }

    @Test func anIdleKeepAliveConnectionIsClosed() async throws {
        try await HTTPEndpointTests.withEndpoint(limits: ServerLimits(idleTimeout: .milliseconds(300))) { url in
            let socket = try RawSocket(port: try #require(url.port))
            socket.write(Self.request)
            let answer = try #require(await socket.answer(within: .seconds(30)))
            #expect(answer.hasPrefix("HTTP/1.1 200 OK\r\n"))
            #expect(answer.hasSuffix("\r\n\r\n" + #"{"data":{"getPost":null}}"#))
        }
    }

    @Test func connectionsBeyondTheLimitOfAnAddressAreAnswered429() async throws {
        try await HTTPEndpointTests.withEndpoint(limits: ServerLimits(maxConnectionsPerAddress: 2)) { url in
            let port = try #require(url.port)
            var held = [try RawSocket(port: port), try RawSocket(port: port)]
            // Let the server accept both before the third arrives.
            try await Task.sleep(for: .milliseconds(300))
            let refused = try RawSocket(port: port)
            #expect(
                await refused.answer(within: .seconds(30))
                    == "HTTP/1.1 429 Too Many Requests\r\nconnection: close\r\ncontent-length: 0\r\n\r\n"
            )
            // A closed connection makes room for another.
            held.removeLast()
            try await Task.sleep(for: .milliseconds(300))
            let admitted = try RawSocket(port: port)
            admitted.write(Self.request.replacingOccurrences(of: "Host:", with: "Connection: close\r\nHost:"))
            let answer = try #require(await admitted.answer(within: .seconds(30)))
            #expect(answer.hasPrefix("HTTP/1.1 200 OK\r\n"))
            withExtendedLifetime(held) {}
        }
    }

    static let requestTimeout =
        "HTTP/1.1 408 Request Timeout\r\nconnection: close\r\ncontent-length: 0\r\n\r\n"

    /// Sends a byte every 100 ms, each well within the idle timeout, until stopped; on a thread
    /// of its own, so that a busy task pool does not delay the bytes.
    final class Trickle: Sendable {
        private let stopped = Mutex(false)

        init(_ text: String, to socket: RawSocket) {
            Thread { [self] in
                for character in text {
                    Thread.sleep(forTimeInterval: 0.1)
                    guard !stopped.withLock({ $0 }) else { return }
                    socket.write(String(character))
                }
            }.start()
        }

        func cancel() {
            stopped.withLock { $0 = true }
        }
    }

    static func trickle(_ text: String, to socket: RawSocket) -> Trickle {
        Trickle(text, to: socket)
    }

    /// A body sent a byte at a time held its connection for ever: the idle timeout started again
    /// at each byte.
    @Test func aBodySentSlowlyIsAnswered408AtTheRequestDeadline() async throws {
        try await HTTPEndpointTests.withEndpoint(limits: ServerLimits(requestTimeout: .seconds(1))) { url in
            let socket = try RawSocket(port: try #require(url.port))
            socket.write(
                "POST /graphql HTTP/1.1\r\nHost: 127.0.0.1\r\nx-api-key: da2-valid\r\nContent-Length: 200\r\n\r\n{"
            )
            let trickle = Self.trickle(String(repeating: " ", count: 199), to: socket)
            #expect(await socket.answer(within: .seconds(30)) == Self.requestTimeout)
            trickle.cancel()
        }
    }

    /// The deadline of a request on a kept-alive connection starts at its first byte: its head
    /// sent slowly is cut too, after the first request was answered.
    @Test func aLaterRequestsHeadSentSlowlyIsCutAtTheRequestDeadline() async throws {
        try await HTTPEndpointTests.withEndpoint(limits: ServerLimits(requestTimeout: .seconds(1))) { url in
            let socket = try RawSocket(port: try #require(url.port))
            socket.write(Self.request)
            let trickle = Self.trickle(
                "POST /graphql HTTP/1.1\r\nHost: 127.0.0.1\r\nx-api-key: da2-valid\r\n",
                to: socket
            )
            let answer = try #require(await socket.answer(within: .seconds(30)))
            #expect(answer.hasPrefix("HTTP/1.1 200 OK\r\n"))
            #expect(answer.hasSuffix(#"{"data":{"getPost":null}}"# + Self.requestTimeout))
            trickle.cancel()
        }
    }

    @Test func aRequestSentWithinTheDeadlineIsAnswered() async throws {
        // Half a second of bytes, well within the deadline even on a busy machine.
        try await HTTPEndpointTests.withEndpoint(limits: ServerLimits(requestTimeout: .seconds(20))) { url in
            let socket = try RawSocket(port: try #require(url.port))
            let request = Self.request.replacingOccurrences(of: "Host:", with: "Connection: close\r\nHost:")
            let split = request.index(request.endIndex, offsetBy: -5)
            socket.write(String(request[..<split]))
            let trickle = Self.trickle(String(request[split...]), to: socket)
            let answer = try #require(await socket.answer(within: .seconds(30)))
            #expect(answer.hasPrefix("HTTP/1.1 200 OK\r\n"))
            trickle.cancel()
        }
    }

    /// Clients spread over many addresses held every descriptor: the server's own cap answers
    /// 503 past it, whatever the address.
    @Test func connectionsBeyondTheServersLimitAreAnswered503() async throws {
        try await HTTPEndpointTests.withEndpoint(limits: ServerLimits(maxConnections: 2)) { url in
            let port = try #require(url.port)
            var held = [try RawSocket(port: port), try RawSocket(port: port)]
            // Let the server accept both before the third arrives.
            try await Task.sleep(for: .milliseconds(300))
            let refused = try RawSocket(port: port)
            #expect(
                await refused.answer(within: .seconds(30))
                    == "HTTP/1.1 503 Service Unavailable\r\nconnection: close\r\ncontent-length: 0\r\n\r\n"
            )
            held.removeLast()
            try await Task.sleep(for: .milliseconds(300))
            let admitted = try RawSocket(port: port)
            admitted.write(Self.request.replacingOccurrences(of: "Host:", with: "Connection: close\r\nHost:"))
            #expect(try #require(await admitted.answer(within: .seconds(30))).hasPrefix("HTTP/1.1 200 OK\r\n"))
            withExtendedLifetime(held) {}
        }
    }

    // MARK: - Execution deadline

    @Test func theDeadlineAnswersWhileWorkThatIgnoresCancellationRunsOn() async {
        // Work that notices no cancellation, like a long computation.
        let finished = WorkFlag()
        let work = Task<Int, Never> {
            await finished.wait(seconds: 30)
            return 1
        }
        let value = await ExecutionDeadline.value(of: work, timeout: .milliseconds(100))
        #expect(value == nil)
        #expect(!finished.isSet)
        #expect(work.isCancelled)
    }

    @Test func workPastTheDeadlineIsCancelled() async {
        // Work that ends as soon as it is cancelled races the deadline's answer; the deadline
        // wins every time. Many short rounds give the race its chances.
        for _ in 0..<40 {
            let work = Task<Bool, Never> {
                try? await Task.sleep(for: .seconds(30))
                return Task.isCancelled
            }
            #expect(await ExecutionDeadline.value(of: work, timeout: .milliseconds(5)) == nil)
            #expect(await work.value)
        }
    }

    @Test func workWithinTheDeadlineGivesItsValue() async {
        let work = Task<Int, Never> { 42 }
        #expect(await ExecutionDeadline.value(of: work, timeout: .seconds(60)) == 42)
    }
}

extension ConnectionLimitsTests {
    /// A running server whose conflict handler waits 30 seconds, noticing no cancellation, as
    /// CPU-bound work would, without taking a CPU from the other tests.
    struct SlowServer {
        let server: StratusServer
        let port: Int
        let running: Task<Void, any Error>
        let shutdown: AsyncStream<Void>.Continuation
        let directory: URL
        /// Set when the conflict handler's wait ends.
        let handlerFinished = WorkFlag()

        /// A mutation that conflicts, and so waits for the handler.
        static let slowMutation =
            #"{"query":"mutation { updatePost(input: {id: \"p1\", title: \"C\", _version: 1}) { id } }"}"#

        init(limits: ServerLimits, requestHistory: RequestHistory? = nil) async throws {
            directory = temporaryDirectory()
            let finished = handlerFinished
            let handler: ConflictHandler = { _ in
                await finished.wait(seconds: 30)
                return .reject
            }
            server = try await TestStore.server(
                schema: try SchemaParser().parse(postSchema),
                configuration: ServerConfiguration(conflictResolution: .custom(handler)),
                directory: directory
            )
            _ = await server.execute(
                query: #"mutation { createPost(input: {id: "p1", title: "A", rating: 1, status: DRAFT}) { id } }"#,
                identity: .apiKey
            )
            _ = await server.execute(
                query: #"mutation { updatePost(input: {id: "p1", title: "B", _version: 1}) { id } }"#,
                identity: .apiKey
            )
            let http = StratusHTTPServer(
                server: server,
                authorization: ServerAuthorization(defaultMode: .apiKey, apiKeys: [APIKey(value: "da2-valid")]),
                limits: limits,
                log: { _ in },
                requestHistory: requestHistory
            )
            let (ports, portContinuation) = AsyncStream.makeStream(of: Int.self)
            let (shutdownRequests, shutdown) = AsyncStream.makeStream(of: Void.self)
            self.shutdown = shutdown
            running = Task {
                try await http.run(port: 0, shutdownRequests: shutdownRequests) { portContinuation.yield($0) }
            }
            var iterator = ports.makeAsyncIterator()
            port = try #require(await iterator.next())
        }

        var url: URL { URL(string: "http://127.0.0.1:\(port)/graphql")! }

        func stop() async throws {
            running.cancel()
            _ = await running.result
            try server.close()
            try? FileManager.default.removeItem(at: directory)
        }
    }

    @Test func aRequestPastTheExecutionLimitIsAnsweredAtTheDeadline() async throws {
        let slow = try await SlowServer(limits: ServerLimits(executionTimeout: .milliseconds(500)))
        let response = try await HTTPEndpointTests.send(
            slow.url,
            body: SlowServer.slowMutation,
            headers: ["x-api-key": "da2-valid"]
        )
        #expect(response.status == 200)
        #expect(
            response.body
                == #"{"data":null,"errors":[{"errorType":"ExecutionTimeout","message":"Execution timed out."}]}"#
        )
        // The handler would hold the request for 30 seconds.
        #expect(!slow.handlerFinished.isSet)
        try await slow.stop()
    }

    /// The history keeps the answer the client got, not what the work answers later.
    @Test func aRequestPastTheExecutionLimitIsKeptWithItsTimeout() async throws {
        let history = RequestHistory()
        let slow = try await SlowServer(
            limits: ServerLimits(executionTimeout: .milliseconds(300)),
            requestHistory: history
        )
        let response = try await HTTPEndpointTests.send(
            slow.url,
            body: SlowServer.slowMutation,
            headers: ["x-api-key": "da2-valid"]
        )
        try await slow.stop()
        #expect(response.status == 200)
        let record = try #require(history.records.first)
        #expect(record.errors == [["errorType": "ExecutionTimeout", "message": "Execution timed out."]])
        #expect(record.decision == .allowed)
    }

    @Test func aGracefulShutdownCancelsWhatStillRunsAtItsDeadline() async throws {
        let slow = try await SlowServer(
            // The execution limit outlasts the handler: only the shutdown deadline can end it.
            limits: ServerLimits(executionTimeout: .seconds(120), shutdownTimeout: .milliseconds(300))
        )
        let socket = try RawSocket(port: slow.port)
        socket.write(
            "POST /graphql HTTP/1.1\r\nHost: 127.0.0.1\r\nx-api-key: da2-valid\r\n"
                + "Content-Length: \(SlowServer.slowMutation.utf8.count)\r\n\r\n" + SlowServer.slowMutation
        )
        try await Task.sleep(for: .milliseconds(500))
        slow.shutdown.yield()
        _ = await slow.running.result
        // Without the deadline, shutdown would wait for the handler's 30 seconds.
        #expect(!slow.handlerFinished.isSet)
        #expect(await socket.answer(within: .seconds(30)) != nil)
        try await slow.stop()
    }
}

/// Work that waits without noticing cancellation, and says when it is done.
final class WorkFlag: Sendable {
    private let state = Mutex(false)

    var isSet: Bool { state.withLock { $0 } }

    /// Waits `seconds` on a timer that cancellation does not end, then sets the flag.
    func wait(seconds: Int) async {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().asyncAfter(deadline: .now() + .seconds(seconds)) { continuation.resume() }
        }
        state.withLock { $0 = true }
    }
}
