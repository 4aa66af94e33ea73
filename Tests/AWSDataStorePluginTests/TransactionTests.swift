import Amplify
import BlogModels
import Foundation
import GRDB
import Testing

@testable import AWSDataStorePlugin

/// `DataStore.transaction` and the batch writes: all or nothing in the records and the outbox,
/// reads that see the transaction's writes, errors that name the failed write, and outbox
/// events that keep the transaction's order.
@Suite struct TransactionTests {
    struct Abandoned: Error, Equatable {}

    /// The outbox as `type model id` lines.
    static func outbox(_ store: TestStore) async throws -> [String] {
        try await store.plugin.pendingMutations().map { "\($0.mutationType) \($0.modelName) \($0.modelId)" }
    }

    @Test func writesAndReadsCommitTogether() async throws {
        let store = try TestStore()
        try await store.plugin.save(Fixtures.blog())
        for index in 1...4 { try await store.plugin.save(Fixtures.post("old\(index)", rating: index)) }
        try await store.markAllSent()
        let outboxBefore = try await Self.outbox(store)

        let seen = try await store.plugin.transaction { tx -> [String] in
            var seen: [String] = []
            try tx.save(Fixtures.post("p1", title: "New", rating: 9))
            // Reads see the transaction's own writes.
            seen.append(try tx.query(BlogPost.self, byId: "p1")?.title ?? "none")
            try tx.save(Fixtures.post("p1", title: "New, edited", rating: 9))
            try tx.delete(Fixtures.post("old1"))
            try tx.delete(BlogPost.self, withId: "old2", where: BlogPost.keys.rating == 2)
            try tx.delete(BlogPost.self, where: BlogPost.keys.rating == 3)
            seen += try tx.query(BlogPost.self, sort: .ascending(BlogPost.keys.id)).map { "\($0.id) \($0.title)" }
            return seen
        }

        #expect(seen == ["New", "old4 Title", "p1 New, edited"])
        #expect(try await store.plugin.query(BlogPost.self).map(\.id).sorted() == ["old4", "p1"])
        // Each write is its own outbox event, in the transaction's order: nothing merges.
        #expect(
            try await Self.outbox(store)
                == outboxBefore + [
                    "create Post p1", "update Post p1", "delete Post old1", "delete Post old2", "delete Post old3",
                ]
        )
        let marked = try await store.engine.read { db in
            try Int.fetchOne(
                db,
                sql: #"SELECT count(DISTINCT "transactionId") FROM "_stratus_outbox" WHERE "transactionId" IS NOT NULL"#
            )
        }
        #expect(marked == 1)
    }

    @Test func aFailedConditionRollsBackEveryWriteAndNamesIt() async throws {
        let store = try TestStore()
        try await store.plugin.save(Fixtures.blog())
        try await store.plugin.save(Fixtures.post("p2", rating: 2))
        let outboxBefore = try await Self.outbox(store)

        let error = await #expect(throws: DataStoreError.self) {
            try await store.plugin.transaction { tx in
                try tx.save(Fixtures.post("p1", rating: 1))
                try tx.save(Fixtures.post("p2", title: "Changed", rating: 5), where: BlogPost.keys.rating == 99)
                try tx.save(Fixtures.post("p3", rating: 3))
            }
        }
        #expect(error?.code == .conditionalSaveFailed)
        #expect(
            error?.message
                == "Write 1 of the transaction (the save of Post 'p2') failed, so the transaction rolled back and "
                + "wrote nothing: The stored Post does not match the condition, so it was not saved. Query it "
                + "again and retry with a condition it matches."
        )
        #expect(try await store.plugin.query(BlogPost.self).map { "\($0.id) \($0.title)" } == ["p2 Title"])
        #expect(try await Self.outbox(store) == outboxBefore)
    }

    @Test func aMissingParentRollsBackAndNamesTheWrite() async throws {
        let store = try TestStore()
        try await store.plugin.save(Fixtures.blog())

        let error = await #expect(throws: DataStoreError.self) {
            try await store.plugin.save([
                Fixtures.post("p1"), Fixtures.post("p2"), Fixtures.post("p3", blog: Fixtures.blog("gone")),
            ])
        }
        #expect(error?.code == .invalidModel)
        #expect(
            error?.message
                == "Write 2 of the transaction (the save of Post 'p3') failed, so the transaction rolled back and "
                + "wrote nothing: Post 'p3' belongs to Blog 'gone' (blogID), which is not saved. Save the Blog "
                + "first, or set blog to a saved one."
        )
        #expect(try await store.plugin.query(BlogPost.self).isEmpty)
        #expect(try await Self.outbox(store) == ["create Blog b1"])
    }

    /// A transaction looks each parent up once for its saves; a deletion in between makes it
    /// look again, so a child of a parent the transaction deleted is refused.
    @Test func aParentDeletedEarlierInTheTransactionIsMissingForLaterSaves() async throws {
        let store = try TestStore()
        try await store.plugin.save(Fixtures.blog())

        let error = await #expect(throws: DataStoreError.self) {
            try await store.plugin.transaction { tx in
                try tx.save(Fixtures.post("p1"))
                try tx.delete(Blog.self, withId: "b1")
                try tx.save(Fixtures.post("p2"))
            }
        }
        #expect(error?.code == .invalidModel)
        #expect(
            error?.message
                == "Write 2 of the transaction (the save of Post 'p2') failed, so the transaction rolled back and "
                + "wrote nothing: Post 'p2' belongs to Blog 'b1' (blogID), which is not saved. Save the Blog "
                + "first, or set blog to a saved one."
        )
        #expect(try await store.plugin.query(Blog.self).map(\.id) == ["b1"])
        #expect(try await Self.outbox(store) == ["create Blog b1"])
    }

    @Test func aThrownErrorRollsBackAndIsRethrown() async throws {
        let store = try TestStore()
        try await store.plugin.save(Fixtures.blog())

        await #expect(throws: Abandoned()) {
            try await store.plugin.transaction { tx in
                try tx.save(Fixtures.post("p1"))
                try tx.delete(Fixtures.blog())
                throw Abandoned()
            }
        }
        #expect(try await store.plugin.query(Blog.self).map(\.id) == ["b1"])
        #expect(try await store.plugin.query(BlogPost.self).isEmpty)
        #expect(try await Self.outbox(store) == ["create Blog b1"])
    }

    @Test func aCaughtWriteErrorStillRollsBack() async throws {
        let store = try TestStore()
        try await store.plugin.save(Fixtures.blog())
        let later = Recorder<String>()

        let error = await #expect(throws: DataStoreError.self) {
            try await store.plugin.transaction { tx in
                try tx.save(Fixtures.post("p1"))
                do {
                    try tx.save(Fixtures.post("p2"), where: BlogPost.keys.rating == 1)
                } catch {
                    // The caller goes on: the transaction must still not commit half a write.
                }
                do {
                    try tx.save(Fixtures.post("p3"))
                } catch let error as DataStoreError {
                    later.append(error.message)
                }
            }
        }
        #expect(error?.code == .invalidCondition)
        let first =
            "Write 1 of the transaction (the save of Post 'p2') failed, so the transaction rolled back and wrote "
            + "nothing: Post 'p2' is not saved yet, and a condition applies only to updates. Save the new Post "
            + "without a condition."
        #expect(error?.message == first)
        #expect(
            later.values == [
                "Write 2 of the transaction (the save of Post 'p3') was not made: an earlier write failed, so the "
                    + "transaction rolls back. " + first
            ]
        )
        #expect(try await store.plugin.query(BlogPost.self).isEmpty)
        #expect(try await Self.outbox(store) == ["create Blog b1"])
    }

    @Test func batchWritesAreOneTransactionEach() async throws {
        let store = try TestStore()
        try await store.plugin.save(Fixtures.blog())
        let saved = try await store.plugin.save((1...3).map { Fixtures.post("p\($0)") })
        #expect(saved.map(\.id) == ["p1", "p2", "p3"])
        try await store.plugin.delete([Fixtures.post("p3"), Fixtures.post("p1")])
        #expect(try await store.plugin.query(BlogPost.self).map(\.id) == ["p2"])
        // Inside a transaction a create and its delete are two mutations, not cancelled out.
        #expect(
            try await Self.outbox(store) == [
                "create Blog b1", "create Post p1", "create Post p2", "create Post p3", "delete Post p3",
                "delete Post p1",
            ]
        )
        let groups = try await store.engine.read { db in
            try Int.fetchAll(
                db,
                sql: #"""
                    SELECT count(*) FROM "_stratus_outbox" WHERE "transactionId" IS NOT NULL
                    GROUP BY "transactionId" ORDER BY min("sequence")
                    """#
            )
        }
        #expect(groups == [3, 2])
    }

    @Test func aLaterSaveDoesNotMergeIntoTheTransactionsEvents() async throws {
        let store = try TestStore()
        try await store.plugin.save(Fixtures.blog())
        try await store.plugin.save([Fixtures.post("p1", title: "One"), Fixtures.post("p2", title: "Two")])
        try await store.plugin.save(Fixtures.post("p1", title: "One, edited"))
        // Merged into the transaction's create, the edit would reach the backend before p2.
        #expect(
            try await Self.outbox(store) == [
                "create Blog b1", "create Post p1", "create Post p2", "update Post p1",
            ]
        )
    }

    @Test func theOutboxSendsATransactionOneEventAfterAnother() async throws {
        let store = try TestStore()
        let engine = try store.engine
        try await store.plugin.save([Blog(id: "b1", name: "One"), Blog(id: "b2", name: "Two")])
        try await store.plugin.save(Blog(id: "b3", name: "Alone"))

        let first = try await engine.outboxRound(settling: [], take: 8, excluding: [])
        // b2 waits for b1, its transaction's earlier event, although it is another record.
        #expect(first.taken.map(\.event.modelId) == ["b1", "b3"])
        let second = try await engine.outboxRound(
            settling: [
                AcceptedEvent(event: first.taken[0].event, item: try OutboxRoundTests.answer("b1", name: "One"))
            ],
            take: 8,
            excluding: [RecordKey(modelName: "Blog", identifier: "b3")]
        )
        #expect(second.taken.map(\.event.modelId) == ["b2"])
    }

    @Test func observersSeeTheWholeTransactionAfterItCommits() async throws {
        let store = try TestStore()
        try await store.plugin.save(Fixtures.blog())
        let plugin = store.plugin
        let counts = Recorder<Int>()
        let observed = Task {
            var events: [String] = []
            for try await event in plugin.observe(BlogPost.self) {
                // Told after the commit: the first event's query already finds every record.
                counts.append(try await plugin.query(BlogPost.self).count)
                events.append("\(event.mutationType) \(event.modelId)")
                if events.count == 4 { return events }
            }
            return events
        }
        var snapshots = plugin.observeQuery(for: BlogPost.self).makeAsyncIterator()
        #expect(try await snapshots.next()?.items.count == 0)
        let engine = try store.engine
        try await waitUntil { engine.hub.observerCount == 2 }

        try await plugin.transaction { tx in
            for index in 1...3 { try tx.save(Fixtures.post("p\(index)")) }
        }
        #expect(try await snapshots.next()?.items.map(\.id) == ["p1", "p2", "p3"])
        try await plugin.save(Fixtures.post("p4"))
        // One snapshot for the transaction, then one for the next save.
        #expect(try await snapshots.next()?.items.map(\.id) == ["p1", "p2", "p3", "p4"])
        #expect(try await observed.value == ["create p1", "create p2", "create p3", "create p4"])
        #expect(counts.values.prefix(3).allSatisfy { $0 >= 3 })
    }

    @Test func aRolledBackTransactionTellsObserversNothing() async throws {
        let store = try TestStore()
        try await store.plugin.save(Fixtures.blog())
        let plugin = store.plugin
        let observed = Task {
            for try await event in plugin.observe(BlogPost.self) { return event.modelId }
            return "none"
        }
        let engine = try store.engine
        try await waitUntil { engine.hub.observerCount == 1 }
        await #expect(throws: Abandoned()) {
            try await plugin.transaction { tx in
                try tx.save(Fixtures.post("rolled-back"))
                throw Abandoned()
            }
        }
        try await plugin.save(Fixtures.post("p1"))
        #expect(try await observed.value == "p1")
    }

    @Test func aFileMadeBeforeTransactionsGainsTheColumnAndKeepsItsOutbox() async throws {
        let store = try TestStore()
        try await store.plugin.save(Fixtures.blog())
        await store.plugin.reset()
        // The outbox as DataStore wrote it before transactions: no transactionId column.
        let pool = try DatabasePool(path: store.databaseURL.path)
        try await pool.write { db in
            try db.execute(sql: #"DROP INDEX "_stratus_outbox:byTransaction""#)
            try db.execute(sql: #"ALTER TABLE "_stratus_outbox" DROP COLUMN "transactionId""#)
        }
        try pool.close()

        let reopened = store.reopened()
        try await reopened.save([Fixtures.post("p1"), Fixtures.post("p2")])
        #expect(
            try await reopened.pendingMutations().map { "\($0.mutationType) \($0.modelId)" } == [
                "create b1", "create p1", "create p2",
            ]
        )
        await reopened.reset()
    }
}
