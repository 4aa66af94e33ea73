import Foundation
import NIOCore
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
            try test.server.subscriptionRequest(query: $0, variables: [:], operationName: nil).selectionKey
        }
        #expect(keys[0] == keys[1])
        #expect(Set(keys).count == 3)
        #expect(test.server.selectionKeys.count == 3)
        let again = try test.server.subscriptionRequest(query: queries[0], variables: [:], operationName: nil)
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
            let request = try test.server.subscriptionRequest(query: query, variables: [:], operationName: nil)
            try connection.start(id: id, request: request, access: .all)
        }
        _ = connection.takePending()
        let low = try Self.item("Post", ["id": "p1", "title": "t", "rating": 1], in: test)
        connection.receive(WriteEvent(sequence: 1, kind: .update, item: low))
        let high = try Self.item("Post", ["id": "p2", "title": "t", "rating": 3], in: test)
        connection.receive(WriteEvent(sequence: 2, kind: .update, item: high))
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
            let request = try test.server.subscriptionRequest(query: document, variables: [:], operationName: nil)
            try connection.start(id: "1", request: request, access: .all)
            _ = connection.takePending()
            return connection
        }
        let post = try Self.item("Post", ["id": "p1", "title": "t", "rating": 1], in: test)
        let event = WriteEvent(sequence: 1, kind: .create, item: post)
        for connection in connections { connection.receive(event) }
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
            operationName: nil
        )
        let post = try Self.item("Post", ["id": "p1", "title": "t", "rating": 1], in: test)
        for socketTookStartAck in [false, true] {
            let wakes = TestLog()
            let connection = RealtimeConnection(limits: RealtimeLimits(maxQueuedMessages: 3)) { _ in
                wakes.append("wake")
            }
            try connection.start(id: "1", request: request, access: .all)
            #expect(connection.takePending().count == 1)
            connection.receive(WriteEvent(sequence: 1, kind: .create, item: post))
            connection.receive(WriteEvent(sequence: 2, kind: .create, item: post))
            // One wake per batch: the writer takes both events together and flushes once.
            #expect(wakes.entries == ["wake", "wake"])
            if socketTookStartAck { connection.written(1) }
            connection.receive(WriteEvent(sequence: 3, kind: .create, item: post))
            // start_ack still in flight and two events waiting: a third event is one too many.
            #expect((connection.overflowedAt != nil) == !socketTookStartAck)
            #expect(connection.takePending().count == (socketTookStartAck ? 3 : 2))
        }
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
