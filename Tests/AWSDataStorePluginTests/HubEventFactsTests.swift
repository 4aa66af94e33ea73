import AWSAPIPlugin
import AWSPluginsCore
import Amplify
import BlogModels
import Foundation
import GRDB
import StratusServer
import StratusTesting
import Synchronization
import Testing

@testable import AWSDataStorePlugin

/// Each Hub event whose payload states a fact is sent once the fact holds, never before: the
/// listeners here read the store as the event arrives, which is what an app acting on the
/// event sees.
@Suite struct HubEventFactsTests {
    /// The number of stored blogs, read as a listener is called.
    static func storedBlogs(_ plugin: AWSDataStorePlugin) -> Int {
        do {
            return try plugin.openStore().pool.read { db in try Int.fetchOne(db, sql: #"SELECT count(*) FROM "Blog""#) }
                ?? -1
        } catch {
            return -1
        }
    }

    @Test func syncEventsComeOnceTheirRecordsAreStored() async throws {
        let backend = try await SyncFixture.backend()
        defer { Task { await backend.stop() } }
        let api = try backend.makeAPIPlugin()
        _ = ModelRegistry.modelTypes(registeredBy: BlogRegistration())
        for index in 0..<3 {
            _ = try await api.mutate(request: .create(Blog(id: "b\(index)", name: "Blog \(index)"))).get()
        }
        let device = try SyncDevice(backend: backend)
        let seen = Recorder<String>()
        let plugin = device.plugin
        device.hub.listen(to: .dataStore) { payload in
            switch payload.eventName {
            case HubPayload.EventName.DataStore.modelSynced:
                guard let event = payload.data as? ModelSyncedEvent, event.modelName == "Blog" else { return }
                seen.append("modelSynced Blog added \(event.added), stored \(Self.storedBlogs(plugin))")
            case HubPayload.EventName.DataStore.syncQueriesReady, HubPayload.EventName.DataStore.ready:
                seen.append("\(payload.eventName), stored \(Self.storedBlogs(plugin))")
            default:
                break
            }
        }
        try await device.startAndWaitUntilReady()
        #expect(
            seen.values == [
                "modelSynced Blog added 3, stored 3",
                "\(HubPayload.EventName.DataStore.syncQueriesReady), stored 3",
                "\(HubPayload.EventName.DataStore.ready), stored 3",
            ]
        )
        try await device.plugin.stop()
    }

    @Test func modelSyncedCountsOnlyTheRecordsOfItsModel() async throws {
        let backend = try await SyncFixture.backend()
        defer { Task { await backend.stop() } }
        let api = try backend.makeAPIPlugin()
        _ = ModelRegistry.modelTypes(registeredBy: BlogRegistration())
        let blog = Blog(id: "b1", name: "Travels")
        _ = try await api.mutate(request: .create(blog)).get()
        _ = try await api.mutate(request: .create(BlogPost(id: "p1", title: "Lisbon", blog: blog, status: .draft)))
            .get()
        let posts = try await api.query(request: .syncQuery(modelSchema: BlogPost.schema, limit: 10)).get()
        let post = try #require(posts["items"]?.arrayValue?.first)

        // The post arrived before its blog (a subscription's order): it waits in the store.
        let store = try TestStore()
        let storage = try store.plugin.openStore()
        let kept = try await storage.reconcile([post], modelName: "Post")
        #expect(kept.applied.isEmpty)
        let engine = SyncEngine(
            storage: storage,
            api: api,
            hub: HubCategory(),
            configuration: DataStoreConfiguration(databaseURL: store.databaseURL)
        )
        // The blog's sync stores the blog, and with it the post that waited: one blog added.
        let synced = try await engine.syncModel("Blog")
        #expect(synced.added == 1)
        #expect(synced.updated == 0)
        #expect(synced.deleted == 0)
        #expect(try await store.plugin.query(BlogPost.self, byId: "p1")?.title == "Lisbon")
        await store.plugin.reset()
    }

    @Test func outboxMutationProcessedComesOnceTheAnswerIsSettled() async throws {
        let backend = try await SyncFixture.backend()
        defer { Task { await backend.stop() } }
        let device = try SyncDevice(backend: backend)
        let plugin = device.plugin
        let seen = Recorder<String>()
        device.hub.listen(to: .dataStore, eventName: HubPayload.EventName.DataStore.outboxMutationProcessed) {
            payload in
            guard let event = payload.data as? OutboxMutationEvent else { return }
            let id = event.element.model.identifier
            let state = try? plugin.openStore().pool.read { db in
                (
                    try Outbox.hasPending(RecordKey(modelName: "Blog", identifier: id), db),
                    try StorageEngine.storedVersion(RecordKey(modelName: "Blog", identifier: id), db)
                )
            }
            seen.append("\(id) v\(event.element.version ?? -1): pending \(state?.0 ?? true), stored v\(state?.1 ?? -1)")
        }
        try await device.startAndWaitUntilReady()
        try await plugin.save(Blog(id: "b1", name: "One"))
        try await device.waitUntil("b1 processed") { seen.count == 1 }
        #expect(seen.values == ["b1 v1: pending false, stored v1"])
        try await plugin.stop()
    }

    @Test func theNetworkIsNotSaidActiveBeforeTheBackendCanBeReachedAgain() async throws {
        let backend = try await SyncFixture.backend()
        defer { Task { await backend.stop() } }
        let proxy = try await FaultProxy.start(forwardingTo: backend.endpoint)
        defer { Task { await proxy.stop() } }
        let device = try SyncDevice(backend: backend, through: proxy)
        let resumed = Mutex(false)
        let statuses = Recorder<String>()
        device.hub.listen(to: .dataStore, eventName: HubPayload.EventName.DataStore.networkStatus) { payload in
            guard let event = payload.data as? NetworkStatusEvent else { return }
            statuses.append("\(event.active)\(resumed.withLock { $0 } ? "" : " while cut")")
        }
        try await device.startAndWaitUntilReady()
        let before = statuses.count
        proxy.blackHole()
        proxy.cutAllConnections()
        try await device.waitUntil("the network reported inactive") { statuses.count > before }
        resumed.withLock { $0 = true }
        proxy.resume()
        try await device.waitUntil("the network reported active again") { statuses.values.last == "true" }
        #expect(Array(statuses.values.dropFirst(before)) == ["false while cut", "true"])
        try await device.plugin.stop()
    }
}
