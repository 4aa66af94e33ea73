import Amplify
import Foundation
import Testing

@testable import AWSAppSync

/// A `sync` query of a model with conflict detection: its items carry `_version` and `_deleted`.
private struct SyncNotesQuery: GraphQLQuery {
    static let operationName = "SyncNotes"
    static let operationString = "query SyncNotes { syncNotes { items { id title _version _deleted } } }"

    var variables: GraphQLMap? { nil }

    struct Data: GraphQLSelectionSet {
        static let possibleTypes = ["Query"]
        static let selections: [any GraphQLSelection] = [
            GraphQLField("syncNotes", type: .object(Connection.selections))
        ]
        var snapshot: Snapshot

        init(snapshot: Snapshot) { self.snapshot = snapshot }

        /// Notes given as (id, title, version, deleted).
        init(_ notes: [(String, String, Int, Bool)]) {
            let items: [JSONValue] = notes.map { id, title, version, deleted in
                [
                    "__typename": "Note", "id": .string(id), "title": .string(title), "_version": .integer(version),
                    "_deleted": .boolean(deleted),
                ]
            }
            self.init(snapshot: ["syncNotes": ["__typename": "ModelNoteConnection", "items": .array(items)]])
        }

        struct Connection: GraphQLSelectionSet {
            static let possibleTypes = ["ModelNoteConnection"]
            static let selections: [any GraphQLSelection] = [
                GraphQLField("__typename", type: .nonNull(.scalar(String.self))),
                GraphQLField("items", type: .nonNull(.list(.object(Item.selections)))),
            ]
            var snapshot: Snapshot

            init(snapshot: Snapshot) { self.snapshot = snapshot }
        }

        struct Item: GraphQLSelectionSet {
            static let possibleTypes = ["Note"]
            static let selections: [any GraphQLSelection] = [
                GraphQLField("__typename", type: .nonNull(.scalar(String.self))),
                GraphQLField("id", type: .nonNull(.scalar(GraphQLID.self))),
                GraphQLField("title", type: .nonNull(.scalar(String.self))),
                GraphQLField("_version", type: .nonNull(.scalar(Int.self))),
                GraphQLField("_deleted", type: .scalar(Bool.self)),
            ]
            var snapshot: Snapshot

            init(snapshot: Snapshot) { self.snapshot = snapshot }
        }
    }
}

/// The results of a model's sync operations reach the cache in any order: one operation's
/// query, answered before a delete, can be written after another's subscription wrote the
/// delete. The cache keeps the later version.
@Suite struct SyncVersionOrderTests {
    static func record(_ key: String, in store: ApolloStore) throws -> [String: JSONValue]? {
        try store.withinReadTransaction { try $0.record(key) }.get()
    }

    static func writeSyncResult(_ notes: [(String, String, Int, Bool)], to store: ApolloStore) throws {
        try store.withinReadWriteTransaction { transaction in
            try transaction.write(
                syncResult: SyncNotesQuery.Data(notes).snapshot,
                for: SyncNotesQuery(),
                entries: []
            )
        }.get()
    }

    @Test func aSyncResultOlderThanTheCachedRecordLeavesIt() throws {
        let store = try ApolloStore()
        store.cacheKeyForObject = { $0["id"] }
        // The delete, as another sync operation's subscription wrote it.
        try Self.writeSyncResult([("n1", "Edited", 9, true)], to: store)
        // A query answered before the delete, written after it.
        try Self.writeSyncResult([("n1", "Edited", 8, false), ("n2", "New", 1, false)], to: store)
        #expect(try Self.record("n1", in: store)?["_version"] == 9)
        #expect(try Self.record("n1", in: store)?["_deleted"] == true)
        #expect(try Self.record("n2", in: store)?["title"] == "New")
        // A later version replaces it, as does the same one.
        try Self.writeSyncResult([("n1", "Back", 10, false)], to: store)
        #expect(try Self.record("n1", in: store)?["_version"] == 10)
        #expect(try Self.record("n1", in: store)?["_deleted"] == false)
        try Self.writeSyncResult([("n1", "Again", 10, false)], to: store)
        #expect(try Self.record("n1", in: store)?["title"] == "Again")
        // The app's own writes are not sync results: they are written as they are.
        try store.withinReadWriteTransaction { transaction in
            try transaction.write(data: SyncNotesQuery.Data([("n1", "Mine", 3, false)]), forQuery: SyncNotesQuery())
        }.get()
        #expect(try Self.record("n1", in: store)?["_version"] == 3)
    }

    /// A fetch's or a mutation's answer, or a subscription's event, is the server's state when
    /// it answered: one written after a later version reached the cache leaves that version.
    @Test func anAnswerOlderThanTheCachedRecordLeavesIt() throws {
        let store = try ApolloStore()
        store.cacheKeyForObject = { $0["id"] }
        try Self.writeSyncResult([("n1", "Deleted", 5, true)], to: store)
        try store.publish(data: SyncNotesQuery.Data([("n1", "Before", 4, false)]), for: SyncNotesQuery(), origin: nil)
        #expect(try Self.record("n1", in: store)?["_version"] == 5)
        #expect(try Self.record("n1", in: store)?["_deleted"] == true)
        try store.publish(data: SyncNotesQuery.Data([("n1", "After", 6, false)]), for: SyncNotesQuery(), origin: nil)
        #expect(try Self.record("n1", in: store)?["title"] == "After")
        #expect(try Self.record("n1", in: store)?["_deleted"] == false)
    }
}
