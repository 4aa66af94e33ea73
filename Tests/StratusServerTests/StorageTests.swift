import Foundation
import GRDB
import StratusCodegen
import StratusServer
import Testing

/// The SQLite database in the data directory, read by Python's sqlite3 module: tables with typed
/// columns, the sync metadata, the journal, and indexes from the schema's keys.
@Suite struct StorageTests {
    @Test(.enabled(if: !TestStore.isPostgres, "reads the SQLite file"))
    func tablesHaveTypedColumnsKeysAndIndexes() async throws {
        let server = try await TestServer(blogSchema + "\n" + noteSchema)
        _ = await server.run(#"mutation { createNote(input: {id: "n1", title: "T", tags: ["a"], done: true}) { id } }"#)
        let result = try await runPython(
            """
            import sqlite3, sys
            db = sqlite3.connect(sys.stdin.read())
            for table in ["Note", "Post", "Order", "_stratus_delta"]:
                columns = [f"{name} {kind}{' pk' + str(pk) if pk else ''}"
                           for _, name, kind, _, _, pk in db.execute(f'PRAGMA table_info("{table}")')]
                print(table + ": " + ", ".join(columns))
            for name, table, sql in db.execute(
                "SELECT name, tbl_name, sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL ORDER BY name"):
                print(sql)
            print(db.execute('SELECT tags, done, _version, _deleted, _lastChangedAt, _ttl FROM "Note"').fetchall())
            """,
            input: server.directory.appending(path: "stratus.sqlite").path
        )
        #expect(result.status == 0, "\(result.output)")
        let expected = """
            Note: id TEXT pk1, title TEXT, body TEXT, tags TEXT, rating INTEGER, score REAL, done INTEGER, kind TEXT, \
            kinds TEXT, metadata TEXT, due TEXT, address TEXT, priority INTEGER, createdAt TEXT, updatedAt TEXT, \
            _version INTEGER, _deleted INTEGER, _lastChangedAt INTEGER, _ttl INTEGER
            Post: id TEXT pk1, title TEXT, blogID TEXT, createdAt TEXT, updatedAt TEXT, \
            _version INTEGER, _deleted INTEGER, _lastChangedAt INTEGER, _ttl INTEGER
            Order: customerId TEXT pk1, placedAt INTEGER pk2, number INTEGER pk3, total REAL, createdAt TEXT, \
            updatedAt TEXT, _version INTEGER, _deleted INTEGER, _lastChangedAt INTEGER, _ttl INTEGER
            _stratus_delta: position INTEGER pk1, model TEXT, changedAt INTEGER, expiresAt INTEGER, item TEXT
            """
        #expect(result.output.hasPrefix(expected), "\(result.output)")
        for index in [
            #"CREATE INDEX "Comment_postCommentsId" ON "Comment" ("postCommentsId")"#,
            #"CREATE INDEX "PostTags_byPost" ON "PostTags" ("postId")"#,
            #"CREATE INDEX "Post_byBlog" ON "Post" ("blogID", "title")"#,
            #"CREATE INDEX "Post_expiry" ON "Post" ("_ttl") WHERE "_ttl" IS NOT NULL"#,
            #"CREATE INDEX "_stratus_delta_model" ON "_stratus_delta" ("model", "position")"#,
            #"[('["a"]', 1, 1, None, 1700000000000, None)]"#,
        ] {
            #expect(result.output.contains(index), "missing \(index) in \(result.output)")
        }
    }

    /// A user-pools caller every owner and group rule of the fixtures admits to reads.
    static let signedInUser = Identity(
        authorizationMode: .amazonCognitoUserPools,
        claims: ["sub": "user-1", "cognito:username": "user", "cognito:groups": ["Admin", "Editors"]]
    )

    @Test(arguments: ["blog", "features"])
    func generatedListAndSyncStatementsRunWithoutErrors(_ name: String) async throws {
        let source = name == "blog" ? try Fixtures.blog : try Fixtures.features
        let server = try await TestServer(source)
        let schema = try SchemaParser().parse(source)
        let queries = try #require(StatementsGenerator().generate(schema).first { $0.path == "queries.graphql" })
        let names = queries.contents.matches(of: /query (\w+)\(/).map { String($0.1) }
        var ran = 0
        for model in schema.models {
            for field in [model.operations.list, model.operations.sync].compactMap({ $0 }) {
                let operation = Naming.upperFirst(field)
                guard names.contains(operation) else { continue }
                let body = await server.server.execute(
                    query: queries.contents,
                    variables: [:],
                    operationName: operation,
                    identity: Self.signedInUser
                )
                #expect(body.body["errors"] == nil, "\(operation): \(body.text)")
                ran += 1
            }
        }
        #expect(ran >= 2 * schema.models.count - 2)
    }

    // MARK: - Text with NUL characters

    @Test func stringsWithNULCharactersAreStoredReadAndMatchedExactly() async throws {
        let server = try await TestServer(postSchema)
        let create = "mutation C($input: CreatePostInput!) { createPost(input: $input) { id title } }"
        for (id, title) in [("a\u{0}one", "x\u{0}1"), ("a\u{0}two", "x\u{0}2"), ("a", "x")] {
            let input: JSON = ["id": .string(id), "title": .string(title), "rating": 1, "status": "DRAFT"]
            #expect(
                await server.run(create, ["input": input])
                    == #"{"data":{"createPost":{"id":"# + JSON.string(id).text + #","title":"#
                    + JSON.string(title).text + "}}}"
            )
        }
        #expect(
            await server.run("{ listPosts { items { id title } } }")
                == #"{"data":{"listPosts":{"items":[{"id":"a","title":"x"},{"id":"a\u0000one","title":"x\u00001"},"#
                + #"{"id":"a\u0000two","title":"x\u00002"}]}}}"#
        )
        let get = "query G($id: ID!) { getPost(id: $id) { title } }"
        #expect(await server.run(get, ["id": "a\u{0}two"]) == #"{"data":{"getPost":{"title":"x\u00002"}}}"#)
        #expect(await server.run(get, ["id": "a\u{0}"]) == #"{"data":{"getPost":null}}"#)

        let list = "query L($filter: ModelPostFilterInput) { listPosts(filter: $filter) { items { id } } }"
        let sync = """
            query S($filter: ModelPostFilterInput, $lastSync: AWSTimestamp) {
              syncPosts(filter: $filter, lastSync: $lastSync) { items { id } }
            }
            """
        let filters: [(JSON, String)] = [
            (["title": ["eq": "x\u{0}1"]], #"[{"id":"a\u0000one"}]"#),
            (["title": ["beginsWith": "x\u{0}"]], #"[{"id":"a\u0000one"},{"id":"a\u0000two"}]"#),
            (["title": ["contains": "\u{0}2"]], #"[{"id":"a\u0000two"}]"#),
            (["id": ["gt": "a\u{0}one"]], #"[{"id":"a\u0000two"}]"#),
        ]
        for (filter, items) in filters {
            #expect(
                await server.run(list, ["filter": filter]) == #"{"data":{"listPosts":{"items":\#(items)}}}"#,
                "\(filter.text)"
            )
            // The base table, then the delta journal.
            for lastSync: JSON in [.null, 1_699_999_999_000] {
                #expect(
                    await server.run(sync, ["filter": filter, "lastSync": lastSync])
                        == #"{"data":{"syncPosts":{"items":\#(items)}}}"#,
                    "\(filter.text) \(lastSync.text)"
                )
            }
        }

        let delete = "mutation D($id: ID!) { deletePost(input: {id: $id, _version: 1}) { id _deleted } }"
        #expect(
            await server.run(delete, ["id": "a\u{0}one"])
                == #"{"data":{"deletePost":{"id":"a\u0000one","_deleted":true}}}"#
        )
        #expect(await server.run(get, ["id": "a\u{0}two"]) == #"{"data":{"getPost":{"title":"x\u00002"}}}"#)
    }

    // MARK: - Values that cannot be read

    static let unreadable: [(sql: String, query: String, detail: String)] = [
        (
            #"UPDATE "Post" SET "rating" = 'many'"#, #"{ getPost(id: "p1") { id rating } }"#,
            #"the value of 'Post.rating' in the item {id: "p1"} cannot be read: "#
                + #"the stored value "many" does not fit the column's type"#
        ),
        (
            #"UPDATE "Post" SET "rating" = 1.5"#, #"{ getPost(id: "p1") { id } }"#,
            #"the value of 'Post.rating' in the item {id: "p1"} cannot be read: "#
                + "the stored value 1.5 does not fit the column's type"
        ),
        (
            #"UPDATE "Post" SET "_version" = 'two'"#, #"{ listPosts { items { id } } }"#,
            #"the value of 'Post._version' in the item {id: "p1"} cannot be read: "#
                + #"the stored value "two" does not fit the column's type"#
        ),
        (
            #"UPDATE "_stratus_delta" SET "item" = '{"id":"p1","_version":"one"}'"#,
            "{ syncPosts(lastSync: 1699999999000) { items { id } } }",
            #"the journal entry 1 of Post has "one" as its _version"#
        ),
    ]

    @Test(.enabled(if: !TestStore.isPostgres, "writes into the SQLite file"), arguments: unreadable)
    func anUnreadableStoredValueIsAnErrorNamingTheItem(sql: String, query: String, detail: String) async throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        do {
            let server = try await TestServer(postSchema, directory: directory)
            _ = await server.run(
                #"mutation { createPost(input: {id: "p1", title: "T", rating: 1, status: DRAFT}) { id } }"#
            )
            try server.server.close()
        }
        let database = try DatabaseQueue(path: directory.appending(path: "stratus.sqlite").path)
        try await database.write { db in try db.execute(sql: sql) }
        try database.close()

        let server = try await TestServer(postSchema, directory: directory)
        let field = String(query.dropFirst(2).prefix { $0.isLetter })
        #expect(
            await server.run(query)
                == #"{"data":{"\#(field)":null},"errors":[{"path":["\#(field)"],"data":null,"#
                + #""errorType":"InternalFailure","errorInfo":null,"#
                + #""locations":[{"line":1,"column":3,"sourceName":null}],"#
                + #""message":"An internal failure occurred while resolving this field. The server log has the details."}]}"#
        )
        #expect(
            server.log.messages.last
                == "The resolver of '\(field)' failed: The data directory holds data that cannot be read (\(detail)). "
                + "Restore it from a backup or start with an empty data directory."
        )
    }
}
