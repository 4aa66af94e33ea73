import Amplify
import Foundation
import Testing
import TodoAPI

@testable import AWSAppSync

/// The normalized cache on its own: records, transactions, rollback and persistence.
@Suite struct ApolloStoreTests {
    static let list = ListTodosQuery.Data(
        listTodos: .init(items: [.init(id: "1", name: "Milk"), .init(id: "2", name: "Eggs", description: "A dozen")])
    )

    @Test func aQueryIsWrittenAsRecordsAndReadBack() throws {
        let store = try ApolloStore()
        store.cacheKeyForObject = { $0["id"] }
        try store.withinReadWriteTransaction { transaction in
            try transaction.write(data: Self.list, forQuery: ListTodosQuery(limit: 5))
        }.get()
        let (root, connection, item, data) = try store.withinReadTransaction { transaction in
            (
                try transaction.record("QUERY_ROOT"),
                try transaction.record("QUERY_ROOT.listTodos(limit:5)"),
                try transaction.record("2"),
                try transaction.read(query: ListTodosQuery(limit: 5))
            )
        }.get()
        #expect(root == ["listTodos(limit:5)": ["$reference": "QUERY_ROOT.listTodos(limit:5)"]])
        #expect(
            connection == [
                "__typename": "ModelTodoConnection",
                "items": [["$reference": "1"], ["$reference": "2"]],
                "nextToken": nil,
            ]
        )
        #expect(item == ["__typename": "Todo", "id": "2", "name": "Eggs", "description": "A dozen"])
        #expect(data == Self.list)
        // Other arguments are another field.
        let other = store.withinReadTransaction { try $0.read(query: ListTodosQuery(limit: 6)) }
        #expect(throws: AWSAppSyncClientError.self) { try other.get() }
    }

    @Test func aThrowingTransactionRollsBackEveryWrite() throws {
        struct Abort: Error {}
        let store = try ApolloStore()
        store.cacheKeyForObject = { $0["id"] }
        try store.withinReadWriteTransaction { try $0.write(data: Self.list, forQuery: ListTodosQuery()) }.get()
        let failed = store.withinReadWriteTransaction { transaction in
            try transaction.update(query: ListTodosQuery()) { (data: inout ListTodosQuery.Data) in
                data.listTodos?.items?.append(.init(id: "3", name: "Bread"))
                data.listTodos?.items?[0]?.name = "Oat milk"
            }
            throw Abort()
        }
        #expect(throws: Abort.self) { try failed.get() }
        let data = try store.withinReadTransaction { try $0.read(query: ListTodosQuery()) }.get()
        #expect(data == Self.list)
        let added = try store.withinReadTransaction { try $0.record("3") }.get()
        #expect(added == nil)
    }

    @Test func theGuidesOptimisticCleanUpRemovesAnItem() throws {
        let store = try ApolloStore()
        try store.withinReadWriteTransaction { try $0.write(data: Self.list, forQuery: ListTodosQuery()) }.get()
        let UUID = "1"
        let _ = store.withinReadWriteTransaction { transaction in
            try transaction.update(query: ListTodosQuery()) { (data: inout ListTodosQuery.Data) in
                var pos = -1
                var counter = 0
                for item in (data.listTodos?.items!)! {
                    if item?.id == UUID {
                        pos = counter
                        continue
                    }
                    counter += 1
                }
                if pos != -1 { data.listTodos?.items?.remove(at: pos) }
            }
        }
        let data = try store.withinReadTransaction { try $0.read(query: ListTodosQuery()) }.get()
        #expect(data.listTodos?.items?.map { $0?.id } == ["2"])
    }

    @Test func aFileStoreKeepsItsRecords() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "appsync-store-\(Foundation.UUID())"
        )
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("todos_queries.db")
        do {
            let store = try ApolloStore(databaseURL: url)
            try store.withinReadWriteTransaction { try $0.write(data: Self.list, forQuery: ListTodosQuery()) }.get()
        }
        let reopened = try ApolloStore(databaseURL: url)
        let data = try reopened.withinReadTransaction { try $0.read(query: ListTodosQuery()) }.get()
        #expect(data == Self.list)
    }

    /// A read transaction reads a list's records a batch at a time, handed to the reader in the
    /// list's order; a read-write transaction reads them through the records it keeps. Both
    /// give the same data: past a batch, with null and repeated items, and a miss when an item's
    /// record is gone.
    @Test func aListReadsTheSameInBatchesInEveryTransaction() throws {
        let store = try ApolloStore()
        store.cacheKeyForObject = { $0["id"] }
        var items: [ListTodosQuery.Data.ListTodo.Item?] = (0..<1_203).map { number in
            .init(id: "\(number)", name: "Todo \(number)", description: number.isMultiple(of: 2) ? nil : "Odd")
        }
        items.insert(nil, at: 700)
        items.append(items[3])
        let list = ListTodosQuery.Data(listTodos: .init(items: items, nextToken: "next"))
        try store.withinReadWriteTransaction { try $0.write(data: list, forQuery: ListTodosQuery()) }.get()

        let read = try store.withinReadTransaction { try $0.read(query: ListTodosQuery()) }.get()
        #expect(read == list)
        let readWhileWriting = try store.withinReadWriteTransaction { try $0.read(query: ListTodosQuery()) }.get()
        #expect(readWhileWriting == list)

        try store.withinReadWriteTransaction { try $0.db.execute(sql: "DELETE FROM records WHERE key = '1100'") }.get()
        #expect(try store.load(query: ListTodosQuery()) == nil)
        for result in [
            store.withinReadTransaction { try $0.read(query: ListTodosQuery()) },
            store.withinReadWriteTransaction { try $0.read(query: ListTodosQuery()) },
        ] {
            let error = #expect(throws: AWSAppSyncClientError.self) { try result.get() }
            #expect(error?.code == .cacheMiss)
        }
    }

    @Test func aReadOfAnEmptyCacheNamesTheQuery() throws {
        let store = try ApolloStore()
        let error = #expect(throws: AWSAppSyncClientError.self) {
            try store.withinReadTransaction { try $0.read(query: GetTodoQuery(id: "1")) }.get()
        }
        #expect(error?.code == .cacheMiss)
        #expect(
            error?.message
                == "The cache does not hold the data of GetTodo. Fetch it first, or write it with write(data:forQuery:)."
        )
    }

    /// Records written for another shape of the same fields (another operation's types, or an
    /// older API) do not fit the query: a miss, fetched again, rather than data of the wrong type.
    @Test(arguments: [
        ("a number where a String is selected", JSONValue.integer(5)),
        ("null where a non-null name is selected", JSONValue.null),
    ])
    func aRecordOfAnotherShapeIsAMiss(_ case: String, name: JSONValue) throws {
        let store = try ApolloStore()
        store.cacheKeyForObject = { $0["id"] }
        let loose: [any GraphQLSelection] = [
            GraphQLField(
                "getTodo",
                arguments: ["id": GraphQLVariable("id")],
                type: .object([
                    GraphQLField("__typename", type: .scalar(String.self)),
                    GraphQLField("id", type: .scalar(String.self)),
                    GraphQLField("name", type: .scalar(JSONValue.self)),
                    GraphQLField("description", type: .scalar(String.self)),
                ])
            )
        ]
        let snapshot: Snapshot = [
            "getTodo": ["__typename": "Todo", "id": "1", "name": name, "description": .null]
        ]
        _ = try store.withinReadWriteTransaction { transaction in
            try transaction.write(snapshot: snapshot, selections: loose, variables: ["id": "1"], root: CacheRoot.query)
        }.get()
        #expect(try store.load(query: GetTodoQuery(id: "1")) == nil, "\(`case`)")
        let error = #expect(throws: AWSAppSyncClientError.self) {
            try store.withinReadTransaction { try $0.read(query: GetTodoQuery(id: "1")) }.get()
        }
        #expect(error?.code == .cacheMiss)
    }

    /// A record keeps every field any query wrote; a read gives the fields its selections
    /// select, and no others.
    @Test func aRecordWithMoreFieldsThanSelectedGivesTheSelectedOnes() throws {
        let store = try ApolloStore()
        store.cacheKeyForObject = { $0["id"] }
        let wide: [any GraphQLSelection] = [
            GraphQLField(
                "listTodos",
                type: .object([
                    GraphQLField("__typename", type: .scalar(String.self)),
                    GraphQLField(
                        "items",
                        type: .list(
                            .object([
                                GraphQLField("__typename", type: .scalar(String.self)),
                                GraphQLField("id", type: .scalar(String.self)),
                                GraphQLField("name", type: .scalar(String.self)),
                                GraphQLField("description", type: .scalar(String.self)),
                                GraphQLField("priority", type: .scalar(Int.self)),
                            ])
                        )
                    ),
                    GraphQLField("nextToken", type: .scalar(String.self)),
                ])
            )
        ]
        let snapshot: Snapshot = [
            "listTodos": [
                "__typename": "ModelTodoConnection",
                "items": [["__typename": "Todo", "id": "1", "name": "Milk", "description": nil, "priority": 3]],
                "nextToken": nil,
            ]
        ]
        _ = try store.withinReadWriteTransaction { transaction in
            try transaction.write(snapshot: snapshot, selections: wide, variables: nil, root: CacheRoot.query)
        }.get()
        let data = try store.withinReadTransaction { try $0.read(query: ListTodosQuery()) }.get()
        let item = try #require(data.listTodos?.items?.first ?? nil)
        #expect(item.snapshot == ["__typename": "Todo", "id": "1", "name": "Milk", "description": nil])
    }
}
