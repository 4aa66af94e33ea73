import Amplify
import BlogModels
import Foundation
import GRDB
import Testing

@testable import AWSDataStorePlugin

/// The database file: what marks it as DataStore's, the tables, the indexes and the system tables.
@Suite struct StorageLayoutTests {
    @Test func aNewDatabaseIsMarkedAndInWALMode() async throws {
        let store = try TestStore()
        try await store.plugin.start()
        let engine = try store.engine
        let (applicationID, journalMode, format, version) = try await engine.pool.read { db in
            (
                try Int32.fetchOne(db, sql: "PRAGMA application_id"),
                try String.fetchOne(db, sql: "PRAGMA journal_mode"),
                try SystemTables.metadataValue(db, "format"),
                try SystemTables.metadataValue(db, "registryVersion")
            )
        }
        #expect(applicationID == 0x5354_5241)
        #expect(journalMode == "wal")
        #expect(format == "1")
        #expect(version == BlogRegistration().version)
        let header = try Data(contentsOf: store.databaseURL).prefix(72)
        #expect(Array(header[68..<72]) == Array("STRA".utf8))
    }

    @Test func eachModelHasATypedStrictTable() throws {
        let catalog = try ModelCatalog(modelTypes: ModelRegistry.modelTypes(registeredBy: BlogRegistration()))
        #expect(
            catalog.tables["Comment"]!.createTableSQL() == """
                CREATE TABLE "Comment" (
                  "id" TEXT NOT NULL,
                  "content" TEXT NOT NULL,
                  "postCommentsId" TEXT,
                  "createdAt" TEXT,
                  "updatedAt" TEXT,
                  PRIMARY KEY ("id"),
                  FOREIGN KEY ("postCommentsId") REFERENCES "Post" ("id") DEFERRABLE INITIALLY DEFERRED
                ) STRICT
                """
        )
        #expect(
            catalog.tables["Author"]!.createTableSQL() == """
                CREATE TABLE "Author" (
                  "country" TEXT NOT NULL,
                  "handle" TEXT NOT NULL,
                  "displayName" TEXT,
                  "home" TEXT,
                  "joinedOn" TEXT,
                  PRIMARY KEY ("country", "handle")
                ) STRICT
                """
        )
        let post = catalog.tables["Post"]!
        #expect(
            post.columns.map { "\($0.name) \($0.kind.sqlType)\($0.isRequired ? " NOT NULL" : "")" } == [
                "id TEXT NOT NULL", "title TEXT NOT NULL", "blogID TEXT NOT NULL", "status TEXT NOT NULL",
                "rating INTEGER", "score REAL", "published INTEGER", "publishedOn TEXT", "publishedAt TEXT",
                "reminderTime TEXT", "expiresAt INTEGER", "contactEmail TEXT", "website TEXT", "phone TEXT", "ip TEXT",
                "metadata TEXT", "keywords TEXT", "ratings TEXT", "statusHistory TEXT", "locations TEXT",
                "secretNotes TEXT", "owner TEXT", "readers TEXT", "createdAt TEXT", "updatedAt TEXT",
            ]
        )
        #expect(post.createIndexSQL(post.indexes[0]) == #"CREATE INDEX "Post:byBlog" ON "Post" ("blogID", "title")"#)
        #expect(post.indexes.map(\.name) == ["byBlog"])
        #expect(catalog.tables["PostTags"]!.indexes.map(\.name) == ["byPost", "byTag"])
        #expect(catalog.tables["Comment"]!.indexes.map(\.columns) == [["postCommentsId"]])
        #expect(catalog.tables["Post"]!.children.map(\.childTable) == ["Comment", "PostTags"])
        #expect(catalog.tables["Blog"]!.children.map(\.childTable) == ["Post", "BlogSettings"])
    }

    @Test func indexesExistInTheDatabase() async throws {
        let store = try TestStore()
        try await store.plugin.start()
        let indexes = try await store.engine.pool.read { db in
            try String.fetchAll(
                db,
                sql: "SELECT name FROM sqlite_master WHERE type = 'index' AND name NOT LIKE 'sqlite_%' ORDER BY name"
            )
        }
        #expect(
            indexes == [
                "Attachment:byMime", "BlogSettings:fk_blog", "Comment:fk_post", "Photo:fk_album", "Post:byBlog",
                "PostTags:byPost", "PostTags:byTag", "_stratus_orphans:byParent", "_stratus_outbox:byRecord",
                "_stratus_outbox:byTransaction",
            ]
        )
    }

    @Test func aSaveWritesItsOutboxRowAndSyncMetadata() async throws {
        let store = try TestStore()
        try await store.plugin.save(Fixtures.blog())
        try await store.plugin.save(Fixtures.post("p1", title: "Hello"))
        let engine = try store.engine
        let (outbox, metadata) = try engine.pool.read { db in
            (
                try Row.fetchAll(
                    db,
                    sql: #"SELECT "modelName", "modelId", "mutationType", "json" FROM "_stratus_outbox""#
                ),
                try Row.fetchAll(
                    db,
                    sql: #"SELECT "id", "version", "deleted" FROM "_stratus_sync_metadata" ORDER BY "id""#
                )
            )
        }
        #expect(outbox.map { $0[0] as String } == ["Blog", "Post"])
        #expect(outbox.map { $0[2] as String } == ["create", "create"])
        let postJSON = try JSONValue(parsing: outbox[1][3] as String)
        #expect(postJSON["title"] == "Hello")
        #expect(postJSON["blogID"] == "b1")
        #expect(metadata.map { $0[0] as String } == ["Blog|b1", "Post|p1"])
        #expect(metadata.map { $0[2] as Int } == [0, 0])
    }

    /// A deletion's event holds the stored record as JSON text, written from the row: sorted
    /// keys, null columns left out, stored lists as they are, escapes as JSONEncoder writes them.
    @Test func aDeletionsOutboxRowHoldsTheStoredRecordAsJSONText() async throws {
        let store = try TestStore()
        try await store.plugin.save(Fixtures.blog())
        var post = Fixtures.post("p1", title: "Tab\t \"quoted\" back\u{08} feed\u{0C} nul\u{00} é/😀")
        post.score = 2
        post.published = true
        post.keywords = ["a/b"]
        post.locations = [GeoPoint(latitude: 1.5, longitude: -2)]
        try await store.plugin.save(post)
        // Sent, so that the deletion queues behind the create instead of cancelling it.
        try await store.markAllSent()
        try await store.plugin.delete(post)
        let deletion = try #require(try await store.plugin.pendingMutations().last)
        #expect(deletion.kind == .delete)
        #expect(
            deletion.json
                == #"{"blogID":"b1","id":"p1","keywords":["a/b"],"locations":[{"latitude":1.5,"longitude":-2}],"#
                + #""published":true,"rating":3,"score":2.0,"status":"DRAFT","#
                + #""title":"Tab\t \"quoted\" back\b feed\f nul\u0000 é/😀"}"#
        )
    }

    @Test func aFailedSaveWritesNothing() async throws {
        let store = try TestStore()
        try await store.plugin.save(Fixtures.blog())
        try await store.plugin.save(Fixtures.post("p1", rating: 1))
        await #expect(throws: DataStoreError.self) {
            try await store.plugin.save(Fixtures.post("p1", rating: 9), where: BlogPost.keys.rating > 5)
        }
        #expect(try await store.plugin.pendingMutations().count == 2)
        #expect(try await store.plugin.query(BlogPost.self, byId: "p1")?.rating == 1)
    }

    @Test func theDatabaseSurvivesAReopen() async throws {
        let store = try TestStore()
        try await store.plugin.save(Fixtures.blog())
        try await store.plugin.stop()
        let reopened = store.reopened()
        #expect(try await reopened.query(Blog.self).map(\.id) == ["b1"])
        #expect(try await reopened.pendingMutations().count == 1)
        #expect(store.logs.messages.isEmpty)
    }

    @Test func theDefaultPathIsInTheApplicationSupportDirectory() {
        let environment = ["XDG_DATA_HOME": "/data", "HOME": "/home/u"]
        #if canImport(Darwin)
            #expect(
                DataStoreConfiguration.applicationSupportDirectory(environment: environment).path.hasSuffix(
                    "Application Support"
                )
            )
        #else
            #expect(DataStoreConfiguration.applicationSupportDirectory(environment: environment).path == "/data")
            #expect(
                DataStoreConfiguration.applicationSupportDirectory(environment: ["HOME": "/home/u"]).path
                    == "/home/u/.local/share"
            )
            // A relative XDG_DATA_HOME is ignored, as the specification says.
            #expect(
                DataStoreConfiguration.applicationSupportDirectory(environment: [
                    "XDG_DATA_HOME": "data", "HOME": "/home/u",
                ]).path
                    == "/home/u/.local/share"
            )
        #endif
        let url = DataStoreConfiguration.defaultDatabaseURL(environment: ["XDG_DATA_HOME": "/data"])
        #expect(url.lastPathComponent == "datastore.sqlite")
        #expect(url.deletingLastPathComponent().lastPathComponent == "DataStore")
    }
}

/// Files that are not DataStore's, or are corrupted, are refused and left untouched.
@Suite struct ForeignDatabaseTests {
    func open(_ url: URL) async throws {
        let plugin = TestStore.makePlugin(BlogRegistration(), at: url, logs: LogRecorder())
        try await plugin.start()
    }

    @Test func aTextFileIsRefused() async throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("notes.sqlite")
        try Data("Dear diary,\nToday I".utf8).write(to: url)
        let error = await #expect(throws: DataStoreError.self) { try await open(url) }
        #expect(error?.code == .invalidDatabase)
        #expect(
            error?.message
                == "The file at '\(url.path)' is not a DataStore database: it is not a SQLite database (it starts with \"Dear diary,\nToda\"). DataStore left it untouched. Move it away, or give DataStoreConfiguration(databaseURL:) another path."
        )
        #expect(try Data(contentsOf: url) == Data("Dear diary,\nToday I".utf8))
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.url.path) == ["notes.sqlite"])
    }

    @Test func anotherProgramsDatabaseIsRefused() async throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("other.sqlite")
        let queue = try DatabaseQueue(path: url.path)
        try await queue.write { db in
            try db.execute(
                sql: "CREATE TABLE Post (id TEXT PRIMARY KEY, title TEXT); INSERT INTO Post VALUES ('1', 'x')"
            )
        }
        try queue.close()
        let before = try Data(contentsOf: url)
        let error = await #expect(throws: DataStoreError.self) { try await open(url) }
        #expect(
            error?.message
                == "The file at '\(url.path)' is a SQLite database that DataStore did not create (its application_id is 0x0, DataStore's is 0x53545241). DataStore left it untouched. Give DataStoreConfiguration(databaseURL:) another path."
        )
        #expect(try Data(contentsOf: url) == before)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.url.path) == ["other.sqlite"])
    }

    @Test func aCorruptedDatabaseIsRefusedAndLeftAsItWas() async throws {
        let store = try TestStore()
        try await store.plugin.save(Fixtures.blog())
        for index in 0..<300 {
            try await store.plugin.save(Fixtures.post("p\(index)", title: String(repeating: "x", count: 200)))
        }
        try await store.plugin.stop()
        // Overwrite the middle of the file, past the header and the schema.
        var bytes = try Data(contentsOf: store.databaseURL)
        let middle = bytes.count / 2
        bytes.replaceSubrange(middle..<(middle + 4096), with: Data(repeating: 0xA5, count: 4096))
        try bytes.write(to: store.databaseURL)
        let error = await #expect(throws: DataStoreError.self) { try await store.reopened().start() }
        #expect(error?.code == .invalidDatabase)
        #expect(
            error?.message.hasPrefix("The DataStore database at '\(store.databaseURL.path)' is corrupted: ") == true
        )
        #expect(
            error?.message.hasSuffix(
                "DataStore left it untouched. Restore it from a backup, or move it away to start with an empty store (its pending outbox would be lost)."
            ) == true
        )
        #expect(try Data(contentsOf: store.databaseURL) == bytes)
    }

    @Test func anEmptyFileBecomesADatabase() async throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("empty.sqlite")
        try Data().write(to: url)
        try await open(url)
        #expect(try DatabaseFile.inspect(url) == .dataStore)
    }
}

/// A process killed while it created the database leaves nothing that stops the next start.
@Suite struct InterruptedCreationTests {
    /// The files a process killed in the middle of an earlier release's creation left: the
    /// journal of the transaction that wrote the database beside a file with some of its pages
    /// (the kill came before the commit) or all of them (it came between the commit's write and
    /// the journal's removal). They are copied while the transaction is open, which is what a kill
    /// leaves on disk.
    static func leaveInterruptedCreation(at url: URL, scratch: URL, allPagesWritten: Bool) throws {
        let queue = try DatabaseQueue(path: scratch.path)
        let journal = URL(fileURLWithPath: url.path + "-journal")
        try queue.inDatabase { db in
            try db.execute(sql: "PRAGMA cache_size = 1")
            try db.execute(sql: "BEGIN IMMEDIATE")
            try db.execute(sql: "PRAGMA application_id = \(SystemTables.applicationID)")
            try SystemTables.create(db)
            // Rows enough that SQLite writes pages to the file before the commit.
            try db.execute(sql: "CREATE TABLE filler (data BLOB)")
            for _ in 0..<200 { try db.execute(sql: "INSERT INTO filler VALUES (randomblob(1000))") }
            try FileManager.default.copyItem(at: URL(fileURLWithPath: scratch.path + "-journal"), to: journal)
            if allPagesWritten {
                try db.execute(sql: "COMMIT")
            } else {
                try FileManager.default.copyItem(at: scratch, to: url)
                try db.execute(sql: "ROLLBACK")
            }
        }
        try queue.close()
        if allPagesWritten { try FileManager.default.copyItem(at: scratch, to: url) }
    }

    @Test(arguments: [false, true])
    func aDatabaseWhoseCreationWasInterruptedIsCreatedAgain(allPagesWritten: Bool) async throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("device.sqlite")
        try Self.leaveInterruptedCreation(
            at: url,
            scratch: directory.file("scratch.sqlite"),
            allPagesWritten: allPagesWritten
        )
        // Without the rollback, the file is refused: the pages written before the header are
        // not a SQLite database, and a read-only check of a file with a header cannot roll back.
        #expect(try Data(contentsOf: url).count > 100_000)
        let plugin = TestStore.makePlugin(BlogRegistration(), at: url, logs: LogRecorder())
        try await plugin.start()
        try await plugin.save(Fixtures.blog())
        #expect(try await plugin.query(Blog.self).count == 1)
        try await plugin.stop()
        #expect(!FileManager.default.fileExists(atPath: url.path + "-journal"))
        let reopened = TestStore.makePlugin(BlogRegistration(), at: url, logs: LogRecorder())
        try await reopened.start()
        #expect(try await reopened.query(Blog.self).count == 1)
        try await reopened.stop()
    }

    /// Stores that start on one new path at once: each creator used to remove the others' draft
    /// and log and rename its own file over a database another store had already written to.
    @Test func storesCreatingOneDatabaseAtOnceKeepEveryWrite() async throws {
        for _ in 0..<4 {
            let directory = try TemporaryDirectory()
            let url = directory.file("device.sqlite")
            let stores = (0..<6).map { _ in TestStore.makePlugin(BlogRegistration(), at: url, logs: LogRecorder()) }
            try await withThrowingTaskGroup(of: Void.self) { group in
                for (index, store) in stores.enumerated() {
                    group.addTask {
                        try await store.start()
                        try await store.save(Fixtures.blog("b\(index)"))
                    }
                }
                try await group.waitForAll()
            }
            for store in stores { try await store.stop() }
            let reopened = TestStore.makePlugin(BlogRegistration(), at: url, logs: LogRecorder())
            try await reopened.start()
            #expect(try await reopened.query(Blog.self).map(\.id).sorted() == (0..<6).map { "b\($0)" })
            try await reopened.stop()
        }
    }

    @Test func aDraftAndAStaleLogLeftBesideTheDatabasePathAreReplaced() async throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("device.sqlite")
        try Data("half a database".utf8).write(to: directory.file("device.sqlite.creating"))
        try Data("a log of a database that was deleted".utf8).write(to: directory.file("device.sqlite-wal"))
        let plugin = TestStore.makePlugin(BlogRegistration(), at: url, logs: LogRecorder())
        try await plugin.start()
        try await plugin.save(Fixtures.blog())
        try await plugin.stop()
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.url.path).sorted()
        #expect(names.allSatisfy { ["device.sqlite", "device.sqlite-wal", "device.sqlite-shm"].contains($0) })
        #expect(try Data(contentsOf: directory.file("device.sqlite-wal")).starts(with: Data("a log".utf8)) == false)
        #expect(try DatabaseFile.inspect(url) == .dataStore)
    }
}
