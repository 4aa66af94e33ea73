import Amplify
import BlogModels
import Foundation
import StratusServer
import StratusTesting
import Synchronization
import Testing

@testable import AWSDataStorePlugin

/// `stop()`, `start()` and `clear()`: from many tasks at once, while saves, transactions, sync,
/// the outbox and observers are busy, no call fails or hangs, and no saved change is lost
/// unless a clear came after it; `clear()` says what it discarded.
@Suite struct LifecycleTests {
    @Test func clearSaysHowManyChangesItDiscarded() async throws {
        let directory = try TemporaryDirectory()
        let logs = LogRecorder()
        var configuration = DataStoreConfiguration(databaseURL: directory.file("datastore.sqlite"))
        configuration.log = logs.handler
        configuration.durability = .normal
        let hub = HubCategory()
        let cleared = Recorder<DataStoreClearedEvent>()
        hub.listen(to: .dataStore) { payload in
            if payload.eventName == HubPayload.EventName.DataStore.cleared,
                let event = payload.data as? DataStoreClearedEvent
            {
                cleared.append(event)
            }
        }
        let plugin = AWSDataStorePlugin(
            modelRegistration: BlogRegistration(),
            configuration: configuration,
            api: nil,
            hub: hub
        )
        let blog = Fixtures.blog()
        try await plugin.save(blog)
        try await plugin.save(Fixtures.post("p1", blog: blog))
        try await plugin.save(Fixtures.post("p2", blog: blog))
        // A create and a delete of one record cancel out in the outbox: 2 changes, 2 records.
        try await plugin.delete(BlogPost.self, withId: "p2")

        try await plugin.clear()
        #expect(cleared.values == [DataStoreClearedEvent(discardedChanges: 2, removedRecords: 2)])
        #expect(
            logs.messages.last
                == "DataStore.clear() discarded 2 local changes the backend had not confirmed, and removed 2 records."
        )
        #expect(try await plugin.query(Blog.self).isEmpty)
        #expect(try await plugin.pendingMutations().isEmpty)

        try await plugin.clear()
        #expect(cleared.values.last == DataStoreClearedEvent(discardedChanges: 0, removedRecords: 0))
        #expect(logs.messages.count(where: { $0.hasPrefix("DataStore.clear()") }) == 1)
        try await plugin.stop()
    }

    @Test func stopStartAndClearWhileSavingLoseNothingAndNeverHang() async throws {
        let backend = try await SyncFixture.backend()
        defer { Task { await backend.stop() } }
        let device = try SyncDevice(backend: backend) { $0.outboxConcurrency = 3 }
        let cleared = Recorder<DataStoreClearedEvent>()
        device.hub.listen(to: .dataStore) { payload in
            if let event = payload.data as? DataStoreClearedEvent { cleared.append(event) }
        }
        try await device.startAndWaitUntilReady()
        let timeline = Timeline()

        try await withDeadline(.seconds(60), running: { timeline.running }) {
            try await Self.stress(device, timeline)
        }

        let failures = timeline.failures
        #expect(failures.isEmpty, "\(failures)")
        // Every save after the last clear ended must be kept, in the store and on the backend.
        let lastClear = try #require(timeline.calls.filter { $0.kind == .clear }.map(\.end).max())
        let kept = Set(timeline.calls.filter { $0.start > lastClear }.flatMap(\.ids))
        try #require(!kept.isEmpty)

        try await device.plugin.start()
        try await device.waitUntil("the store and the backend agree") {
            let local = Set(try await device.plugin.query(Blog.self).map(\.id))
            let remote = try await Self.backendBlogs(backend)
            return try await device.plugin.pendingMutations().isEmpty && local == Set(remote.keys)
                && kept.isSubset(of: local)
        }
        let remote = try await Self.backendBlogs(backend)
        #expect(kept.subtracting(remote.keys).isEmpty)
        // Each save was a create of its own record, applied once.
        #expect(remote.values.filter { $0 != 1 }.isEmpty, "\(remote.filter { $0.value != 1 })")
        #expect(device.errors.values.isEmpty, "\(device.diagnostics)")
        #expect(cleared.count == timeline.calls.filter { $0.kind == .clear }.count)
        try await device.plugin.stop()
    }

    /// Four tasks save (one at a time, in transactions and in batches) 20 records each, one
    /// call after each sign of sync at work (a change sent, a model synced) or restart. A fifth
    /// starts and stops (at once, once a model synced, or once a change was sent, in turn) until
    /// the saves are done; a sixth clears three
    /// times, after the first three restarts, and the last four calls of each saver come after
    /// those clears; a seventh observes the
    /// query of every Blog until it is synced, again after each sign of sync at work.
    private static func stress(_ device: SyncDevice, _ timeline: Timeline) async throws {
        let plugin = device.plugin
        let (sent, synced) = (Shared(0), Shared(0))
        let progress = Shared(0)
        let restarts = Shared(0)
        let token = device.hub.listen(to: .dataStore) { payload in
            switch payload.eventName {
            case HubPayload.EventName.DataStore.outboxMutationProcessed: sent.update { $0 += 1 }
            case HubPayload.EventName.DataStore.modelSynced: synced.update { $0 += 1 }
            default: return
            }
            progress.update { $0 += 1 }
        }
        defer { device.hub.removeListener(token) }
        let saving = Shared(4)
        let clears = Task {
            for round in 1...3 {
                await until { restarts.value >= round }
                await timeline.call(.clear, []) { try await plugin.clear() }
            }
        }
        await withTaskGroup(of: Void.self) { group in
            for worker in 0..<4 {
                group.addTask {
                    for step in 0..<12 {
                        if step == 8 { await clears.value }
                        let (sync, restart) = (progress.value, restarts.value)
                        await save(step, "w\(worker)-s\(step)", plugin, timeline)
                        await until { progress.value > sync || restarts.value > restart }
                    }
                    saving.update { $0 -= 1 }
                }
            }
            group.addTask {
                while saving.value > 0 {
                    await timeline.call(.start, []) { try await plugin.start() }
                    // Stops at once, in the sync queries, or while the outbox sends, in turn.
                    let round = restarts.value % 3
                    if round > 0 {
                        let watched = round == 1 ? synced : sent
                        let before = watched.value
                        await until { watched.value > before || saving.value == 0 }
                    }
                    await timeline.call(.stop, []) { try await plugin.stop() }
                    restarts.update { $0 += 1 }
                }
            }
            group.addTask {
                while saving.value > 0 {
                    let before = progress.value
                    await timeline.call(.observe, []) {
                        for try await snapshot in plugin.observeQuery(for: Blog.self) where snapshot.isSynced {
                            break
                        }
                    }
                    await until { progress.value > before || saving.value == 0 }
                }
            }
        }
        await clears.value
    }

    /// Saves one record (steps 0, 3, …) or two, in a transaction (1, 4, …) or a batch (2, 5, …).
    private static func save(_ step: Int, _ id: String, _ plugin: AWSDataStorePlugin, _ timeline: Timeline) async {
        let ids = ["\(id)-a", "\(id)-b"]
        switch step % 3 {
        case 0:
            await timeline.call(.save, [id]) { try await plugin.save(Blog(id: id, name: id)) }
        case 1:
            await timeline.call(.transaction, ids) {
                try await plugin.transaction { tx in
                    for id in ids { try tx.save(Blog(id: id, name: id)) }
                }
            }
        default:
            await timeline.call(.batch, ids) { try await plugin.save(ids.map { Blog(id: $0, name: $0) }) }
        }
    }

    /// Waits until `condition` holds, for at most two seconds: a pace, not an expectation.
    private static func until(_ condition: () -> Bool) async {
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: .seconds(2))
        while !condition(), clock.now < deadline {
            try? await Task.sleep(for: .milliseconds(2))
        }
    }

    /// The `_version` of each Blog the backend holds and has not deleted, by id.
    private static func backendBlogs(_ backend: LocalBackend) async throws -> [String: Int] {
        let response = await backend.server.execute(
            query: "{ syncBlogs(limit: 1000) { items { id _version _deleted } nextToken } }",
            identity: .apiKey
        )
        let page = try #require(response.body["data"]?["syncBlogs"], "\(response.text)")
        #expect(page["nextToken"]?.stringValue == nil)
        var blogs: [String: Int] = [:]
        for item in page["items"]?.arrayValue ?? [] where item["_deleted"]?.boolValue != true {
            if let id = item["id"]?.stringValue { blogs[id] = item["_version"]?.intValue ?? 0 }
        }
        return blogs
    }
}

/// The calls of a stress test, each with the logical times it started and ended.
final class Timeline: Sendable {
    enum Kind: String, Sendable {
        case save, transaction, batch, clear, start, stop, observe
    }

    struct Call: Sendable {
        let kind: Kind
        let ids: [String]
        let start: Int
        let end: Int
    }

    private struct State {
        var clock = 0
        var calls: [Call] = []
        var failures: [String] = []
        var running: [Int: String] = [:]
    }
    private let state = Mutex(State())

    /// Runs `body` as a call of `kind` saving `ids`; a thrown error is recorded as a failure.
    func call(_ kind: Kind, _ ids: [String], _ body: () async throws -> Void) async {
        let start = state.withLock { state in
            state.clock += 1
            state.running[state.clock] = "\(kind) \(ids)"
            return state.clock
        }
        let failure: String?
        do {
            try await body()
            failure = nil
        } catch {
            failure = "\(kind) \(ids): \(error)"
        }
        state.withLock { state in
            state.clock += 1
            state.running[start] = nil
            if let failure { state.failures.append(failure) }
            state.calls.append(Call(kind: kind, ids: failure == nil ? ids : [], start: start, end: state.clock))
        }
    }

    var calls: [Call] { state.withLock { $0.calls } }
    var failures: [String] { state.withLock { $0.failures } }
    /// The calls under way.
    var running: [String] { state.withLock { $0.running.sorted { $0.key < $1.key }.map(\.value) } }
}

/// Runs `work`, and fails with what is still `running` when it has not returned within `limit`,
/// rather than waiting for a deadlock forever.
func withDeadline(
    _ limit: Duration,
    running: @escaping @Sendable () -> [String],
    _ work: @escaping @Sendable () async throws -> Void
) async throws {
    let worker = Task { try await work() }
    let outcome = Shared<CheckedContinuation<Void, any Error>?>(nil)
    let timer = Task {
        try await Task.sleep(for: limit)
        let waiting = outcome.update { continuation in
            defer { continuation = nil }
            return continuation
        }
        worker.cancel()
        waiting?.resume(
            throwing: WaitTimeout(what: "the calls to return within \(limit); still running: \(running())")
        )
    }
    defer { timer.cancel() }
    try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
        outcome.update { $0 = continuation }
        Task {
            let result = await worker.result
            let waiting = outcome.update { continuation in
                defer { continuation = nil }
                return continuation
            }
            waiting?.resume(with: result)
        }
    }
}

/// A value several tasks read and change.
final class Shared<Value: Sendable>: Sendable {
    private let state: Mutex<Value>

    init(_ value: Value) { state = Mutex(value) }

    var value: Value { state.withLock { $0 } }

    @discardableResult
    func update<T: Sendable>(_ change: (inout Value) -> T) -> T { state.withLock { change(&$0) } }
}
