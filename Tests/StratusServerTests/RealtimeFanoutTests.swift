import Foundation
import NIOCore
import NIOEmbedded
import NIOWebSocket
import StratusCodegen
import Synchronization
import Testing

@testable import StratusServer

/// The server's fan-out: which connections hear an event, how often its payload is encoded,
/// and how messages the socket has not taken yet count against the slow-consumer limit.
@Suite struct RealtimeFanoutTests {
    static let schema = """
        type Post @model {
          id: ID!
          title: String!
          rating: Int!
        }

        type Comment @model {
          id: ID!
          content: String!
        }
        """

    /// A stored item of `model` named `name` in `test`'s schema.
    static func item(_ name: String, _ values: JSONObject, in test: TestServer) throws -> ResolvedItem {
        let model = try #require(test.server.api.schema.models.first { $0.name == name })
        return ResolvedItem(model: model, item: StoredItem(values: values, version: 1, deleted: nil, lastChangedAt: 0))
    }

    @Test func theBroadcasterCallsOnlyTheListenersOfTheEventsModelAndKind() async throws {
        let test = try await TestServer(Self.schema)
        let broadcaster = MutationBroadcaster()
        let heard = TestLog()
        let posts = broadcaster.addListener { heard.append("posts \($0.model.name) \($0.kind)") }
        let comments = broadcaster.addListener { heard.append("comments \($0.model.name) \($0.kind)") }
        broadcaster.subscribe(posts, to: .init(model: "Post", kind: .create))
        broadcaster.subscribe(posts, to: .init(model: "Post", kind: .update))
        broadcaster.subscribe(comments, to: .init(model: "Comment", kind: .create))
        // A second subscription to the same topic: one call per event, and it outlives one unsubscribe.
        broadcaster.subscribe(comments, to: .init(model: "Comment", kind: .create))
        broadcaster.unsubscribe(comments, from: .init(model: "Comment", kind: .create))

        let post = try Self.item("Post", ["id": "p1", "title": "t", "rating": 1], in: test)
        let comment = try Self.item("Comment", ["id": "c1", "content": "c"], in: test)
        broadcaster.publish(model: post.model, kind: .create, item: post.item)
        broadcaster.publish(model: post.model, kind: .delete, item: post.item)
        broadcaster.publish(model: comment.model, kind: .create, item: comment.item)
        broadcaster.publish(model: comment.model, kind: .update, item: comment.item)
        broadcaster.publish(model: post.model, kind: .update, item: post.item)
        #expect(heard.entries == ["posts Post create", "comments Comment create", "posts Post update"])

        broadcaster.unsubscribe(comments, from: .init(model: "Comment", kind: .create))
        broadcaster.removeListener(posts)
        broadcaster.publish(model: comment.model, kind: .create, item: comment.item)
        broadcaster.publish(model: post.model, kind: .create, item: post.item)
        #expect(heard.entries.count == 3)
        #expect(broadcaster.listenerCount(of: .init(model: "Post", kind: .create)) == 0)
        #expect(broadcaster.listenerCount(of: .init(model: "Comment", kind: .create)) == 0)
    }

    /// The listeners of a topic hear its events in the order they subscribed, before and after
    /// one of them leaves, and one that comes back is heard last.
    @Test func listenersHearEventsInTheOrderTheySubscribed() async throws {
        let test = try await TestServer(Self.schema)
        let broadcaster = MutationBroadcaster()
        let heard = TestLog()
        let topic = MutationBroadcaster.Topic(model: "Post", kind: .update)
        let tokens = (0..<4).map { index in broadcaster.addListener { _ in heard.append("\(index)") } }
        for token in tokens.reversed() { broadcaster.subscribe(token, to: topic) }
        let post = try Self.item("Post", ["id": "p1", "title": "t", "rating": 1], in: test)
        broadcaster.publish(model: post.model, kind: .update, item: post.item)
        broadcaster.unsubscribe(tokens[2], from: topic)
        broadcaster.publish(model: post.model, kind: .update, item: post.item)
        broadcaster.subscribe(tokens[2], to: topic)
        broadcaster.removeListener(tokens[0])
        broadcaster.publish(model: post.model, kind: .update, item: post.item)
        #expect(heard.entries == ["3", "2", "1", "0", "3", "1", "0", "3", "1", "2"])
    }

    /// Subscriptions with the same response key and selection share one key string, however
    /// their documents are spelled; others get keys of their own.
    @Test func equalSelectionsShareOneKey() async throws {
        let test = try await TestServer(Self.schema)
        let queries = [
            "subscription { onUpdatePost { id title } }",
            "subscription Named { onUpdatePost { id\n title } }",
            "subscription { onUpdatePost { id } }",
            "subscription { renamed: onUpdatePost { id title } }",
        ]
        let keys = try queries.map {
            try test.server.subscriptionRequest(query: $0, variables: [:], operationName: nil, identity: .apiKey)
                .selectionKey
        }
        #expect(keys[0] == keys[1])
        #expect(Set(keys).count == 3)
        #expect(test.server.selectionKeys.count == 3)
        let again = try test.server.subscriptionRequest(
            query: queries[0],
            variables: [:],
            operationName: nil,
            identity: .apiKey
        )
        #expect(again.selectionKey == keys[0])
        #expect(test.server.selectionKeys.count == 3)
    }

    @Test func aConnectionQueuesDataOnlyForTheSubscriptionsWhoseFiltersMatch() async throws {
        let test = try await TestServer(Self.schema)
        let connection = RealtimeConnection(limits: RealtimeLimits())
        let subscriptions: [(id: String, query: String)] = [
            ("high", "subscription { onUpdatePost(filter: {rating: {gt: 2}}) { id } }"),
            ("p1", #"subscription { onUpdatePost(filter: {id: {eq: "p1"}}) { id } }"#),
            ("comments", "subscription { onUpdateComment { id } }"),
            ("all", "subscription { onUpdatePost { id } }"),
        ]
        for (id, query) in subscriptions {
            let request = try test.server.subscriptionRequest(
                query: query,
                variables: [:],
                operationName: nil,
                identity: .apiKey
            )
            try connection.start(id: id, request: request, access: .all)
        }
        _ = connection.takePending()
        let low = try Self.item("Post", ["id": "p1", "title": "t", "rating": 1], in: test)
        connection.receive([WriteEvent(sequence: 1, kind: .update, item: low)])
        let high = try Self.item("Post", ["id": "p2", "title": "t", "rating": 3], in: test)
        connection.receive([WriteEvent(sequence: 2, kind: .update, item: high)])
        #expect(
            Self.texts(connection.takePending()) == [
                #"{"id":"p1","type":"data","payload":{"data":{"onUpdatePost":{"id":"p1"}}}}"#,
                #"{"id":"all","type":"data","payload":{"data":{"onUpdatePost":{"id":"p1"}}}}"#,
                #"{"id":"high","type":"data","payload":{"data":{"onUpdatePost":{"id":"p2"}}}}"#,
                #"{"id":"all","type":"data","payload":{"data":{"onUpdatePost":{"id":"p2"}}}}"#,
            ]
        )
    }

    @Test func anEventIsEncodedOncePerDistinctSelection() async throws {
        let test = try await TestServer(Self.schema)
        let documents = [
            "subscription { onCreatePost { id title } }",
            // Another document, operation name and spelling, but the same selection.
            "subscription Named {\n  onCreatePost {\n    id\n    title\n  }\n}",
            "subscription { onCreatePost { id rating } }",
            "subscription { onCreatePost { id title } }",
        ]
        let connections = try documents.map { document in
            let connection = RealtimeConnection(limits: RealtimeLimits())
            let request = try test.server.subscriptionRequest(
                query: document,
                variables: [:],
                operationName: nil,
                identity: .apiKey
            )
            try connection.start(id: "1", request: request, access: .all)
            _ = connection.takePending()
            return connection
        }
        let post = try Self.item("Post", ["id": "p1", "title": "t", "rating": 1], in: test)
        let event = WriteEvent(sequence: 1, kind: .create, item: post)
        for connection in connections { connection.receive([event]) }
        #expect(event.payloads.encodings == 2)
        #expect(
            connections.flatMap { Self.texts($0.takePending()) } == [
                #"{"id":"1","type":"data","payload":{"data":{"onCreatePost":{"id":"p1","title":"t"}}}}"#,
                #"{"id":"1","type":"data","payload":{"data":{"onCreatePost":{"id":"p1","title":"t"}}}}"#,
                #"{"id":"1","type":"data","payload":{"data":{"onCreatePost":{"id":"p1","rating":1}}}}"#,
                #"{"id":"1","type":"data","payload":{"data":{"onCreatePost":{"id":"p1","title":"t"}}}}"#,
            ]
        )
    }

    @Test func messagesTakenButNotWrittenCountAgainstTheQueueLimit() async throws {
        let test = try await TestServer(Self.schema)
        let request = try test.server.subscriptionRequest(
            query: "subscription { onCreatePost { id } }",
            variables: [:],
            operationName: nil,
            identity: .apiKey
        )
        let post = try Self.item("Post", ["id": "p1", "title": "t", "rating": 1], in: test)
        for socketTookStartAck in [false, true] {
            let wakes = TestLog()
            let connection = RealtimeConnection(limits: RealtimeLimits(maxQueuedMessages: 3)) { _ in
                wakes.append("wake")
            }
            try connection.start(id: "1", request: request, access: .all)
            let startAck = connection.takePending()
            #expect(startAck.count == 1)
            connection.receive([WriteEvent(sequence: 1, kind: .create, item: post)])
            connection.receive([WriteEvent(sequence: 2, kind: .create, item: post)])
            // Only start_ack woke the writer: events are taken by the loop's fan-out.
            #expect(wakes.entries == ["wake"])
            if socketTookStartAck { connection.written(1, bytes: startAck[0].size) }
            connection.receive([WriteEvent(sequence: 3, kind: .create, item: post)])
            // start_ack still in flight and two events waiting: a third event is one too many.
            #expect((connection.overflowedAt != nil) == !socketTookStartAck)
            #expect(connection.takePending().count == (socketTookStartAck ? 3 : 2))
        }
    }

    /// A subscription hears only the events published after it was registered, however late its
    /// connection is given them, and each event once, however often the loop's sweeps give it.
    @Test func aConnectionSkipsEventsFromBeforeItsSubscriptionAndEventsItHad() async throws {
        let test = try await TestServer(Self.schema)
        let connection = RealtimeConnection(limits: RealtimeLimits())
        let request = try test.server.subscriptionRequest(
            query: "subscription { onUpdatePost { id } }",
            variables: [:],
            operationName: nil,
            identity: .apiKey
        )
        try connection.start(id: "s", request: request, access: .all, after: 2)
        _ = connection.takePending()
        let events = try (1...4).map { sequence in
            WriteEvent(
                sequence: UInt64(sequence),
                kind: .update,
                item: try Self.item("Post", ["id": .string("p\(sequence)"), "title": "t", "rating": 1], in: test)
            )
        }
        connection.receive(Array(events[0...2]))
        connection.receive(events)
        connection.receive(Array(events[1...3]))
        #expect(
            Self.texts(connection.takePending()) == [
                #"{"id":"s","type":"data","payload":{"data":{"onUpdatePost":{"id":"p3"}}}}"#,
                #"{"id":"s","type":"data","payload":{"data":{"onUpdatePost":{"id":"p4"}}}}"#,
            ]
        )
    }

    /// The loop's fan-out, from the broadcaster to the bytes on each socket: every connection of
    /// an event's topic gets it once, in publication order, in frames NIO's decoder reads; a
    /// subscription made after an event was published does not get it, even when the loop
    /// delivers it later; and connections that end leave the broadcaster's topics.
    @Test func theLoopsFanoutWritesEachEventToEachConnectionOfItsTopicOnce() async throws {
        let test = try await TestServer(Self.schema)
        let loop = NIOAsyncTestingEventLoop()
        let broadcaster = MutationBroadcaster()
        let fanout = RealtimeFanout.make(eventLoop: loop, events: broadcaster)
        let updates = try test.server.subscriptionRequest(
            query: "subscription { onUpdatePost { id rating } }",
            variables: [:],
            operationName: nil,
            identity: .apiKey
        )
        let creates = try test.server.subscriptionRequest(
            query: "subscription { onCreatePost { id } }",
            variables: [:],
            operationName: nil,
            identity: .apiKey
        )
        let updateTopic = MutationBroadcaster.Topic(model: "Post", kind: .update)

        /// A connection with a socket on the loop; the loop runs what a caller outside it asks.
        func open() async throws -> (RealtimeConnection, RealtimeFrameWriter, NIOAsyncTestingChannel) {
            let channel = try await NIOAsyncTestingChannel(loop: loop) { channel in
                try channel.pipeline.syncOperations.addHandler(WebSocketFrameEncoder())
            }
            return (RealtimeConnection(limits: RealtimeLimits()), await RealtimeFrameWriter.make(for: channel), channel)
        }
        @Sendable func subscribe(
            _ connection: RealtimeConnection,
            _ writer: RealtimeFrameWriter,
            _ subscriptions: [(id: String, request: SubscriptionRequest)]
        ) throws {
            for (id, request) in subscriptions {
                let after = fanout.subscribe(connection, writer: writer, to: request.topic)
                try connection.start(id: id, request: request, access: .all, after: after)
            }
            _ = connection.takePending()
        }

        let (first, firstWriter, firstSocket) = try await open()
        try subscribe(first, firstWriter, [("u", updates), ("c", creates)])
        let (second, secondWriter, secondSocket) = try await open()
        try subscribe(second, secondWriter, [("u", updates)])
        let (third, thirdWriter, thirdSocket) = try await open()
        let post = try Self.item("Post", ["id": "p1", "title": "t", "rating": 1], in: test)
        let rated = try Self.item("Post", ["id": "p1", "title": "t", "rating": 2], in: test)
        // On the loop, which runs the fan-out's task only after this block.
        try await loop.executeInContext {
            broadcaster.publish(model: post.model, kind: .update, item: post.item)
            // Subscribed after the first update was published, before the loop delivers it.
            try subscribe(third, thirdWriter, [("late", updates)])
            broadcaster.publish(model: post.model, kind: .create, item: post.item)
            broadcaster.publish(model: post.model, kind: .delete, item: post.item)
            broadcaster.publish(model: rated.model, kind: .update, item: rated.item)
        }
        await loop.run()

        let update1 = #"{"data":{"onUpdatePost":{"id":"p1","rating":1}}}"#
        let update2 = #"{"data":{"onUpdatePost":{"id":"p1","rating":2}}}"#
        let create = #"{"data":{"onCreatePost":{"id":"p1"}}}"#
        #expect(
            try await Self.messages(firstSocket) == [
                #"{"id":"u","type":"data","payload":"# + update1 + "}",
                #"{"id":"c","type":"data","payload":"# + create + "}",
                #"{"id":"u","type":"data","payload":"# + update2 + "}",
            ]
        )
        #expect(
            try await Self.messages(secondSocket) == [
                #"{"id":"u","type":"data","payload":"# + update1 + "}",
                #"{"id":"u","type":"data","payload":"# + update2 + "}",
            ]
        )
        #expect(try await Self.messages(thirdSocket) == [#"{"id":"late","type":"data","payload":"# + update2 + "}"])

        #expect(fanout.connectionCount(of: updateTopic) == 3)
        #expect(broadcaster.listenerCount(of: updateTopic) == 1)
        for connection in [first, second, third] { fanout.remove(connection) }
        #expect(fanout.connectionCount(of: updateTopic) == 0)
        #expect(broadcaster.listenerCount(of: updateTopic) == 0)
        #expect(broadcaster.listenerCount(of: .init(model: "Post", kind: .create)) == 0)
        broadcaster.publish(model: post.model, kind: .update, item: post.item)
        await loop.run()
        #expect(try await Self.messages(firstSocket).isEmpty)
    }

    /// The text messages written to `channel` since the last call, read with NIO's frame decoder.
    private static func messages(_ channel: NIOAsyncTestingChannel) async throws -> [String] {
        var bytes = ByteBuffer()
        while var part = try await channel.readOutbound(as: ByteBuffer.self) {
            bytes.writeBuffer(&part)
        }
        let decoder = EmbeddedChannel(handler: ByteToMessageHandler(WebSocketFrameDecoder()))
        defer { _ = try? decoder.finish() }
        try decoder.writeInbound(bytes)
        var messages: [String] = []
        while let frame = try decoder.readInbound(as: WebSocketFrame.self) {
            #expect(frame.fin && frame.opcode == .text)
            messages.append(String(buffer: frame.data))
        }
        return messages
    }

    private static func texts(_ elements: [RealtimeConnection.Outbound]) -> [String] {
        elements.map { element in
            if case .close(let code, let reason) = element { return "close \(code) \(reason)" }
            return element.bytes.map { String(buffer: $0) } ?? ""
        }
    }
}

/// Lines appended from any thread.
final class TestLog: Sendable {
    private let lines = Mutex<[String]>([])
    func append(_ line: String) { lines.withLock { $0.append(line) } }
    var entries: [String] { lines.withLock { $0 } }
}
