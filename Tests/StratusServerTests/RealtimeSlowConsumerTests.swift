import Foundation
import StratusCodegen
import Testing

@testable import StratusServer

/// Subscribers that stop reading, over real sockets: the bytes waiting for them are bounded and
/// counted, their connections are closed, and what they held is released.
@Suite struct RealtimeSlowConsumerTests {
    /// A client that upgrades, subscribes `subscriptions` times to new posts, reads the acks,
    /// and then stops reading.
    static func pausedSubscriber(port: Int, subscriptions: Int) async throws -> RawSocket {
        let socket = try RawSocket(port: port, receiveBufferBytes: 4096)
        let header = Data(#"{"host":"127.0.0.1:\#(port)","x-api-key":"da2-valid"}"#.utf8).base64EncodedString()
        socket.write(
            "GET /graphql/realtime?header=\(header)&payload=e30= HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n"
                + "Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
                + "Sec-WebSocket-Version: 13\r\nSec-WebSocket-Protocol: graphql-ws\r\n\r\n"
        )
        socket.writeWebSocketText(#"{"type":"connection_init"}"#)
        for index in 0..<subscriptions {
            let data: JSON = ["query": "subscription { onCreatePost { id title } }", "variables": [:]]
            let start: JSON = [
                "id": .string("s\(index)"), "type": "start",
                "payload": ["data": .string(data.text), "extensions": [:]],
            ]
            socket.writeWebSocketText(start.text)
        }
        let read = await socket.read(until: #""type":"start_ack""#, occurrences: subscriptions, within: .seconds(30))
        #expect(read?.hasPrefix("HTTP/1.1 101 Switching Protocols\r\n") == true)
        return socket
    }

    /// Paused subscribers of large events: each holds at most its bound while it is open, is
    /// closed as a slow consumer, and the server holds nothing for it afterwards. Without the
    /// bound in bytes, 10,000 messages of 200 KB could wait for each.
    @Test func pausedSubscribersAreBoundedInBytesAndClosed() async throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let server = try await TestStore.server(schema: try SchemaParser().parse(postSchema), directory: directory)
        let bound = 1 << 20
        let http = StratusHTTPServer(
            server: server,
            authorization: ServerAuthorization(defaultMode: .apiKey, apiKeys: [APIKey(value: "da2-valid")]),
            realtimeLimits: RealtimeLimits(maxQueuedBytes: bound),
            log: { _ in }
        )
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        let task = Task { try await http.run(port: 0) { continuation.yield($0) } }
        defer { task.cancel() }
        var iterator = ports.makeAsyncIterator()
        let port = try #require(await iterator.next())

        var subscribers: [RawSocket] = []
        for _ in 0..<3 { subscribers.append(try await Self.pausedSubscriber(port: port, subscriptions: 5)) }
        let title = String(repeating: "t", count: 200 * 1024)
        for index in 0..<30 {
            // Subscribers see the fields the mutation selects.
            let created = await server.execute(
                query: "mutation($input: CreatePostInput!) { createPost(input: $input) { id title } }",
                variables: [
                    "input": ["id": .string("p\(index)"), "title": .string(title), "rating": 1, "status": "DRAFT"]
                ],
                identity: .apiKey
            )
            #expect(created.text.hasPrefix(#"{"data":{"createPost":{"id":"p\#(index)","title":"ttt"#))
        }
        // Each subscriber was sent 30 MB; none was let hold more than the bound.
        for subscriber in subscribers {
            let rest = try #require(await subscriber.answer(within: .seconds(30)), "the connection stays open")
            #expect(rest.count < 30 * 5 * 200 * 1024)
        }
        #expect(http.realtimeQueues.peakConnectionBytes > bound / 2)
        #expect(http.realtimeQueues.peakConnectionBytes <= bound)
        // Closed, the connections hold nothing any more.
        let deadline = ContinuousClock.now + .seconds(30)
        while http.realtimeQueues.queuedBytes != 0, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(http.realtimeQueues.queuedBytes == 0)
        task.cancel()
        _ = await task.result
        try server.close()
    }

    /// The slow-consumer error names the bound in bytes when that is the one passed.
    @Test func aQueueOverTheByteBoundEndsTheConnectionAsASlowConsumer() async throws {
        let test = try await TestServer(postSchema)
        let gauge = RealtimeQueueGauge()
        let connection = RealtimeConnection(limits: RealtimeLimits(maxQueuedBytes: 64 * 1024), gauge: gauge)
        let request = try test.server.subscriptionRequest(
            query: "subscription { onCreatePost { id title } }",
            variables: [:],
            operationName: nil,
            identity: .apiKey
        )
        try connection.start(id: "1", request: request, access: .all)
        let model = try #require(test.server.api.schema.models.first)
        let title = JSON.string(String(repeating: "t", count: 20 * 1024))
        for index in 0..<10 {
            let item = StoredItem(
                values: ["id": .string("p\(index)"), "title": title],
                version: 1,
                deleted: nil,
                lastChangedAt: 0
            )
            connection.receive([
                WriteEvent(sequence: UInt64(index + 1), kind: .create, item: ResolvedItem(model: model, item: item))
            ])
        }
        #expect(connection.overflow == .bytes)
        // start_ack and three events of 20 KB fit in 64 KB; the fourth does not.
        #expect(connection.takePending().count == 4)
        #expect(connection.queuedBytes <= 64 * 1024)
        #expect(gauge.queuedBytes == connection.queuedBytes)
        var endings = connection.endings.makeAsyncIterator()
        #expect(await endings.next() == .slowConsumer)
        connection.release()
        // The messages taken are in flight until their writes end.
        #expect(gauge.queuedBytes == connection.queuedBytes)
        connection.written(4, bytes: connection.queuedBytes)
        #expect(gauge.queuedBytes == 0)
    }
}
