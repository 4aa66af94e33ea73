import Foundation
import StratusCodegen
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
            #expect(await socket.answer(within: .seconds(5)) == Self.badRequest)
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
                await socket.answer(within: .seconds(5))
                    == "HTTP/1.1 431 Request Header Fields Too Large\r\nconnection: close\r\ncontent-length: 0\r\n\r\n"
            )
        }
    }

    @Test func aPartialRequestHeadIsClosedAtItsDeadline() async throws {
        try await HTTPEndpointTests.withEndpoint(limits: ServerLimits(requestHeadTimeout: .milliseconds(300))) { url in
            let silent = try RawSocket(port: try #require(url.port))
            let partial = try RawSocket(port: try #require(url.port))
            partial.write("POST /graphql HTTP/1.1\r\nHost: 127.0.0.1\r\n")
            #expect(await silent.answer(within: .seconds(3)) == "")
            #expect(await partial.answer(within: .seconds(3)) == "")
        }
    }

    @Test func anIdleKeepAliveConnectionIsClosed() async throws {
        try await HTTPEndpointTests.withEndpoint(limits: ServerLimits(idleTimeout: .milliseconds(300))) { url in
            let socket = try RawSocket(port: try #require(url.port))
            socket.write(Self.request)
            let answer = try #require(await socket.answer(within: .seconds(3)))
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
                await refused.answer(within: .seconds(3))
                    == "HTTP/1.1 429 Too Many Requests\r\nconnection: close\r\ncontent-length: 0\r\n\r\n"
            )
            // A closed connection makes room for another.
            held.removeLast()
            try await Task.sleep(for: .milliseconds(300))
            let admitted = try RawSocket(port: port)
            admitted.write(Self.request.replacingOccurrences(of: "Host:", with: "Connection: close\r\nHost:"))
            let answer = try #require(await admitted.answer(within: .seconds(3)))
            #expect(answer.hasPrefix("HTTP/1.1 200 OK\r\n"))
            withExtendedLifetime(held) {}
        }
    }

    // MARK: - Execution deadline

    @Test func theDeadlineAnswersWhileWorkThatIgnoresCancellationRunsOn() async {
        // Work that notices no cancellation, like a long computation.
        let work = Task<Int, Never> {
            await withCheckedContinuation { continuation in
                DispatchQueue.global().asyncAfter(deadline: .now() + 3) { continuation.resume(returning: 1) }
            }
        }
        let start = ContinuousClock.now
        let value = await ExecutionDeadline.value(of: work, timeout: .milliseconds(100))
        #expect(value == nil)
        #expect(ContinuousClock.now - start < .seconds(2))
        #expect(work.isCancelled)
    }

    @Test func workPastTheDeadlineIsCancelled() async {
        let work = Task<Bool, Never> {
            try? await Task.sleep(for: .seconds(30))
            return Task.isCancelled
        }
        #expect(await ExecutionDeadline.value(of: work, timeout: .milliseconds(100)) == nil)
        let start = ContinuousClock.now
        #expect(await work.value)
        #expect(ContinuousClock.now - start < .seconds(1))
    }

    @Test func workWithinTheDeadlineGivesItsValue() async {
        let work = Task<Int, Never> { 42 }
        #expect(await ExecutionDeadline.value(of: work, timeout: .seconds(5)) == 42)
    }
}

extension ConnectionLimitsTests {
    @Test func aRequestPastTheExecutionLimitIsAnsweredAtTheDeadlineAndStopped() async throws {
        let limits = ServerLimits(executionTimeout: .milliseconds(500))
        try await HTTPEndpointTests.withEndpoint(limits: limits) { url in
            let headers = ["x-api-key": "da2-valid"]
            for index in 0..<10 {
                let create = #"mutation { createPost(input: {title: "t\#(index)", rating: 1, status: DRAFT}) { id } }"#
                _ = try await HTTPEndpointTests.send(
                    url,
                    body: JSON.object(["query": .string(create)]).text,
                    headers: headers
                )
            }
            // Unlimited, this takes several seconds.
            let aliases = (0..<3000).map { "a\($0): listPosts { items { id title rating } }" }.joined(separator: " ")
            let start = ContinuousClock.now
            let response = try await HTTPEndpointTests.send(
                url,
                body: JSON.object(["query": .string("{ " + aliases + " }")]).text,
                headers: headers
            )
            #expect(response.status == 200)
            #expect(
                response.body
                    == #"{"data":null,"errors":[{"errorType":"ExecutionTimeout","message":"Execution timed out."}]}"#
            )
            #expect(ContinuousClock.now - start < .seconds(3))
            // The cancelled work no longer holds the server.
            let next = ContinuousClock.now
            let get = try await HTTPEndpointTests.send(
                url,
                body: #"{"query":"{ getPost(id: \"1\") { id } }"}"#,
                headers: headers
            )
            #expect(get.body == #"{"data":{"getPost":null}}"#)
            #expect(ContinuousClock.now - next < .seconds(1))
        }
    }
}

extension ConnectionLimitsTests {
    @Test func aGracefulShutdownCancelsWhatStillRunsAtItsDeadline() async throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let server = try StratusServer(schema: try SchemaParser().parse(postSchema), dataDirectory: directory)
        let http = StratusHTTPServer(
            server: server,
            authorization: ServerAuthorization(defaultMode: .apiKey, apiKeys: [APIKey(value: "da2-valid")]),
            limits: ServerLimits(shutdownTimeout: .milliseconds(300)),
            log: { _ in }
        )
        for index in 0..<10 {
            _ = await server.execute(
                query: #"mutation { createPost(input: {title: "t\#(index)", rating: 1, status: DRAFT}) { id } }"#,
                identity: .apiKey
            )
        }
        let (ports, portContinuation) = AsyncStream.makeStream(of: Int.self)
        let (shutdownRequests, shutdown) = AsyncStream.makeStream(of: Void.self)
        let running = Task {
            try await http.run(port: 0, shutdownRequests: shutdownRequests) { portContinuation.yield($0) }
        }
        var iterator = ports.makeAsyncIterator()
        let port = try #require(await iterator.next())
        // A request that takes several seconds, well within the execution limit.
        let aliases = (0..<3000).map { "a\($0): listPosts { items { id title rating } }" }.joined(separator: " ")
        let body = JSON.object(["query": .string("{ " + aliases + " }")]).text
        let slow = try RawSocket(port: port)
        slow.write(
            "POST /graphql HTTP/1.1\r\nHost: 127.0.0.1\r\nx-api-key: da2-valid\r\n"
                + "Content-Length: \(body.utf8.count)\r\n\r\n" + body
        )
        try await Task.sleep(for: .milliseconds(500))
        let start = ContinuousClock.now
        shutdown.yield()
        _ = await running.result
        #expect(ContinuousClock.now - start < .seconds(3))
        // The connection was closed, answered or not.
        #expect(await slow.answer(within: .seconds(2)) != nil)
        try server.close()
    }
}
