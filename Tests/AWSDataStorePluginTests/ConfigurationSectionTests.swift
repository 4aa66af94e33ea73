import AWSAPIPlugin
import Amplify
import BlogModels
import Foundation
import StratusTesting
import Testing

@testable import AWSDataStorePlugin

/// The plugin's section of the configuration file (`dataStore.plugins.awsDataStorePlugin`) sets
/// the sync settings the code leaves at their defaults, and a section it cannot apply is an
/// error that names the problem.
@Suite struct ConfigurationSectionTests {
    @Test func theSectionSetsWhatTheCodeLeavesAtItsDefault() throws {
        let store = try TestStore()
        try store.plugin.configure(
            using: .object([
                "syncIntervalInMinutes": .integer(60), "syncMaxRecords": .integer(50_000),
                "syncPageSize": .integer(500),
            ])
        )
        #expect(store.plugin.configuration.syncInterval == 3_600)
        #expect(store.plugin.configuration.syncMaxRecords == 50_000)
        #expect(store.plugin.configuration.syncPageSize == 500)
        #expect(store.logs.messages.isEmpty)
    }

    @Test func aValueSetInCodeWinsAndTheLogSaysSo() throws {
        let directory = try TemporaryDirectory()
        let logs = LogRecorder()
        var configuration = DataStoreConfiguration.custom(syncPageSize: 200, databaseURL: directory.file("db.sqlite"))
        configuration.log = logs.handler
        let plugin = AWSDataStorePlugin(modelRegistration: BlogRegistration(), configuration: configuration)
        try plugin.configure(using: .object(["syncPageSize": .integer(500), "syncMaxRecords": .integer(20)]))
        #expect(plugin.configuration.syncPageSize == 200)
        #expect(plugin.configuration.syncMaxRecords == 20)
        #expect(
            logs.messages == [
                "The configuration file sets syncPageSize to 500, and the code's DataStoreConfiguration to 200; "
                    + "the code's value applies."
            ]
        )
    }

    @Test func anEmptyOrMissingSectionChangesNothing() throws {
        let store = try TestStore()
        try store.plugin.configure(using: .object([:]))
        try store.plugin.configure(using: nil)
        #expect(store.plugin.configuration.syncPageSize == 1_000)
        #expect(store.plugin.configuration.syncMaxRecords == 10_000)
        #expect(store.plugin.configuration.syncInterval == 86_400)
    }

    @Test func aSectionItCannotApplyIsAnError() throws {
        let store = try TestStore()
        let unknown = #expect(throws: DataStoreError.self) {
            try store.plugin.configure(using: .object(["maxRecordsToSync": .integer(5)]))
        }
        #expect(unknown?.code == .configuration)
        #expect(
            unknown?.message
                == "The DataStore section of the configuration (awsDataStorePlugin) sets 'maxRecordsToSync', which it "
                + "does not know. It may set syncIntervalInMinutes, syncMaxRecords, syncPageSize; set the others in "
                + "the DataStoreConfiguration given to AWSDataStorePlugin."
        )
        let wrong = #expect(throws: DataStoreError.self) {
            try store.plugin.configure(using: .object(["syncPageSize": .string("500")]))
        }
        #expect(
            wrong?.message
                == "The DataStore section of the configuration (awsDataStorePlugin) sets 'syncPageSize' to \"500\". "
                + "Give it a positive integer."
        )
        let notObject = #expect(throws: DataStoreError.self) {
            try store.plugin.configure(using: .array([]))
        }
        #expect(
            notObject?.message
                == "The DataStore section of the configuration (awsDataStorePlugin) is [], not an object. "
                + "Give it an object such as {\"syncPageSize\": 500}, or {}."
        )
    }

    @Test func theSectionsLimitsDriveTheSync() async throws {
        let backend = try await SyncFixture.backend()
        defer { Task { await backend.stop() } }
        let api = try backend.makeAPIPlugin()
        for name in ["one", "two", "three"] {
            _ = try await api.mutate(request: .create(Blog(id: name, name: name))).get()
        }
        let device = try SyncDevice(backend: backend)
        try device.plugin.configure(using: .object(["syncMaxRecords": .integer(2), "syncPageSize": .integer(1)]))
        try await device.startAndWaitUntilReady()
        #expect(try await device.plugin.query(Blog.self).count == 2)
        try await device.plugin.stop()
    }
}
