import Foundation
import GRDB
import StratusServer
import Testing

/// A data directory opened with a changed schema: additive changes migrate in place keeping
/// items, tombstones and the sync journal; destructive ones are refused and leave the database
/// as it was.
@Suite struct SchemaMigrationTests {
    // MARK: - Additive

    @Test func aNewModelGetsATable() async throws {
        try await migrate(
            to: postSchema + "\ntype Author @model {\n  id: ID!\n  name: String\n}\n",
            expecting: ["added model 'Author'"]
        ) { server in
            #expect(
                await server.run(#"mutation { createAuthor(input: {id: "a1", name: "Ann"}) { id name } }"#)
                    == #"{"data":{"createAuthor":{"id":"a1","name":"Ann"}}}"#
            )
        }
    }

    @Test func aNewOptionalFieldGetsAColumn() async throws {
        try await migrate(
            to: postSchema.replacingOccurrences(of: "rating: Int!", with: "rating: Int!\n  subtitle: String"),
            expecting: ["added field 'Post.subtitle' (String)"]
        ) { server in
            #expect(
                await server.run(#"{ getPost(id: "p1") { id subtitle } }"#)
                    == #"{"data":{"getPost":{"id":"p1","subtitle":null}}}"#
            )
            #expect(
                await server.run(
                    #"mutation { updatePost(input: {id: "p1", subtitle: "S", _version: 2}) { subtitle } }"#
                )
                    == #"{"data":{"updatePost":{"subtitle":"S"}}}"#
            )
        }
    }

    @Test func aNewRequiredFieldWithADefaultFillsExistingItems() async throws {
        try await migrate(
            to: postSchema.replacingOccurrences(
                of: "rating: Int!",
                with: "rating: Int!\n  priority: Int! @default(value: \"3\")"
            ),
            expecting: ["added field 'Post.priority' (Int!)"]
        ) { server in
            #expect(
                await server.run(#"{ getPost(id: "p1") { id priority } }"#)
                    == #"{"data":{"getPost":{"id":"p1","priority":3}}}"#
            )
        }
    }

    @Test func aNewIndexIsCreatedAndServesItsQuery() async throws {
        try await migrate(
            to: postSchema.replacingOccurrences(
                of: "rating: Int!",
                with: #"rating: Int! @index(name: "byRating", queryField: "postsByRating")"#
            ),
            expecting: ["added index 'Post_byRating' on 'Post'"]
        ) { server in
            #expect(
                await server.run(#"{ postsByRating(rating: 3) { items { id } } }"#)
                    == #"{"data":{"postsByRating":{"items":[{"id":"p3"}]}}}"#
            )
        }
    }

    @Test func newEnumValuesCanBeStored() async throws {
        try await migrate(
            to: postSchema.replacingOccurrences(of: "PUBLISHED", with: "PUBLISHED\n  ARCHIVED"),
            expecting: ["added 'ARCHIVED' to enum 'PostStatus'"]
        ) { server in
            #expect(
                await server.run(
                    #"mutation { updatePost(input: {id: "p3", status: ARCHIVED, _version: 1}) { status } }"#
                )
                    == #"{"data":{"updatePost":{"status":"ARCHIVED"}}}"#
            )
        }
    }

    @Test func typesNoFieldStoresChangeNothing() async throws {
        try await migrate(
            to: postSchema + "\nenum Mood {\n  HAPPY\n}\n\ntype Location {\n  lat: Float\n}\n",
            expecting: []
        ) { _ in }
    }

    // MARK: - Destructive

    @Test func aRemovedModelIsRefused() async throws {
        let author = "\ntype Author @model {\n  id: ID!\n  name: String\n}\n"
        try await refuse(postSchema, from: postSchema + author, naming: ["removed model 'Author'"])
    }

    @Test func aRemovedFieldIsRefused() async throws {
        try await refuse(
            postSchema.replacingOccurrences(of: "  rating: Int!\n", with: ""),
            naming: ["removed field 'Post.rating'"]
        )
    }

    @Test func aChangedFieldTypeIsRefused() async throws {
        try await refuse(
            postSchema.replacingOccurrences(of: "rating: Int!", with: "rating: String!"),
            naming: ["changed the type of 'Post.rating' from Int! to String!"]
        )
    }

    @Test func aChangedPrimaryKeyIsRefused() async throws {
        try await refuse(
            postSchema.replacingOccurrences(of: "id: ID!", with: #"id: ID! @primaryKey(sortKeyFields: ["title"])"#),
            naming: ["changed the primary key of 'Post' from (id) to (id, title)"]
        )
    }

    @Test func aNewRequiredFieldWithoutDefaultIsRefused() async throws {
        try await refuse(
            postSchema.replacingOccurrences(of: "rating: Int!", with: "rating: Int!\n  author: String!"),
            naming: ["added required field 'Post.author' (String!) without @default"]
        )
    }

    @Test func aRemovedEnumValueIsRefused() async throws {
        try await refuse(
            postSchema.replacingOccurrences(of: "  PUBLISHED\n", with: ""),
            naming: ["removed value 'PUBLISHED' from enum 'PostStatus'"]
        )
    }

    @Test func theRefusalListsEveryChangeAndSaysWhatToDo() async throws {
        let changed = postSchema.replacingOccurrences(of: "  rating: Int!\n", with: "")
            .replacingOccurrences(of: "title: String!", with: "title: Int!")
        let error = try await refusal(changed)
        #expect(
            error.description
                == """
                The data directory holds data that the schema's changes would lose or invalidate:
                  - removed field 'Post.rating'
                  - changed the type of 'Post.title' from String! to Int!
                Undo these changes, or start with an empty data directory (which deletes the stored data).
                """
        )
    }

    // MARK: - Databases written before shapes were recorded

    @Test(.enabled(if: !TestStore.isPostgres, "SQLite databases from before recorded shapes"))
    func anUnrecordedDatabaseOpensWithItsSchemaAndRecordsTheShape() async throws {
        try await migrate(to: postSchema, expecting: [], from: .beforeRecordedShapes) { server in
            try server.server.close()
            let shape = try #require(try await Self.recordedShape(in: server.directory))
            #expect(shape["models"]?["Post"]?["primaryKey"] == ["id"])
            #expect(shape["models"]?["Post"]?["fields"]?["rating"] == ["type": "Int!", "hasDefault": false])
            #expect(shape["enums"]?["PostStatus"] == ["DRAFT", "PUBLISHED"])
            // With the types recorded, a changed type is seen again.
            let changed = postSchema.replacingOccurrences(of: "rating: Int!", with: "rating: String!")
            let error = try await #require(throws: ServerError.self) {
                _ = try await TestServer(changed, directory: server.directory)
            }
            #expect(
                error.refusedSchemaChanges.map(\.description)
                    == ["changed the type of 'Post.rating' from Int! to String!"]
            )
        }
    }

    @Test(.enabled(if: !TestStore.isPostgres, "SQLite databases from before recorded shapes"))
    func anUnrecordedDatabaseKeepsItsTokenSecret() async throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let clock = TestClock()
        try await populate(directory, schema: postSchema, clock: clock)
        let nextPage = "query Q($token: String) { listPosts(limit: 1, nextToken: $token) { items { id } } }"
        let server = try await TestServer(postSchema, directory: directory, clock: clock)
        let page = await server.json("{ listPosts(limit: 1) { items { id } nextToken } }")
        let token = try #require(page["data"]?["listPosts"]?["nextToken"]?.stringValue)
        let expected = await server.run(nextPage, ["token": .string(token)])
        #expect(expected.hasPrefix(#"{"data":{"listPosts":{"items":[{"id":"#))
        try server.server.close()
        try await Self.forgetRecordedShape(in: directory)
        // A token issued before still reads the next page.
        let reopened = try await TestServer(postSchema, directory: directory, clock: clock)
        #expect(reopened.server.appliedSchemaChanges.isEmpty)
        #expect(await reopened.run(nextPage, ["token": .string(token)]) == expected)
    }

    @Test(.enabled(if: !TestStore.isPostgres, "SQLite databases from before recorded shapes"))
    func anUnrecordedDatabaseGetsANewOptionalField() async throws {
        try await migrate(
            to: postSchema.replacingOccurrences(of: "rating: Int!", with: "rating: Int!\n  subtitle: String"),
            expecting: ["added field 'Post.subtitle' (String)"],
            from: .beforeRecordedShapes
        ) { server in
            #expect(
                await server.run(#"{ getPost(id: "p1") { id subtitle } }"#)
                    == #"{"data":{"getPost":{"id":"p1","subtitle":null}}}"#
            )
        }
    }

    @Test(.enabled(if: !TestStore.isPostgres, "SQLite databases from before recorded shapes"))
    func anUnrecordedDatabaseGetsANewModelAndADefaultedField() async throws {
        try await migrate(
            to: postSchema.replacingOccurrences(
                of: "rating: Int!",
                with: "rating: Int!\n  priority: Int! @default(value: \"3\")"
            ) + "\ntype Author @model {\n  id: ID!\n  name: String\n}\n",
            expecting: ["added model 'Author'", "added field 'Post.priority' (Int!)"],
            from: .beforeRecordedShapes
        ) { server in
            #expect(
                await server.run(#"{ getPost(id: "p1") { id priority } }"#)
                    == #"{"data":{"getPost":{"id":"p1","priority":3}}}"#
            )
            #expect(
                await server.run(#"mutation { createAuthor(input: {id: "a1", name: "Ann"}) { id name } }"#)
                    == #"{"data":{"createAuthor":{"id":"a1","name":"Ann"}}}"#
            )
        }
    }

    @Test(.enabled(if: !TestStore.isPostgres, "SQLite databases from before recorded shapes"))
    func anUnrecordedDatabaseRefusesARemovedField() async throws {
        try await refuse(
            postSchema.replacingOccurrences(of: "  rating: Int!\n", with: ""),
            written: .beforeRecordedShapes,
            naming: ["removed field 'Post.rating'"]
        )
    }

    @Test(.enabled(if: !TestStore.isPostgres, "SQLite databases from before recorded shapes"))
    func anUnrecordedDatabaseRefusesARemovedModel() async throws {
        let author = "\ntype Author @model {\n  id: ID!\n  name: String\n}\n"
        try await refuse(
            postSchema,
            from: postSchema + author,
            written: .beforeRecordedShapes,
            naming: ["removed model 'Author'"]
        )
    }

    @Test(.enabled(if: !TestStore.isPostgres, "SQLite databases from before recorded shapes"))
    func anUnrecordedDatabaseRefusesAChangedPrimaryKey() async throws {
        try await refuse(
            postSchema.replacingOccurrences(of: "id: ID!", with: #"id: ID! @primaryKey(sortKeyFields: ["title"])"#),
            written: .beforeRecordedShapes,
            naming: ["changed the primary key of 'Post' from (id) to (id, title)"]
        )
    }

    @Test(.enabled(if: !TestStore.isPostgres, "SQLite databases from before recorded shapes"))
    func anUnrecordedDatabaseWithEveryKindOfValueOpensWithItsSchema() async throws {
        let schema = """
            type Thing @model {
              id: ID!
              flag: Boolean
              ratio: Float
              count: Int!
              stamp: AWSTimestamp
              data: AWSJSON
              tags: [String]
              place: Place
              mood: Mood
              moods: [Mood!]
            }

            type Place {
              lat: Float
            }

            enum Mood {
              HAPPY
              SAD
            }
            """
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let read = #"{ listThings { items { id flag ratio count stamp data tags place { lat } mood moods } } }"#
        let server = try await TestServer(schema, directory: directory)
        _ = await server.run(
            #"mutation { createThing(input: {id: "t1", flag: true, ratio: 0.5, count: 2, stamp: 1700000000, "#
                + #"data: "{\"a\":[1]}", tags: ["x"], place: {lat: 1.5}, mood: SAD, moods: [HAPPY]}) { id } }"#
        )
        _ = await server.run(#"mutation { createThing(input: {id: "t2", count: 0, data: "\"text\""}) { id } }"#)
        let items = await server.run(read)
        #expect(items.hasPrefix(#"{"data":{"listThings":{"items":[{"id":"t1","flag":true,"ratio":0.5,"#))
        #expect(items.contains(#"{"id":"t2","flag":null,"ratio":null,"count":0,"#))
        try server.server.close()
        try await Self.forgetRecordedShape(in: directory)

        let reopened = try await TestServer(schema, directory: directory)
        #expect(reopened.server.appliedSchemaChanges.isEmpty)
        #expect(await reopened.run(read) == items)
    }

    @Test(.enabled(if: !TestStore.isPostgres, "SQLite databases from before recorded shapes"))
    func anUnrecordedDatabaseRefusesATypeItsValuesDoNotFit() async throws {
        try await refuse(
            postSchema.replacingOccurrences(of: "title: String!", with: "title: Int!"),
            written: .beforeRecordedShapes,
            naming: ["changed the type of 'Post.title' to Int!, which 3 stored values do not fit"]
        )
    }

    @Test(.enabled(if: !TestStore.isPostgres, "SQLite databases from before recorded shapes"))
    func anUnrecordedDatabaseRefusesAnEnumItsValuesAreNotIn() async throws {
        try await refuse(
            postSchema.replacingOccurrences(of: "  DRAFT\n", with: "  DRAFTED\n"),
            written: .beforeRecordedShapes,
            naming: ["changed the type of 'Post.status' to PostStatus!, which 3 stored values do not fit"]
        )
    }

    // MARK: - Helpers

    /// Writes items, a tombstone and journal entries with `postSchema`, opens the directory with
    /// `schema`, checks the applied changes and that everything survived, then runs `body`.
    private func migrate(
        to schema: String,
        expecting changes: [String],
        from written: Written = .current,
        _ body: (TestServer) async throws -> Void
    ) async throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let clock = TestClock()
        try await populate(directory, schema: postSchema, clock: clock, written: written)
        let server = try await TestServer(schema, directory: directory, clock: clock)
        #expect(server.server.appliedSchemaChanges.map(\.description) == changes)
        #expect(
            await server.run(#"{ getPost(id: "p1") { id title _version } }"#)
                == #"{"data":{"getPost":{"id":"p1","title":"changed","_version":2}}}"#
        )
        #expect(
            await server.run(#"{ getPost(id: "p2") { id _version _deleted } }"#)
                == #"{"data":{"getPost":{"id":"p2","_version":2,"_deleted":true}}}"#
        )
        #expect(
            await server.run("{ syncPosts(lastSync: 1700000000500) { items { id _version _deleted } } }")
                == #"{"data":{"syncPosts":{"items":[{"id":"p1","_version":2,"_deleted":null},"#
                + #"{"id":"p2","_version":2,"_deleted":true}]}}}"#
        )
        try await body(server)
    }

    /// Opens a directory written with `original` with `schema`, expects the refusal to name
    /// `changes`, and the database file to be byte-for-byte what it was.
    private func refuse(
        _ schema: String,
        from original: String = postSchema,
        written: Written = .current,
        naming changes: [String]
    ) async throws {
        let error = try await refusal(schema, from: original, written: written)
        #expect(error.refusedSchemaChanges.map(\.description) == changes)
        for change in changes {
            #expect(error.description.contains(change))
        }
    }

    private func refusal(
        _ schema: String,
        from original: String = postSchema,
        written: Written = .current
    ) async throws -> ServerError {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try await populate(directory, schema: original, clock: TestClock(), written: written)
        let file = directory.appending(path: "stratus.sqlite")
        let before = TestStore.isPostgres ? nil : try Data(contentsOf: file)
        let error = try await #require(throws: ServerError.self) {
            _ = try await TestServer(schema, directory: directory)
        }
        if let before { #expect(try Data(contentsOf: file) == before) }
        // The old schema still opens the directory.
        let server = try await TestServer(original, directory: directory)
        #expect(server.server.appliedSchemaChanges.isEmpty)
        return error
    }

    /// Which version of the server wrote a data directory.
    enum Written {
        /// This one, which records the stored shape in `_stratus_meta`.
        case current
        /// One from before shapes were recorded: `_stratus_meta` holds the token secret only.
        case beforeRecordedShapes
    }

    private func populate(_ directory: URL, schema: String, clock: TestClock, written: Written = .current) async throws
    {
        let server = try await TestServer(schema, directory: directory, clock: clock)
        for number in 1...3 {
            _ = await server.run(
                "mutation { createPost(input: {id: \"p\(number)\", title: \"T\(number)\", rating: \(number), "
                    + "status: DRAFT}) { id } }"
            )
        }
        clock.advance(milliseconds: 1000)
        _ = await server.run(#"mutation { updatePost(input: {id: "p1", title: "changed", _version: 1}) { id } }"#)
        _ = await server.run(#"mutation { deletePost(input: {id: "p2", _version: 1}) { id } }"#)
        try server.server.close()
        if written == .beforeRecordedShapes { try await Self.forgetRecordedShape(in: directory) }
    }

    /// Deletes the recorded shape, leaving the database as versions before recorded shapes left it.
    private static func forgetRecordedShape(in directory: URL) async throws {
        let database = try DatabaseQueue(path: Self.database(in: directory).path)
        try await database.write { db in
            try db.execute(sql: "DELETE FROM _stratus_meta WHERE key = 'storedShape'")
        }
        #expect(
            try await database.read { db in try String.fetchAll(db, sql: "SELECT key FROM _stratus_meta") } == [
                "tokenSecret"
            ]
        )
        try database.close()
    }

    /// The shape recorded in the database in `directory`, if any.
    private static func recordedShape(in directory: URL) async throws -> JSON? {
        let database = try DatabaseQueue(path: Self.database(in: directory).path)
        defer { try? database.close() }
        let data = try await database.read { db in
            try Data.fetchOne(db, sql: "SELECT value FROM _stratus_meta WHERE key = 'storedShape'")
        }
        return try data.map { try JSON(parsing: $0) }
    }

    private static func database(in directory: URL) -> URL {
        directory.appending(path: "stratus.sqlite")
    }
}
