import Foundation
import StratusServer
import Testing

/// An item's versions read from the delta journal, in SQLite and (with `STRATUS_TEST_STORE`
/// set to `postgres`) in PostgreSQL.
@Suite struct ItemHistoryTests {
    static let schema = """
        type Post @model { id: ID! title: String }
        type Order @model { customerId: ID! @primaryKey(sortKeyFields: ["number"]) number: Int! note: String }
        """

    @Test func eachChangeIsAVersionOldestFirst() async throws {
        let server = try await TestServer(Self.schema)
        _ = await server.run(#"mutation { createPost(input: {id: "p1", title: "A"}) { id } }"#)
        _ = await server.run(#"mutation { createPost(input: {id: "p2", title: "other"}) { id } }"#)
        server.clock.advance(milliseconds: 1000)
        _ = await server.run(#"mutation { updatePost(input: {id: "p1", title: "B", _version: 1}) { id } }"#)
        server.clock.advance(milliseconds: 1000)
        _ = await server.run(#"mutation { deletePost(input: {id: "p1", _version: 2}) { id } }"#)
        let history = try await server.server.history(model: "Post", key: ["id": "p1"])
        #expect(history.versions.map(\.version) == [1, 2, 3])
        #expect(history.versions.map(\.operation) == [.create, .update, .delete])
        #expect(history.versions.map(\.lastChangedAt) == [1_700_000_000_000, 1_700_000_001_000, 1_700_000_002_000])
        #expect(history.versions.map { $0.fields["title"] } == ["A", "B", "B"])
        #expect(history.currentVersion == 3)
        #expect(!history.missesOlderVersions)
        #expect(history.retention == .seconds(1800))
    }

    @Test func versionsOlderThanTheJournalsTTLAreMissed() async throws {
        let server = try await TestServer(Self.schema)
        _ = await server.run(#"mutation { createPost(input: {id: "p1", title: "A"}) { id } }"#)
        server.clock.advance(milliseconds: 31 * 60 * 1000)
        _ = await server.run(#"mutation { updatePost(input: {id: "p1", title: "B", _version: 1}) { id } }"#)
        let history = try await server.server.history(model: "Post", key: ["id": "p1"])
        #expect(history.versions.map(\.version) == [2])
        #expect(history.missesOlderVersions)
        let nothing = try await server.server.history(model: "Post", key: ["id": "none"])
        #expect(nothing.versions.isEmpty)
        #expect(nothing.currentVersion == nil)
        #expect(!nothing.missesOlderVersions)
    }

    @Test func aCompositeKeyNamesEachField() async throws {
        let server = try await TestServer(Self.schema)
        _ = await server.run(#"mutation { createOrder(input: {customerId: "c1", number: 1, note: "a"}) { number } }"#)
        _ = await server.run(#"mutation { createOrder(input: {customerId: "c1", number: 2, note: "b"}) { number } }"#)
        let history = try await server.server.history(model: "Order", key: ["customerId": "c1", "number": 2])
        #expect(history.versions.map { $0.fields["note"] } == ["b"])
        await #expect {
            try await server.server.history(model: "Order", key: ["customerId": "c1"])
        } throws: { error in
            "\(error)" == "The key of Order has no value for number. Give its primary key: customerId, number."
        }
    }

    @Test func aModelWithoutConflictDetectionKeepsNoHistory() async throws {
        let server = try await TestServer(Self.schema, configuration: ServerConfiguration(conflictDetection: false))
        await #expect {
            try await server.server.history(model: "Post", key: ["id": "p1"])
        } throws: { error in
            "\(error)"
                == "Post keeps no history: the delta journal records the changes of models with conflict detection "
                + "only. Serve without turning conflict detection off for Post."
        }
    }
}
