import Amplify
import BlogModels
import Foundation
import GRDB
import StratusServer
import Testing

@testable import AWSDataStorePlugin

/// `DeviceStoreInspection` (what `stratus inspect` prints) on a real DataStore database that the
/// DataStore still has open: the models and counts, the outbox in order with its in-flight marks,
/// the sync state and the held records, read without writing to the file.
@Suite struct DeviceStoreInspectionTests {
    /// The clock the next sync is judged at: an hour after the recorded sync of `Blog`.
    static let now = Date(timeIntervalSince1970: 1_750_003_600)
    static let blogSync = 1_750_000_000_000

    /// A store with records, a local delete of a record never sent (which leaves nothing), two
    /// events in flight with a change queued behind one, a transaction, a conditional save, a
    /// synced model, a tombstone the backend sent, and records the backend sent held back: one
    /// for a record with pending changes, one before its parent.
    static func populate(_ store: TestStore) async throws {
        let plugin = store.plugin
        try await plugin.save(Blog(id: "b1", name: "Local b1"))
        try await plugin.save(Blog(id: "b2", name: "Local b2"))
        try await store.markAllSent()
        try await plugin.save(Blog(id: "b1", name: "Again b1"))
        try await plugin.save(Blog(id: "b3", name: "Gone"))
        try await plugin.delete(Blog(id: "b3", name: "Gone"))
        try await plugin.transaction { transaction in
            try transaction.save(Blog(id: "b4", name: "Together"))
            try transaction.save(Fixtures.post("p4", title: "With b4", blog: Blog(id: "b4", name: "Together")))
        }
        try await plugin.save(Blog(id: "b2", name: "Renamed b2"), where: Blog.keys.name == "Local b2")
        let engine = try store.engine
        try await engine.setLastSync(of: "Blog", blogSync, expression: nil)
        _ = try await engine.reconcile(
            [
                try Self.item(#"{"id":"b1","name":"Server b1","_version":4,"_deleted":false,"_lastChangedAt":7}"#),
                try Self.item(#"{"id":"b5","name":"Removed","_version":3,"_deleted":true,"_lastChangedAt":7}"#),
            ],
            modelName: "Blog"
        )
        _ = try await engine.reconcile(
            [
                try Self.item(
                    #"{"id":"p9","title":"Early","blogID":"b9","status":"DRAFT","_version":2,"_deleted":false,"_lastChangedAt":7}"#
                )
            ],
            modelName: "Post"
        )
    }

    /// The JSON of models without records, each followed by a comma.
    static func emptyModels(_ names: [String]) -> String {
        names.map { #"{"name":"\#($0)","records":0,"deleted":0,"pending":0},"# }.joined()
    }

    /// The JSON of the sync state of models never synced, each followed by a comma.
    static func neverSynced(_ names: [String]) -> String {
        names.map {
            #"{"modelName":"\#($0)","lastSync":null,"lastSyncAt":null,"syncExpression":null,"#
                + #""baseSyncAfterSchemaChange":false,"nextSync":{"kind":"base","reason":"never synced"}},"#
        }
        .joined()
    }

    static func item(_ text: String) throws -> JSONValue {
        try JSONValue(parsing: Data(text.utf8))
    }

    /// The outbox row's transaction, read in the app's own connection.
    static func transactionID(of modelId: String, _ store: TestStore) async throws -> String {
        try await store.engine.read { db in
            try String.fetchOne(
                db,
                sql: "SELECT \"transactionId\" FROM \"_stratus_outbox\" WHERE \"modelId\" = ?",
                arguments: [modelId]
            ) ?? ""
        }
    }

    @Test func aDataStoreTheAppHasOpenShowsItsModelsOutboxSyncStateAndHeldRecords() async throws {
        let store = try TestStore()
        try await Self.populate(store)
        let files = StoreFiles(store.databaseURL)
        let before = try files.snapshot()
        #expect(before.wal?.bytes.isEmpty == false, "the app's changes are in the write-ahead log")

        let inspection = try DeviceStoreInspection(fileAt: store.databaseURL, now: Self.now)

        #expect(try files.snapshot() == before, "the inspection wrote to the database or its log")
        let events = try await store.plugin.pendingMutations()
        #expect(events.map(\.modelId) == ["b1", "b2", "b1", "b4", "p4", "b2"])
        func record(_ index: Int) throws -> String { try JSON(parsing: events[index].json).text }
        let transaction = try await Self.transactionID(of: "b4", store)
        let path = store.databaseURL.path
        let createdAt = try #require(
            try await store.engine.read { db in
                try String.fetchOne(db, sql: #"SELECT "value" FROM "_stratus_metadata" WHERE "key" = 'createdAt'"#)
            }
        )
        let modelsVersion = try #require(
            try await store.engine.read { db in try SystemTables.metadataValue(db, "registryVersion") }
        )
        let expected = """
            {"inspectionFormat":1,"path":"\(path)","kind":"dataStore","dataStore":{"format":1,\
            "createdAt":"\(createdAt)","modelsVersion":"\(modelsVersion)","models":[\
            \(Self.emptyModels(["Album", "Attachment", "Author"]))\
            {"name":"Blog","records":3,"deleted":1,"pending":5},\
            \(Self.emptyModels(["BlogSettings", "Comment", "Photo"]))\
            {"name":"Post","records":1,"deleted":0,"pending":1},\
            \(Self.emptyModels(["PostTags", "Tag"]).dropLast())],\
            "outbox":[\
            {"position":1,"sequence":1,"id":"\(events[0].id)","modelName":"Blog","modelId":"b1","kind":"create",\
            "createdAt":"\(events[0].createdAt.iso8601String)","inFlight":true,"version":null,"transactionId":null,\
            "condition":null,"record":\(try record(0))},\
            {"position":2,"sequence":2,"id":"\(events[1].id)","modelName":"Blog","modelId":"b2","kind":"create",\
            "createdAt":"\(events[1].createdAt.iso8601String)","inFlight":true,"version":null,"transactionId":null,\
            "condition":null,"record":\(try record(1))},\
            {"position":3,"sequence":3,"id":"\(events[2].id)","modelName":"Blog","modelId":"b1","kind":"update",\
            "createdAt":"\(events[2].createdAt.iso8601String)","inFlight":false,"version":null,"transactionId":null,\
            "condition":null,"record":\(try record(2))},\
            {"position":4,"sequence":4,"id":"\(events[3].id)","modelName":"Blog","modelId":"b4","kind":"create",\
            "createdAt":"\(events[3].createdAt.iso8601String)","inFlight":false,"version":null,\
            "transactionId":"\(transaction)","condition":null,"record":\(try record(3))},\
            {"position":5,"sequence":5,"id":"\(events[4].id)","modelName":"Post","modelId":"p4","kind":"create",\
            "createdAt":"\(events[4].createdAt.iso8601String)","inFlight":false,"version":null,\
            "transactionId":"\(transaction)","condition":null,"record":\(try record(4))},\
            {"position":6,"sequence":6,"id":"\(events[5].id)","modelName":"Blog","modelId":"b2","kind":"update",\
            "createdAt":"\(events[5].createdAt.iso8601String)","inFlight":false,"version":null,"transactionId":null,\
            "condition":{"name":{"eq":"Local b2"}},"record":\(try record(5))}],\
            "sync":[\
            \(Self.neverSynced(["Album", "Attachment", "Author"]))\
            {"modelName":"Blog","lastSync":1750000000000,"lastSyncAt":"2025-06-15T15:06:40.000Z",\
            "syncExpression":null,"baseSyncAfterSchemaChange":false,"nextSync":{"kind":"delta",\
            "reason":"the last sync is within the sync interval (a base sync if the app's sync expression differs \
            from the recorded one)"}},\
            \(Self.neverSynced(["BlogSettings", "Comment", "Photo", "Post", "PostTags", "Tag"]).dropLast())],\
            "held":[\
            {"kind":"deferred","modelName":"Blog","modelId":"b1","parent":null,"version":4,\
            "record":{"_deleted":false,"_lastChangedAt":7,"_version":4,"id":"b1","name":"Server b1"}},\
            {"kind":"orphan","modelName":"Post","modelId":"p9","parent":{"modelName":"Blog","modelId":"b9"},\
            "version":2,"record":{"_deleted":false,"_lastChangedAt":7,"_version":2,"blogID":"b9","id":"p9",\
            "status":"DRAFT","title":"Early"}}]}}
            """
        #expect(inspection.json.text == expected)
    }

    @Test func aLogLeftByAStoppedAppIsReadWithoutBeingCheckpointed() async throws {
        let store = try TestStore()
        try await Self.populate(store)
        // The files as an app that stopped without closing its store leaves them: the log holds
        // the changes, and no connection is open.
        let copy = try TemporaryDirectory()
        let original = StoreFiles(store.databaseURL)
        let files = StoreFiles(copy.file("datastore.sqlite"))
        for (from, to) in zip(original.urls, files.urls) where FileManager.default.fileExists(atPath: from.path) {
            try FileManager.default.copyItem(at: from, to: to)
        }
        let before = try files.snapshot()
        #expect(before.wal?.bytes.isEmpty == false)

        let inspection = try DeviceStoreInspection(fileAt: files.database, now: Self.now)

        #expect(try files.snapshot() == before, "the inspection wrote to the database or checkpointed its log")
        guard case .dataStore(let contents) = inspection.contents else {
            Issue.record("Not read as a DataStore database: \(inspection.contents)")
            return
        }
        #expect(contents.outbox.map(\.modelId) == ["b1", "b2", "b1", "b4", "p4", "b2"])
        #expect(contents.outbox.map(\.inFlight) == [true, true, false, false, false, false])
    }

    @Test func theTextViewListsTheOutboxInOrderWithInFlightMarksAndCutsRecords() async throws {
        let store = try TestStore()
        try await Self.populate(store)
        let inspection = try DeviceStoreInspection(fileAt: store.databaseURL, now: Self.now)
        let events = try await store.plugin.pendingMutations()
        let lines = inspection.text(recordWidth: 20).split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.first == "DataStore database \(store.databaseURL.path) (format 1)")
        let outbox = Array(lines.drop { !$0.hasPrefix("Outbox") }.prefix(4))
        #expect(
            outbox == [
                "Outbox: 6 pending mutations, sent in this order",
                "  1. create Blog b1, made \(events[0].createdAt.iso8601String), in flight",
                "     record: \(String(try JSON(parsing: events[0].json).text.prefix(19)))…",
                "  2. create Blog b2, made \(events[1].createdAt.iso8601String), in flight",
            ]
        )
        #expect(lines.contains("  Blog: 3 records, 1 deleted, 5 pending"))
        #expect(lines.contains("     condition: {\"name\":{\"eq\":\"Loca…"))
        #expect(lines.contains("  orphan Post p9, version 2, until Blog b9 arrives"))
    }

    @Test func aDatabaseOfANewerFormatIsRefusedNamingTheFix() async throws {
        let store = try TestStore()
        try await store.plugin.save(Blog(id: "b1", name: "Local b1"))
        try await store.engine.write { db in try SystemTables.setMetadataValue(db, "format", "2") }
        let error = #expect(throws: DeviceStoreInspectionError.self) {
            try DeviceStoreInspection(fileAt: store.databaseURL)
        }
        #expect(error?.code == .newerFormat)
        #expect(
            error?.message
                == "'\(store.databaseURL.path)' is a DataStore database of format 2, written by a newer DataStore; "
                + "this stratus reads format 1 and older. Update stratus to the version of the app's DataStore."
        )
    }

    @Test func aSQLiteDatabaseOfAnotherProgramIsRefusedNamingWhatItLacks() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("other.sqlite")
        let queue = try DatabaseQueue(path: url.path)
        try queue.write { db in
            try db.execute(sql: "PRAGMA application_id = 7; CREATE TABLE notes (id TEXT PRIMARY KEY)")
        }
        try queue.close()
        let error = #expect(throws: DeviceStoreInspectionError.self) { try DeviceStoreInspection(fileAt: url) }
        #expect(error?.code == .notAStore)
        #expect(
            error?.message
                == "'\(url.path)' is a SQLite database but not a DataStore database (its application_id is 0x7, "
                + "DataStore's is 0x53545241) nor an AppSync client's (it has none of the tables mutations, "
                + "optimistic_layers, records, sync_operations). Pass the path of a DataStore database or of an "
                + "AppSync client's offlineMutations.db, queries.db or subscriptionMetadataCache.db."
        )
    }

    @Test func theInspectionReadsTheLayoutDataStoreWrites() {
        #expect(DeviceStoreInspection.dataStoreFormat == SystemTables.format)
        #expect(Int32(bitPattern: DeviceStoreInspection.dataStoreApplicationID) == SystemTables.applicationID)
    }
}

/// A SQLite database with its write-ahead log and shared-memory index.
struct StoreFiles {
    let database: URL

    init(_ database: URL) { self.database = database }

    var wal: URL { URL(fileURLWithPath: database.path + "-wal") }
    var urls: [URL] { [database, wal, URL(fileURLWithPath: database.path + "-shm")] }

    /// A file's bytes and modification time.
    struct File: Equatable {
        let bytes: Data
        let modified: Date
    }

    /// The database and its log as they are now (the log is `nil` when absent). The
    /// shared-memory index is left out: readers record their marks there.
    func snapshot() throws -> (database: File, wal: File?) {
        func file(_ url: URL) throws -> File? {
            guard FileManager.default.fileExists(atPath: url.path) else { return nil }
            let attributes = try FileManager.default.attributesOfItem(atPath: url.path)
            return File(
                bytes: try Data(contentsOf: url),
                modified: try #require(attributes[.modificationDate] as? Date)
            )
        }
        return (try #require(try file(database)), try file(wal))
    }
}
