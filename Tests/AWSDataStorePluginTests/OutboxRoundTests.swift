import Amplify
import BlogModels
import Foundation
import GRDB
import Testing

@testable import AWSDataStorePlugin

/// The outbox's bookkeeping in rounds: several answered events settled in one transaction, and
/// the next events taken in the same one.
@Suite struct OutboxRoundTests {
    /// The backend's answer for the blog `id`.
    static func answer(_ id: String, name: String, version: Int = 1) throws -> JSONValue {
        try JSONValue(
            parsing: Data(
                #"{"id":"\#(id)","name":"\#(name)","_version":\#(version),"_deleted":false,"_lastChangedAt":7}"#.utf8
            )
        )
    }

    /// The backend's `_version` the store keeps for the blog `id`.
    static func storedVersion(_ id: String, _ engine: StorageEngine) async throws -> Int? {
        let record = RecordKey(modelName: "Blog", identifier: id)
        return try await engine.read { db in try StorageEngine.storedVersion(record, db) }
    }

    @Test func aRoundSettlesEveryAcceptedEventAndTakesTheNextOnes() async throws {
        let store = try TestStore()
        let engine = try store.engine
        for id in ["b1", "b2", "b3"] { try await store.plugin.save(Blog(id: id, name: "Local \(id)")) }

        let first = try await engine.outboxRound(settling: [], take: 2, excluding: [])
        #expect(first.taken.map(\.event.modelId) == ["b1", "b2"])
        #expect(first.taken.map(\.version) == [nil, nil])
        #expect(first.settled.isEmpty)
        #expect(!first.isEmpty)
        // Taken events are sent at least once: a later change queues behind instead of merging.
        try await store.plugin.save(Blog(id: "b1", name: "Local b1 again"))
        #expect(try await store.plugin.pendingMutations().map(\.modelId) == ["b1", "b2", "b3", "b1"])

        // b3 is in flight elsewhere: it is neither settled nor taken here.
        let second = try await engine.outboxRound(
            settling: [
                AcceptedEvent(event: first.taken[0].event, item: try Self.answer("b1", name: "Server b1")),
                AcceptedEvent(event: first.taken[1].event, item: try Self.answer("b2", name: "Server b2", version: 3)),
            ],
            take: 4,
            excluding: [RecordKey(modelName: "Blog", identifier: "b3")]
        )
        #expect(second.settled.count == 2)
        #expect(second.settled.allSatisfy { (try? $0.get()) != nil })
        // b1's next event follows its settled one in the same round, with the answered version.
        #expect(second.taken.map(\.event.modelId) == ["b1"])
        #expect(second.taken.map(\.event.mutationType) == ["update"])
        #expect(second.taken.map(\.version) == [1])
        #expect(!second.isEmpty)
        #expect(try await store.plugin.pendingMutations().map(\.modelId) == ["b3", "b1"])
        // b1 has a newer local change: only the version is kept. b2 takes the backend's record.
        #expect(try await store.plugin.query(Blog.self, byId: "b1")?.name == "Local b1 again")
        #expect(try await store.plugin.query(Blog.self, byId: "b2")?.name == "Server b2")
        #expect(try await Self.storedVersion("b1", engine) == 1)
        #expect(try await Self.storedVersion("b2", engine) == 3)
        #expect(try await Self.storedVersion("b3", engine) == nil)

        let third = try await engine.outboxRound(
            settling: [
                AcceptedEvent(event: second.taken[0].event, item: try Self.answer("b1", name: "Server", version: 2))
            ],
            take: 0,
            excluding: [RecordKey(modelName: "Blog", identifier: "b3")]
        )
        #expect(third.taken.isEmpty)
        #expect(!third.isEmpty)
        #expect(try await store.plugin.query(Blog.self, byId: "b1")?.name == "Server")
        #expect(try await Self.storedVersion("b1", engine) == 2)
        #expect(try await store.plugin.pendingMutations().map(\.modelId) == ["b3"])
    }

    @Test func aWholeTransactionIsTakenOnceEachOfItsRecordsHasNoEarlierChange() async throws {
        let store = try TestStore()
        let engine = try store.engine
        try await store.plugin.save(Blog(id: "b1", name: "Alone"))
        try await store.plugin.transaction { tx in
            try tx.save(Blog(id: "b2", name: "In the transaction"))
            try tx.save(Blog(id: "b1", name: "In the transaction"))
            try tx.save(Blog(id: "b2", name: "In the transaction, again"))
        }
        // One by one, the transaction's first change goes beside b1's earlier one.
        let each = try await engine.read { db in try Outbox.sendable(limit: 4, excluding: [], db) }
        #expect(each.map(\.modelId) == ["b1", "b2"])
        // Whole, it waits for b1's earlier change, then goes with its siblings.
        let first = try await engine.outboxRound(settling: [], take: 4, excluding: [], wholeTransactions: true)
        #expect(first.taken.map(\.event.modelId) == ["b1"])
        #expect(first.taken.map(\.siblings.count) == [0])
        let second = try await engine.outboxRound(
            settling: [AcceptedEvent(event: first.taken[0].event, item: try Self.answer("b1", name: "Alone"))],
            take: 4,
            excluding: [],
            wholeTransactions: true
        )
        #expect(second.taken.map(\.event.modelId) == ["b2"])
        #expect(second.taken.first?.siblings.map(\.event.modelId) == ["b1", "b2"])
        #expect(second.taken.first?.siblings.map(\.version) == [1, nil])
        #expect(second.taken.first?.recordKeys.count == 3)
    }

    @Test func anAcceptedEventThatCannotBeSettledLeavesTheOthersSettled() async throws {
        let store = try TestStore()
        let engine = try store.engine
        for id in ["b1", "b2", "b3"] { try await store.plugin.save(Blog(id: id, name: "Local \(id)")) }
        let taken = try await engine.outboxRound(settling: [], take: 3, excluding: []).taken
        #expect(taken.map(\.event.modelId) == ["b1", "b2", "b3"])
        try await engine.write { db in
            try db.execute(
                sql: """
                    CREATE TRIGGER "refuseB2" BEFORE UPDATE ON "Blog" WHEN NEW."id" = 'b2'
                    BEGIN SELECT RAISE(ABORT, 'b2 is refused'); END
                    """
            )
        }

        let round = try await engine.outboxRound(
            settling: try taken.map {
                AcceptedEvent(event: $0.event, item: try Self.answer($0.event.modelId, name: "Server"))
            },
            take: 3,
            excluding: []
        )
        #expect(round.settled.count == 3)
        #expect((try? round.settled[0].get()) != nil)
        #expect((try? round.settled[2].get()) != nil)
        guard case .failure(let error) = round.settled[1] else {
            Issue.record("b2 was settled: \(round.settled[1])")
            return
        }
        let update = try #require(engine.catalog.tables["Blog"]).statements.update
        #expect(
            error.message
                == "SQLite failed on the DataStore database at '\(store.databaseURL.path)': SQLite error 19: b2 is "
                + "refused - while executing `\(update)`"
        )
        // b2's event stays, not taken again in the same round, and its record and version are as
        // they were; b1 and b3 are settled.
        #expect(round.taken.isEmpty)
        #expect(!round.isEmpty)
        #expect(try await store.plugin.pendingMutations().map(\.modelId) == ["b2"])
        #expect(try await store.plugin.query(Blog.self, byId: "b2")?.name == "Local b2")
        #expect(try await Self.storedVersion("b2", engine) == nil)
        for id in ["b1", "b3"] {
            #expect(try await store.plugin.query(Blog.self, byId: id)?.name == "Server")
            #expect(try await Self.storedVersion(id, engine) == 1)
        }

        // Once it can be applied, the next round settles it and the outbox is empty.
        try await engine.write { db in try db.execute(sql: #"DROP TRIGGER "refuseB2""#) }
        let retried = try await engine.outboxRound(
            settling: [AcceptedEvent(event: taken[1].event, item: try Self.answer("b2", name: "Server"))],
            take: 3,
            excluding: []
        )
        #expect((try? retried.settled[0].get()) != nil)
        #expect(retried.isEmpty)
        #expect(try await store.plugin.query(Blog.self, byId: "b2")?.name == "Server")
    }
}
