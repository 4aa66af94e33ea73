import Foundation
import StratusCodegen
import Testing

@testable import StratusServer

/// A connection's queue without a socket: what a client that stops reading causes.
@Suite struct RealtimeConnectionTests {
    @Test func aFullQueueMarksTheConnectionOverflowedInsteadOfDroppingSilently() async throws {
        let test = try await TestServer(postSchema)
        let connection = RealtimeConnection(limits: RealtimeLimits(maxQueuedMessages: 4))
        let request = try test.server.subscriptionRequest(
            query: "subscription { onCreatePost { id } }",
            variables: [:],
            operationName: nil,
            identity: .apiKey
        )
        try connection.start(id: "1", request: request, access: .all)
        let model = try #require(test.server.api.schema.models.first)
        for index in 0..<10 {
            let item = StoredItem(values: ["id": .string("p\(index)")], version: 1, deleted: nil, lastChangedAt: 0)
            connection.receive([
                WriteEvent(sequence: UInt64(index + 1), kind: .create, item: ResolvedItem(model: model, item: item))
            ])
        }
        #expect(connection.overflowedAt != nil)
        // start_ack and three events fit; the writer is then told to send the slow-consumer error.
        #expect(connection.takePending().count == 4)
        var endings = connection.endings.makeAsyncIterator()
        #expect(await endings.next() == .slowConsumer)
    }

    @Test func eventsOfOtherModelsKindsAndFiltersAreNotQueued() async throws {
        let test = try await TestServer(postSchema)
        let request = try test.server.subscriptionRequest(
            query: "subscription($f: ModelSubscriptionPostFilterInput) { onUpdatePost(filter: $f) { id } }",
            variables: ["f": ["rating": ["gt": 2]]],
            operationName: nil,
            identity: .apiKey
        )
        #expect(request.kind == .update)
        let model = try #require(test.server.api.schema.models.first)
        let low = ResolvedItem(
            model: model,
            item: StoredItem(values: ["rating": 1], version: 1, deleted: nil, lastChangedAt: 0)
        )
        let high = ResolvedItem(
            model: model,
            item: StoredItem(values: ["rating": 3], version: 1, deleted: nil, lastChangedAt: 0)
        )
        #expect(!request.matches(WriteEvent(sequence: 1, kind: .update, item: low)))
        #expect(!request.matches(WriteEvent(sequence: 2, kind: .create, item: high)))
        #expect(request.matches(WriteEvent(sequence: 3, kind: .update, item: high)))
    }
}
