import Foundation
import StratusCodegen
import StratusServer
import Testing

/// The SQLite database in the data directory, read by Python's sqlite3 module: tables with typed
/// columns, the sync metadata, the journal, and indexes from the schema's keys.
@Suite struct StorageTests {
    @Test func tablesHaveTypedColumnsKeysAndIndexes() async throws {
        let server = try TestServer(blogSchema + "\n" + noteSchema)
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
        authorizationMode: .userPools,
        claims: ["sub": "user-1", "cognito:username": "user", "cognito:groups": ["Admin", "Editors"]]
    )

    @Test(arguments: ["blog", "features"])
    func generatedListAndSyncStatementsRunWithoutErrors(_ name: String) async throws {
        let source = name == "blog" ? try Fixtures.blog : try Fixtures.features
        let server = try TestServer(source)
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
}
