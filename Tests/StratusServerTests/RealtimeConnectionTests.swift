import Foundation
import StratusCodegen
import Testing

@testable import StratusServer

/// A connection's queue without a socket: what a client that stops reading causes.
@Suite struct RealtimeConnectionTests {
    @Test func aFullQueueMarksTheConnectionOverflowedInsteadOfDroppingSilently() async throws {
        let test = try TestServer(postSchema)
        let connection = RealtimeConnection(limits: RealtimeLimits(maxQueuedMessages: 4))
        let request = try test.server.subscriptionRequest(
            query: "subscription { onCreatePost { id } }",
            variables: [:],
            operationName: nil
        )
        try connection.start(id: "1", request: request, access: .all)
        let model = try #require(test.server.api.schema.models.first)
        for index in 0..<10 {
            let item = StoredItem(values: ["id": .string("p\(index)")], version: 1, deleted: nil, lastChangedAt: 0)
            connection.receive(
                WriteEvent(sequence: UInt64(index), kind: .create, item: ResolvedItem(model: model, item: item))
            )
        }
        #expect(connection.overflowedAt != nil)
        var delivered = 0
        for await element in connection.outbound {
            if case .event = element { delivered += 1 }
        }
        // start_ack and three events fit; the stream then ends so the writer closes the connection.
        #expect(delivered == 3)
    }

    @Test func eventsOfOtherModelsKindsAndFiltersAreNotQueued() throws {
        let test = try TestServer(postSchema)
        let request = try test.server.subscriptionRequest(
            query: "subscription($f: ModelSubscriptionPostFilterInput) { onUpdatePost(filter: $f) { id } }",
            variables: ["f": ["rating": ["gt": 2]]],
            operationName: nil
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
