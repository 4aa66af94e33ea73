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
}
