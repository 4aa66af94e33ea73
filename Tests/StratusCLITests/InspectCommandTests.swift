import AWSDataStorePlugin
import Amplify
import BlogModels
import Foundation
import StratusServer
import Testing

/// `stratus inspect <database>`: what a device's store holds, read while the app has it open.
@Suite struct InspectCommandTests {
    @Test func theTextViewOfADataStoreTheAppHasOpen() async throws {
        let directory = try TemporaryDirectory()
        let database = directory.url.appending(path: "datastore.sqlite")
        let plugin = AWSDataStorePlugin(
            modelRegistration: AmplifyModels(),
            configuration: DataStoreConfiguration(databaseURL: database)
        )
        try await plugin.save(Blog(id: "b1", name: "First"))
        try await plugin.save(Blog(id: "b2", name: "Second \(String(repeating: "long ", count: 30))"))
        let events = try await plugin.pendingMutations()
        guard case .dataStore(let store) = try DeviceStoreInspection(fileAt: database).contents else {
            Issue.record("Not read as a DataStore database")
            return
        }

        let process = try await StratusProcess(["inspect", database.path, "--record-width", "40"], in: directory.url)
        #expect(try await process.exitStatus() == 0, "stratus failed: \(process.standardError)")
        let empty = ["Album", "Attachment", "Author"].map { "  \($0): 0 records, 0 deleted, 0 pending" }
        let emptyAfter = ["BlogSettings", "Comment", "Photo", "Post", "PostTags", "Tag"].map {
            "  \($0): 0 records, 0 deleted, 0 pending"
        }
        let neverSynced =
            ["Album", "Attachment", "Author", "Blog", "BlogSettings", "Comment", "Photo", "Post"]
            + ["PostTags", "Tag"]
        let record = try JSON(parsing: events[1].json).text
        let lines =
            [
                "DataStore database \(database.path) (format 1)",
                "Created \(try #require(store.createdAt))",
                "Models version \(try #require(store.modelsVersion))",
                "",
                "Models",
            ] + empty + ["  Blog: 2 records, 0 deleted, 2 pending"] + emptyAfter + [
                "",
                "Outbox: 2 pending mutations, sent in this order",
                "  1. create Blog b1, made \(events[0].createdAt.iso8601String)",
                "     record: \(try JSON(parsing: events[0].json).text.prefix(39))…",
                "  2. create Blog b2, made \(events[1].createdAt.iso8601String)",
                "     record: \(record.prefix(39))…",
                "",
                "Sync",
            ] + neverSynced.map { "  \($0): never synced; next: base sync (never synced)" }
        #expect(process.standardOutput == lines.joined(separator: "\n") + "\n")
    }

    @Test func jsonIsPrintedWithItsFormat() async throws {
        let directory = try TemporaryDirectory()
        let database = directory.url.appending(path: "datastore.sqlite")
        let plugin = AWSDataStorePlugin(
            modelRegistration: AmplifyModels(),
            configuration: DataStoreConfiguration(databaseURL: database)
        )
        try await plugin.save(Blog(id: "b1", name: "First"))
        let process = try await StratusProcess(["inspect", database.path, "--json"], in: directory.url)
        #expect(try await process.exitStatus() == 0, "stratus failed: \(process.standardError)")
        let printed = try JSON(parsing: process.standardOutput)
        #expect(printed["inspectionFormat"] == 1)
        #expect(printed["kind"] == "dataStore")
        #expect(printed["dataStore"]?["outbox"]?[0]?["modelId"] == "b1")
        #expect(printed == (try DeviceStoreInspection(fileAt: database)).json)
    }

    @Test(arguments: [
        (
            "missing.sqlite",
            nil as String?,
            "No file at '<path>'. Pass the path of a DataStore database (the databaseURL of its DataStoreConfiguration) "
                + "or of an AppSync client's database (offlineMutations.db, queries.db or subscriptionMetadataCache.db "
                + "in its cache directory)."
        ),
        (
            "notes.txt",
            "not a database",
            "'<path>' is not a SQLite database, so not a DataStore or AppSync client database. Pass the path of a "
                + "DataStore database or of an AppSync client's offlineMutations.db, queries.db or "
                + "subscriptionMetadataCache.db."
        ),
        (
            "empty.sqlite",
            "",
            "'<path>' is empty: it is not a DataStore or AppSync client database yet (DataStore creates its database "
                + "in an empty file when it starts). Start the app once, or pass another file."
        ),
    ])
    func aFileThatIsNotAStoreIsRefusedNamingTheProblem(name: String, contents: String?, message: String) async throws {
        let directory = try TemporaryDirectory()
        if let contents { try directory.write(contents, to: name) }
        let path = directory.path(name)
        let process = try await StratusProcess(["inspect", path], in: directory.url)
        #expect(try await process.exitStatus() == 1)
        #expect(process.standardOutput == "")
        #expect(process.standardError == "Error: \(message.replacingOccurrences(of: "<path>", with: path))\n")
    }
}
