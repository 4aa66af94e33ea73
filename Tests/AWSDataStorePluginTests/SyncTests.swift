import AWSAPIPlugin
import Amplify
import BlogModels
import Foundation
import GRDB
import StratusServer
import StratusTesting
import Synchronization
import Testing

@testable import AWSDataStorePlugin

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// DataStore syncing with the local backend: devices with their own databases converge, the
/// Hub tells what happens, the outbox survives an unreachable backend, conflicts reach the
/// handler.
@Suite struct SyncTests {
    @Test func twoDevicesConvergeThroughTheBackend() async throws {
        let backend = try await SyncFixture.backend()
        defer { Task { await backend.stop() } }
        let first = try SyncDevice(backend: backend)
        let second = try SyncDevice(backend: backend)
        try await first.startAndWaitUntilReady()
        try await second.startAndWaitUntilReady()

        let blog = Blog(id: "b1", name: "Travels")
        try await first.plugin.save(blog)
        try await first.plugin.save(BlogPost(id: "p1", title: "Lisbon", blog: blog, status: .draft))
        try await first.plugin.save(
            BlogComment(
                id: "c1",
                content: "Nice",
                post: BlogPost(id: "p1", title: "Lisbon", blog: blog, status: .draft)
            )
        )
        try await first.waitUntilOutboxIsEmpty()
        try await second.waitUntil("the post on the second device") {
            try await second.plugin.query(BlogPost.self, byId: "p1")?.title == "Lisbon"
        }
        #expect(try await second.plugin.query(Blog.self, byId: "b1")?.name == "Travels")

        // An update and a delete made on the second device reach the first.
        var post = try #require(try await second.plugin.query(BlogPost.self, byId: "p1"))
        post.title = "Porto"
        try await second.plugin.save(post)
        try await first.waitUntil("the update on the first device") {
            try await first.plugin.query(BlogPost.self, byId: "p1")?.title == "Porto"
        }
        try await second.plugin.delete(Blog.self, withId: "b1")
        try await second.waitUntilOutboxIsEmpty()
        try await first.waitUntil("the deletion on the first device") {
            try await first.plugin.query(Blog.self, byId: "b1") == nil
        }
        #expect(first.errors.values.isEmpty)
        #expect(second.errors.values.isEmpty)
        try await first.plugin.stop()
        try await second.plugin.stop()
    }

    @Test func theOutboxSendsAsManyChangesAtOnceAsItsConcurrency() async throws {
        let backend = try await SyncFixture.backend()
        defer { Task { await backend.stop() } }
        let gauge = MutationGauge()
        let device = try SyncDevice(backend: backend, interceptor: gauge) { $0.outboxConcurrency = 3 }
        try await device.startAndWaitUntilReady()
        for index in 0..<12 { try await device.plugin.save(Blog(id: "b\(index)", name: "Blog \(index)")) }
        try await device.waitUntilOutboxIsEmpty()
        #expect(gauge.peak == 3)
        #expect(gauge.count == 12)
    }

    /// A change made elsewhere that reaches the device while the device's own change to the
    /// same record is in flight waits for that change's answer, and wins over it when newer.
    @Test func aNewerRecordArrivingWhileAChangeIsInFlightIsAppliedAfterItsAnswer() async throws {
        let backend = try await SyncFixture.backend()
        defer { Task { await backend.stop() } }
        let elsewhere = WriteElsewhereFirst(backend: backend)
        let device = try SyncDevice(backend: backend, interceptor: elsewhere)
        try await device.startAndWaitUntilReady()
        try await device.plugin.save(Blog(id: "b1", name: "Here"))
        try await device.waitUntilOutboxIsEmpty()
        // The answer (version 1, "Here") is settled first; the record written elsewhere
        // (version 2) must then replace it.
        try await device.waitUntil("the record written elsewhere on the device") {
            try await device.plugin.query(Blog.self, byId: "b1")?.name == "Elsewhere"
        }
        #expect(elsewhere.wrote)
        #expect(device.errors.values.isEmpty, "\(device.diagnostics)")
        try await device.plugin.stop()
    }

    @Test func startSendsTheHubEventsInOrder() async throws {
        let backend = try await SyncFixture.backend()
        defer { Task { await backend.stop() } }
        let device = try SyncDevice(backend: backend)
        try await device.startAndWaitUntilReady()
        // On a loaded machine a subscription may time out before its first connection: the Hub
        // then says the network is down before it says it is up. Past that, the order is exact.
        var payloads = device.events.values.filter { $0.eventName != HubPayload.EventName.DataStore.outboxStatus }
        let firstUp = payloads.firstIndex { ($0.data as? NetworkStatusEvent)?.active == true } ?? 0
        payloads = Array(payloads[firstUp...])
        let names = payloads.map(\.eventName)
        let models = SyncEngine.syncOrder(try device.plugin.openEngine().catalog)
        let perModel = [HubPayload.EventName.DataStore.syncProgress, HubPayload.EventName.DataStore.modelSynced]
        var expected = [
            HubPayload.EventName.DataStore.networkStatus,
            HubPayload.EventName.DataStore.subscriptionsEstablished,
            HubPayload.EventName.DataStore.syncQueriesStarted,
        ]
        for _ in models { expected += perModel }
        expected += [HubPayload.EventName.DataStore.syncQueriesReady, HubPayload.EventName.DataStore.ready]
        #expect(names == expected)
        #expect((payloads[0].data as? NetworkStatusEvent)?.active == true)
        #expect((payloads[2].data as? SyncQueriesStartedEvent)?.models == models)
        let synced = payloads.compactMap { $0.data as? ModelSyncedEvent }
        #expect(synced.map(\.modelName) == models)
        #expect(synced.allSatisfy { $0.isFullSync && !$0.isDeltaSync })
        // Parents sync before their children.
        #expect(models.firstIndex(of: "Blog")! < models.firstIndex(of: "Post")!)
        #expect(models.firstIndex(of: "Post")! < models.firstIndex(of: "Comment")!)
        // Comment has no subscriptions (`@model(subscriptions: null)`): sync goes on without them.
        #expect(device.errors.values.isEmpty)
        #expect(device.logs.messages.filter { $0.contains("without one subscription") }.count == 3)
        #expect(
            device.logs.messages.contains { $0.contains("Field 'onCreateComment' in type 'Subscription' is undefined") }
        )
        try await device.plugin.stop()
    }

    @Test func aRestartSyncsOnlyWhatChangedAndCountsIt() async throws {
        let backend = try await SyncFixture.backend()
        defer { Task { await backend.stop() } }
        let writer = try SyncDevice(backend: backend)
        try await writer.startAndWaitUntilReady()
        for index in 0..<3 { try await writer.plugin.save(Blog(id: "b\(index)", name: "Blog \(index)")) }
        try await writer.waitUntilOutboxIsEmpty()

        let reader = try SyncDevice(backend: backend)
        try await reader.startAndWaitUntilReady()
        let first = try #require(
            reader.events.values.compactMap { $0.data as? ModelSyncedEvent }.first { $0.modelName == "Blog" }
        )
        #expect(first.isFullSync && first.added == 3)
        try await reader.plugin.stop()

        // Changes made while the reader is stopped arrive with a delta sync.
        try await writer.plugin.save(Blog(id: "b1", name: "Renamed"))
        try await writer.plugin.delete(Blog.self, withId: "b2")
        try await writer.waitUntilOutboxIsEmpty()
        let restarted = try SyncDevice(backend: backend, directory: reader.directory)
        try await restarted.startAndWaitUntilReady()
        let delta = try #require(
            restarted.events.values.compactMap { $0.data as? ModelSyncedEvent }.first { $0.modelName == "Blog" }
        )
        #expect(delta.isDeltaSync && !delta.isFullSync)
        #expect(delta.added == 0 && delta.updated == 1 && delta.deleted == 1)
        #expect(try await restarted.plugin.query(Blog.self).map(\.name).sorted() == ["Blog 0", "Renamed"])
        try await writer.plugin.stop()
        try await restarted.plugin.stop()
    }

    /// The device's clock decides only which sync runs: 48 hours ahead, the last sync looks
    /// older than the sync interval and a base sync reads everything again; 48 hours behind, a
    /// delta sync reads what changed. Either way the device holds what the backend holds.
    @Test func aDeviceClockThatIsOffChangesOnlyWhichSyncRuns() async throws {
        let backend = try await SyncFixture.backend()
        defer { Task { await backend.stop() } }
        let writer = try SyncDevice(backend: backend)
        try await writer.startAndWaitUntilReady()
        try await writer.plugin.save(Blog(id: "b0", name: "Blog 0"))
        try await writer.waitUntilOutboxIsEmpty()
        let reader = try SyncDevice(backend: backend)
        try await reader.startAndWaitUntilReady()
        try await reader.plugin.stop()

        var synced: [ModelSyncedEvent] = []
        for (index, offset) in [48.0 * 3600, -48.0 * 3600].enumerated() {
            try await writer.plugin.save(Blog(id: "b0", name: "Renamed \(index)"))
            try await writer.waitUntilOutboxIsEmpty()
            let skewed = try SyncDevice(backend: backend, directory: reader.directory) { configuration in
                configuration.clock = { Date().addingTimeInterval(offset) }
            }
            try await skewed.startAndWaitUntilReady()
            synced.append(
                try #require(
                    skewed.events.values.compactMap { $0.data as? ModelSyncedEvent }.first { $0.modelName == "Blog" }
                )
            )
            #expect(try await skewed.plugin.query(Blog.self).map(\.name) == ["Renamed \(index)"])
            try await skewed.plugin.stop()
        }
        try await writer.plugin.stop()
        #expect(synced.map(\.isFullSync) == [true, false])
        #expect(synced.map(\.isDeltaSync) == [false, true])
    }

    @Test func savesMadeWhileTheBackendIsDownReachItWhenItIsBack() async throws {
        let backend = try await SyncFixture.backend()
        defer { Task { await backend.stop() } }
        let device = try SyncDevice(backend: backend)
        try await device.startAndWaitUntilReady()
        await backend.kill()
        try await waitUntil("the network reported inactive") {
            device.events.values.contains { ($0.data as? NetworkStatusEvent)?.active == false }
        }
        // Local calls neither fail nor wait while the backend is down.
        let clock = ContinuousClock()
        let elapsed = try await clock.measure {
            for index in 0..<5 { try await device.plugin.save(Blog(id: "offline\(index)", name: "Offline \(index)")) }
        }
        // Well under a request's timeout, with room for a loaded machine.
        #expect(elapsed < .seconds(10))
        #expect(try await device.plugin.pendingMutations().count == 5)

        try await backend.restart()
        try await device.waitUntilOutboxIsEmpty()
        let api = try backend.makeAPIPlugin()
        let listed = try await api.query(request: .list(Blog.self)).get()
        #expect(listed.map(\.id).sorted() == (0..<5).map { "offline\($0)" })
        let statuses = device.events.values.compactMap { ($0.data as? NetworkStatusEvent)?.active }
        // Up, down while killed, up again (a loaded machine may add a false start).
        let up = try #require(statuses.firstIndex(of: true))
        #expect(Array(statuses[up...]).prefix(3) == [true, false, true])
        try await device.plugin.stop()
    }

    @Test func aConflictReachesTheHandlerAndRetryLocalWins() async throws {
        let backend = try await SyncFixture.backend(ServerConfiguration(conflictResolution: .optimisticConcurrency))
        defer { Task { await backend.stop() } }
        let conflicts = Recorder<String>()
        let device = try SyncDevice(backend: backend) { configuration in
            configuration.conflictHandler = { data, resolve in
                conflicts.append("\((data.local as? Blog)?.name ?? "?") vs \((data.remote as? Blog)?.name ?? "?")")
                resolve(.retryLocal)
            }
        }
        try await device.startAndWaitUntilReady()
        try await device.plugin.save(Blog(id: "b1", name: "Original"))
        try await device.waitUntilOutboxIsEmpty()
        try await device.plugin.stop()

        // Another client updates the blog while this device is stopped.
        let api = try backend.makeAPIPlugin()
        _ = try await api.mutate(request: .update(Blog(id: "b1", name: "Theirs"), version: 1)).get()

        // The local change is based on version 1: the backend refuses it, the handler retries.
        try await device.plugin.save(Blog(id: "b1", name: "Mine"))
        try await device.waitUntilOutboxIsEmpty()
        #expect(conflicts.values == ["Mine vs Theirs"])
        let stored = try await api.query(request: .get(Blog.self, byId: "b1")).get()
        #expect(stored?.name == "Mine")
        try await waitUntil("the local record") { try await device.plugin.query(Blog.self, byId: "b1")?.name == "Mine" }
        try await device.plugin.stop()
    }

    /// Saves blog `b1` and a post `p1` whose email the backend refuses (AWSEmail is checked by
    /// the backend only), and waits until the refused post left the device.
    static func saveARefusedPost(on device: SyncDevice) async throws {
        try await device.plugin.save(Blog(id: "b1", name: "Blog"))
        try await device.plugin.save(
            BlogPost(
                id: "p1",
                title: "Bad",
                blog: Blog(id: "b1", name: "Blog"),
                status: .draft,
                contactEmail: "not an email"
            )
        )
        try await device.waitUntilOutboxIsEmpty()
        try await waitUntil("the refused post removed") {
            try await device.plugin.query(BlogPost.self, byId: "p1") == nil
        }
    }

    @Test func aChangeTheBackendRefusesIsUndoneAndReported() async throws {
        let backend = try await SyncFixture.backend()
        defer { Task { await backend.stop() } }
        let device = try SyncDevice(backend: backend)
        try await device.startAndWaitUntilReady()
        try await Self.saveARefusedPost(on: device)
        #expect(try await device.plugin.query(Blog.self, byId: "b1") != nil)
        #expect(device.eventNames.contains(HubPayload.EventName.DataStore.outboxMutationFailed))
        let refusal = try #require(
            device.errors.values.first { $0.message.contains("refused the create of Post 'p1'") }
        )
        #expect(refusal.code == .sync)
        try await device.plugin.stop()
    }

    /// Sends the first `failures` reads of a post to `stalled`, a backend whose store fails
    /// them (`InternalFailure`), with its API key; everything else goes on as it was.
    final class StalledReads: URLRequestInterceptor {
        let stalled: LocalBackend
        let failures: Int
        private let sent = Mutex(0)

        init(to stalled: LocalBackend, failures: Int) {
            self.stalled = stalled
            self.failures = failures
        }

        var redirected: Int { sent.withLock { $0 } }

        func intercept(_ request: URLRequest) async throws -> URLRequest {
            let body = String(decoding: request.httpBody ?? Data(), as: UTF8.self)
            guard body.contains("getPost("),
                sent.withLock({ count in
                    guard count < failures else { return false }
                    count += 1
                    return true
                })
            else { return request }
            var redirected = request
            redirected.url = stalled.endpoint
            redirected.setValue(stalled.apiKey, forHTTPHeaderField: "x-api-key")
            return redirected
        }
    }

    /// The backend refuses a change, and the read of its record that undoes the change fails
    /// on the backend's side (its store failing, as while it restarts: `InternalFailure`): the
    /// read is asked again, and the refused record leaves the device. Taking the failure as the
    /// answer kept the refused record on the device for good.
    @Test func aRefusedChangesUndoReadsAgainWhenTheBackendFailsTheRead() async throws {
        let backend = try await SyncFixture.backend()
        defer { Task { await backend.stop() } }
        // A backend whose posts' table is gone: its store fails every read of a post.
        let stalled = try await SyncFixture.backend()
        defer { Task { await stalled.stop() } }
        let database = try DatabaseQueue(path: stalled.dataDirectory.appending(path: "stratus.sqlite").path)
        try await database.write { try $0.execute(sql: #"DROP TABLE "Post""#) }
        try database.close()
        let reads = StalledReads(to: stalled, failures: 2)
        let device = try SyncDevice(backend: backend, interceptor: reads)
        try await device.startAndWaitUntilReady()
        try await Self.saveARefusedPost(on: device)
        #expect(reads.redirected == 2)
        #expect(!device.errors.values.contains { $0.message.contains("could not read the backend's") })
        try await device.plugin.stop()
    }

    @Test func pendingChangesToOneRecordMergeUntilSent() async throws {
        let store = try TestStore()
        let blog = Fixtures.blog()
        try await store.plugin.save(blog)
        var renamed = blog
        renamed.name = "Renamed"
        try await store.plugin.save(renamed)
        var events = try await store.plugin.pendingMutations()
        #expect(events.map(\.mutationType) == ["create"])
        #expect(events.first?.json.contains("Renamed") == true)

        try await store.plugin.save(Fixtures.blog("b2"))
        try await store.plugin.delete(Blog.self, withId: "b2")
        events = try await store.plugin.pendingMutations()
        #expect(events.map(\.modelId) == ["b1"])

        // Once an event was sent, later changes queue behind it instead of merging.
        let engine = try store.engine
        _ = try await engine.beginSending(events)
        renamed.name = "Again"
        try await store.plugin.save(renamed)
        try await store.plugin.save(renamed, where: Blog.keys.name == "Again")
        events = try await store.plugin.pendingMutations()
        #expect(events.map(\.mutationType) == ["create", "update", "update"])
    }

    /// A record whose create and delete the outbox dropped unsent leaves no tombstone: the
    /// backend never had it. One the backend had (a version), or whose create left, keeps its.
    @Test func aCreateAndDeleteNeverSentLeaveNoTombstone() async throws {
        let store = try TestStore()
        let engine = try store.engine
        try await store.plugin.save(Fixtures.blog("unsent"))
        try await store.plugin.save(Fixtures.blog("known"))
        try await engine.pool.write { db in
            try StorageEngine.raiseVersion(RecordKey(modelName: "Blog", identifier: "known"), to: 4, db)
        }
        try await store.plugin.save(Fixtures.blog("sent"))
        let sent = try await store.plugin.pendingMutations().filter { $0.modelId == "sent" }
        _ = try await engine.beginSending(sent)
        for id in ["unsent", "known", "sent"] { try await store.plugin.delete(Blog.self, withId: id) }
        let metadata = try await engine.pool.read { db in
            try Row.fetchAll(db, sql: #"SELECT "id", "version", "deleted" FROM "_stratus_sync_metadata" ORDER BY "id""#)
                .map { "\($0[0] as String) \(($0[1] as Int?).map(String.init) ?? "nil") \($0[2] as Int)" }
        }
        #expect(metadata == ["Blog|known 4 1", "Blog|sent nil 1"])
        let pending = try await store.plugin.pendingMutations().map { "\($0.mutationType) \($0.modelId)" }
        #expect(pending == ["create sent", "delete sent"])
    }

    @Test func multiAuthTriesEachModelsRulesInTurn() async throws {
        // The fixture's own rules: Blog is readable with the API key only (public), Post with
        // IAM only (private, iam), BlogSettings by its owner only (user pools, not configured).
        let schema = try String(contentsOf: SyncFixture.fixtures.appending(path: "blog.graphql"), encoding: .utf8)
        let backend = try await LocalBackend.start(schema: schema)
        defer { Task { await backend.stop() } }

        let multi = try SyncDevice(backend: backend) { $0.authModeStrategy = .multiAuth }
        try await multi.startAndWaitUntilReady()
        let synced = Set(multi.events.values.compactMap { ($0.data as? ModelSyncedEvent)?.modelName })
        #expect(synced.isSuperset(of: ["Blog", "Post", "Comment"]))
        #expect(!synced.contains("BlogSettings"))
        #expect(multi.errors.values.count == 1)
        #expect(multi.errors.values.first?.message.contains("refused the sync query of BlogSettings") == true)

        // With the API key alone, Post's sync query is refused too.
        let single = try SyncDevice(backend: backend)
        try await single.startAndWaitUntilReady()
        let refused = single.errors.values.map(\.message).filter { $0.contains("refused the sync query") }
        #expect(refused.contains { $0.contains("sync query of Post") })
        try await multi.plugin.stop()
        try await single.plugin.stop()
    }

    @Test func selectiveSyncAndTheChoiceBetweenBaseAndDelta() async throws {
        let backend = try await SyncFixture.backend()
        defer { Task { await backend.stop() } }
        let api = try backend.makeAPIPlugin()
        for name in ["keep one", "keep two", "skip three"] {
            _ = try await api.mutate(request: .create(Blog(id: name, name: name))).get()
        }
        let directory = try TemporaryDirectory()
        func blogSynced(_ device: SyncDevice) throws -> ModelSyncedEvent {
            try #require(
                device.events.values.compactMap { $0.data as? ModelSyncedEvent }.first { $0.modelName == "Blog" }
            )
        }

        // Only the records matching the sync expression come.
        let selective = try SyncDevice(backend: backend, directory: directory) { configuration in
            configuration.syncExpressions = [.syncExpression(Blog.schema, where: { Blog.keys.name.beginsWith("keep") })]
        }
        try await selective.startAndWaitUntilReady()
        #expect(try await selective.plugin.query(Blog.self).map(\.id).sorted() == ["keep one", "keep two"])
        #expect(try blogSynced(selective).isFullSync)
        // Records written elsewhere arrive through the subscriptions only when they match.
        _ = try await api.mutate(request: .create(Blog(id: "skip four", name: "skip four"))).get()
        _ = try await api.mutate(request: .create(Blog(id: "keep five", name: "keep five"))).get()
        try await waitUntil("the matching record received") {
            try await selective.plugin.query(Blog.self, byId: "keep five") != nil
        }
        #expect(
            try await selective.plugin.query(Blog.self).map(\.id).sorted() == ["keep five", "keep one", "keep two"]
        )
        try await selective.plugin.stop()

        // Another expression: a base sync again, even within the interval.
        let everything = try SyncDevice(backend: backend, directory: directory)
        try await everything.startAndWaitUntilReady()
        #expect(try blogSynced(everything).isFullSync)
        #expect(try await everything.plugin.query(Blog.self).count == 5)
        try await everything.plugin.stop()

        // The same expression within the interval: a delta sync; past the interval: a base sync.
        let again = try SyncDevice(backend: backend, directory: directory)
        try await again.startAndWaitUntilReady()
        #expect(try blogSynced(again).isDeltaSync)
        try await again.plugin.stop()
        let expired = try SyncDevice(backend: backend, directory: directory) { $0.syncInterval = 0 }
        try await expired.startAndWaitUntilReady()
        #expect(try blogSynced(expired).isFullSync)
        try await expired.plugin.stop()
    }

    @Test func aSchemaChangeKeepsTheOutboxAndSyncsAgain() async throws {
        let backend = try await SyncFixture.backend()
        defer { Task { await backend.stop() } }
        let directory = try TemporaryDirectory()
        let device = try SyncDevice(backend: backend, directory: directory)
        try await device.startAndWaitUntilReady()
        try await device.plugin.stop()
        // A change saved while stopped, then the app comes back with another model version.
        let offline = TestStore.makePlugin(
            BlogRegistration(),
            at: directory.file("datastore.sqlite"),
            logs: LogRecorder()
        )
        try await offline.save(Blog(id: "pending", name: "Saved before the upgrade"))
        try await offline.stop()
        let upgraded = AWSDataStorePlugin(
            modelRegistration: VersionedRegistration(version: "next"),
            configuration: DataStoreConfiguration(databaseURL: directory.file("datastore.sqlite")),
            api: try backend.makeAPIPlugin(),
            hub: HubCategory()
        )
        try await upgraded.start()
        try await waitUntil("the pending change sent") { try await upgraded.pendingMutations().isEmpty }
        let stored = try await backend.makeAPIPlugin().query(request: .get(Blog.self, byId: "pending")).get()
        #expect(stored?.name == "Saved before the upgrade")
        try await upgraded.stop()
    }
}

/// The blog fixture's models under another registry version, as after a schema change.
struct VersionedRegistration: AmplifyModelRegistration {
    let version: String

    func registerModels(registry: ModelRegistry.Type) {
        BlogRegistration().registerModels(registry: registry)
    }
}

/// Before the device's first create is sent, sends it itself (the backend applies it and keeps
/// its answer under the request's `Idempotency-Key`), then updates the record as another writer
/// would (``LocalBackend/bumpVersion(model:id:setting:as:)``), and waits for that update to reach the device's subscription. The device's request
/// then gets the kept answer: an older version of the record than the update.
final class WriteElsewhereFirst: URLRequestInterceptor {
    let backend: LocalBackend
    private let done = Mutex(false)

    init(backend: LocalBackend) { self.backend = backend }

    /// Whether the update was written.
    var wrote: Bool { done.withLock { $0 } }

    func intercept(_ request: URLRequest) async throws -> URLRequest {
        guard let body = request.httpBody, String(decoding: body, as: UTF8.self).contains("createBlog"),
            done.withLock({ done in
                defer { done = true }
                return !done
            })
        else { return request }
        var own = request
        own.setValue(backend.apiKey, forHTTPHeaderField: "x-api-key")
        let (created, _) = try await URLSession.shared.data(for: own)
        #expect(String(decoding: created, as: UTF8.self).contains("\"_version\":1"))
        #expect(try await backend.bumpVersion(model: "Blog", id: "b1", setting: ["name": .string("Elsewhere")]) == 2)
        // The subscription delivers in milliseconds; on a loaded machine it may come after the
        // answer instead, and the record is then applied the ordinary way.
        try await Task.sleep(for: .seconds(1))
        return request
    }
}

/// Holds each mutation for a while before it is sent, and counts how many are held at once.
final class MutationGauge: URLRequestInterceptor {
    private struct Counts {
        var now = 0
        var peak = 0
        var total = 0
    }
    private let counts = Mutex(Counts())

    /// The most mutations held at once.
    var peak: Int { counts.withLock { $0.peak } }
    /// The mutations held so far.
    var count: Int { counts.withLock { $0.total } }

    func intercept(_ request: URLRequest) async throws -> URLRequest {
        guard let body = request.httpBody, String(decoding: body, as: UTF8.self).contains("mutation") else {
            return request
        }
        counts.withLock { counts in
            counts.now += 1
            counts.total += 1
            counts.peak = max(counts.peak, counts.now)
        }
        defer { counts.withLock { $0.now -= 1 } }
        try await Task.sleep(for: .milliseconds(300))
        return request
    }
}
