import AWSAPIPlugin
import AWSPluginsCore
import Amplify
import BlogModels
import Foundation
import StratusTesting
import Testing

@testable import AWSDataStorePlugin

/// The Hub's `syncProgress` after each page of a sync query, and `modelSynced` counts that
/// match the records synced.
@Suite struct SyncProgressTests {
    @Test func eachPageIsToldWithTheRecordsSoFarAndTheTotalAtTheEnd() async throws {
        let backend = try await SyncFixture.backend()
        defer { Task { await backend.stop() } }
        let api = try backend.makeAPIPlugin()
        _ = ModelRegistry.modelTypes(registeredBy: BlogRegistration())
        for index in 0..<7 {
            _ = try await api.mutate(request: .create(Blog(id: "b\(index)", name: "Blog \(index)"))).get()
        }
        let device = try SyncDevice(backend: backend) { $0.syncPageSize = 3 }
        let seen = Recorder<String>()
        let plugin = device.plugin
        device.hub.listen(to: .dataStore) { payload in
            if let progress = payload.data as? SyncProgressEvent, progress.modelName == "Blog" {
                seen.append(
                    "page \(progress.pages): fetched \(progress.fetched), applied \(progress.applied), total "
                        + "\(progress.total.map(String.init) ?? "unknown"), stored \(HubEventFactsTests.storedBlogs(plugin))"
                )
            } else if let synced = payload.data as? ModelSyncedEvent, synced.modelName == "Blog" {
                seen.append("synced: added \(synced.added), stored \(HubEventFactsTests.storedBlogs(plugin))")
            }
        }
        try await device.startAndWaitUntilReady()
        #expect(
            seen.values == [
                "page 1: fetched 3, applied 3, total unknown, stored 3",
                "page 2: fetched 6, applied 6, total unknown, stored 6",
                "page 3: fetched 7, applied 7, total 7, stored 7",
                "synced: added 7, stored 7",
            ]
        )
        let progress = device.events.values.compactMap { $0.data as? SyncProgressEvent }
        #expect(progress.filter { $0.modelName == "Blog" }.allSatisfy { !$0.isDeltaSync })
        #expect(try await plugin.query(Blog.self).count == 7)
        try await device.plugin.stop()
    }

    /// A delta sync brings every change since the last sync, a record changed twice twice
    /// (AppSync's delta table keeps each version), and applies them in order: `modelSynced`
    /// counts exactly those writes, as the model's observers hear of them, a record created
    /// and deleted meanwhile as one addition and one deletion.
    @Test func deltaSyncCountsEveryChangeItAppliedAsObserversHearIt() async throws {
        let backend = try await SyncFixture.backend()
        defer { Task { await backend.stop() } }
        let writer = try SyncDevice(backend: backend)
        try await writer.startAndWaitUntilReady()
        for index in 0..<4 { try await writer.plugin.save(Blog(id: "b\(index)", name: "Blog \(index)")) }
        try await writer.waitUntilOutboxIsEmpty()
        let reader = try SyncDevice(backend: backend) { $0.syncPageSize = 2 }
        try await reader.startAndWaitUntilReady()
        try await reader.plugin.stop()

        try await writer.plugin.save(Blog(id: "b0", name: "Renamed once"))
        try await writer.waitUntilOutboxIsEmpty()
        try await writer.plugin.save(Blog(id: "b0", name: "Renamed twice"))
        try await writer.plugin.delete(Blog.self, withId: "b1")
        try await writer.plugin.save(Blog(id: "b4", name: "Blog 4"))
        try await writer.plugin.save(Blog(id: "b5", name: "Blog 5"))
        try await writer.waitUntilOutboxIsEmpty()
        try await writer.plugin.delete(Blog.self, withId: "b5")
        try await writer.plugin.save(Blog(id: "b6", name: "Blog 6"))
        try await writer.waitUntilOutboxIsEmpty()
        try await writer.plugin.save(Blog(id: "b6", name: "Blog 6, edited"))
        try await writer.waitUntilOutboxIsEmpty()

        let restarted = try SyncDevice(backend: backend, directory: reader.directory) { $0.syncPageSize = 2 }
        let heard = Recorder<String>()
        let observation = Task {
            for try await event in restarted.plugin.observe(Blog.self) {
                heard.append("\(event.mutationType) \(event.modelId)")
            }
        }
        defer { observation.cancel() }
        try await restarted.startAndWaitUntilReady()
        try await restarted.waitUntil("the observer told of the 8 changes") { heard.count == 8 }
        // Each record's changes in order; records written at once may come in any order.
        let byRecord = Dictionary(grouping: heard.values, by: { $0.split(separator: " ")[1] })
            .mapValues { $0.map { $0.split(separator: " ")[0] }.joined(separator: ", ") }
        #expect(
            byRecord == [
                "b0": "update, update", "b1": "delete", "b4": "create", "b5": "create, delete",
                "b6": "create, update",
            ]
        )
        let events = restarted.events.values
        let delta = try #require(events.compactMap { $0.data as? ModelSyncedEvent }.first { $0.modelName == "Blog" })
        #expect(delta.isDeltaSync && !delta.isFullSync)
        #expect(
            "added \(delta.added), updated \(delta.updated), deleted \(delta.deleted)"
                == "added 3, updated 3, deleted 2"
        )
        let progress = events.compactMap { $0.data as? SyncProgressEvent }.filter { $0.modelName == "Blog" }
        #expect(
            progress.map { "\($0.pages): \($0.fetched)/\($0.applied)" } == ["1: 2/2", "2: 4/4", "3: 6/6", "4: 8/8"]
        )
        #expect(
            try await restarted.plugin.query(Blog.self).map { "\($0.id) \($0.name)" }.sorted() == [
                "b0 Renamed twice", "b2 Blog 2", "b3 Blog 3", "b4 Blog 4", "b6 Blog 6, edited",
            ]
        )
        #expect(restarted.errors.values.isEmpty, "\(restarted.diagnostics)")
        try await writer.plugin.stop()
        try await restarted.plugin.stop()
    }
}
