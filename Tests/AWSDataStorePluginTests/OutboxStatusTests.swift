import AWSAPIPlugin
import AWSPluginsCore
import Amplify
import BlogModels
import Dispatch
import Foundation
import StratusServer
import StratusTesting
import Synchronization
import Testing

@testable import AWSDataStorePlugin

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The Hub's `outboxStatus`, as Amplify dispatches it: the outbox's state when sync starts,
/// `isEmpty: false` with each enqueued change, and `isEmpty: true` only once no change is
/// pending, in flight or awaiting settlement, so that an app can wait for it before exiting or
/// signing out.
@Suite struct OutboxStatusTests {
    @Test func statusesAreOrderedByCommitAndEmptyNeedsAnIdleEngine() {
        let hub = HubCategory()
        let statuses = Recorder<Bool>()
        hub.listen(to: .dataStore, eventName: HubPayload.EventName.DataStore.outboxStatus) { payload in
            if let event = payload.data as? OutboxStatusEvent { statuses.append(event.isEmpty) }
        }
        let reporter = OutboxStatusReporter(hub: hub)
        #expect(reporter.report(OutboxSnapshot(stamp: 1, isEmpty: true), idle: true, always: true))
        // A local change (stamp 3) is told before the round that committed before it (stamp 2),
        // whose "empty" is stale and dropped.
        #expect(reporter.report(OutboxSnapshot(stamp: 3, isEmpty: false), idle: true, always: true))
        #expect(!reporter.report(OutboxSnapshot(stamp: 2, isEmpty: true), idle: true, always: true))
        // An empty table with an event still held in memory is not an empty outbox.
        #expect(reporter.report(OutboxSnapshot(stamp: 4, isEmpty: true), idle: false, always: true))
        // Without `always`, an unchanged status is not told again.
        #expect(!reporter.report(OutboxSnapshot(stamp: 5, isEmpty: false), idle: true, always: false))
        #expect(reporter.report(OutboxSnapshot(stamp: 6, isEmpty: true), idle: true, always: false))
        #expect(statuses.values == [true, false, false, true])
    }

    @Test func emptyComesOnlyOnceEveryChangeWasAnsweredAndSettled() async throws {
        let backend = try await SyncFixture.backend()
        defer { Task { await backend.stop() } }
        let gate = MutationGate()
        let device = try SyncDevice(backend: backend, interceptor: gate)
        let watch = OutboxWatch(device.hub)
        try await device.startAndWaitUntilReady()
        // As sync starts, the state then: nothing to send.
        try await device.waitUntil("the status on start") { watch.lastStatus != nil }
        #expect(watch.statuses == [true])

        gate.close()
        try await device.plugin.save(Blog(id: "b1", name: "One"))
        // Told before the save returned.
        #expect(watch.events.suffix(2) == [.enqueued("b1"), .status(isEmpty: false)])
        try await device.waitUntil("b1's mutation held") { gate.held == 1 }
        try await device.plugin.save(Blog(id: "b2", name: "Two"))
        #expect(watch.events.suffix(2) == [.enqueued("b2"), .status(isEmpty: false)])
        gate.open()
        try await device.waitUntil("b2 processed and an empty outbox") {
            watch.events.contains(.processed("b2")) && watch.lastStatus == true
        }
        // Nothing said "empty" before both were processed: the outbox held them until then.
        let afterFirstSave = watch.events(after: .enqueued("b1"))
        let firstEmpty = try #require(afterFirstSave.firstIndex(of: .status(isEmpty: true)))
        #expect(afterFirstSave[..<firstEmpty].contains(.processed("b1")))
        #expect(afterFirstSave[..<firstEmpty].contains(.processed("b2")))
        #expect(try await device.plugin.pendingMutations().isEmpty)
        let api = try backend.makeAPIPlugin()
        _ = ModelRegistry.modelTypes(registeredBy: BlogRegistration())
        let page = try await api.query(request: .syncQuery(modelSchema: Blog.schema, limit: 100)).get()
        #expect(Set((page["items"]?.arrayValue ?? []).compactMap { $0["id"]?.stringValue }) == ["b1", "b2"])
        #expect(device.errors.values.isEmpty, "\(device.diagnostics)")
        try await device.plugin.stop()
    }

    @Test func aRoundsEmptyStatusIsDroppedWhenALocalChangeCommittedAfterIt() async throws {
        let backend = try await SyncFixture.backend()
        defer { Task { await backend.stop() } }
        let device = try SyncDevice(backend: backend)
        let watch = OutboxWatch(device.hub)
        let plugin = device.plugin
        // While the hub tells that b1 was processed, in the round that emptied the outbox and
        // before that round's status, the app saves b2 and its save returns.
        let saved = DispatchSemaphore(value: 0)
        let seenB1 = Mutex(false)
        let blocked = Mutex<Bool?>(nil)
        device.hub.listen(to: .dataStore, eventName: HubPayload.EventName.DataStore.outboxMutationProcessed) {
            payload in
            guard (payload.data as? OutboxMutationEvent)?.element.model.identifier == "b1" else { return }
            let first = seenB1.withLock { seen in
                defer { seen = true }
                return !seen
            }
            guard first else { return }
            // The hub tells inline, on one of the concurrency pool's threads, which this wait
            // holds: the save runs on a thread of its own, so that a busy pool (two threads on
            // two cores, the other perhaps waiting too) cannot leave it unstarted.
            Task(executorPreference: SaverThread.shared) {
                try await plugin.save(Blog(id: "b2", name: "Saved while b1 is settled"))
                saved.signal()
            }
            blocked.withLock { $0 = saved.wait(timeout: .now() + 60) == .success }
        }
        try await device.startAndWaitUntilReady()
        try await plugin.save(Blog(id: "b1", name: "First"))
        try await device.waitUntil("b2 processed and an empty outbox") {
            watch.events.contains(.processed("b2")) && watch.lastStatus == true
        }
        #expect(blocked.withLock { $0 } == true)
        // The round's "empty" came after b2's save returned, but the outbox held b2: it was
        // not told. The first "empty" after b2's enqueue follows b2's processing.
        let afterSecondSave = watch.events(after: .enqueued("b2"))
        #expect(afterSecondSave.first == .status(isEmpty: false))
        let firstEmpty = try #require(afterSecondSave.firstIndex(of: .status(isEmpty: true)))
        #expect(afterSecondSave[..<firstEmpty].contains(.processed("b2")), "\(watch.events)")
        try await plugin.stop()
    }

    @Test func startTellsNotEmptyForChangesAnEarlierRunLeft() async throws {
        let backend = try await SyncFixture.backend()
        defer { Task { await backend.stop() } }
        let directory = try TemporaryDirectory()
        let offline = TestStore.makePlugin(
            BlogRegistration(),
            at: directory.file("datastore.sqlite"),
            logs: LogRecorder()
        )
        try await offline.save(Blog(id: "b1", name: "Saved offline"))
        try await offline.stop()

        let device = try SyncDevice(backend: backend, directory: directory)
        let watch = OutboxWatch(device.hub)
        try await device.startAndWaitUntilReady()
        try await device.waitUntil("an empty outbox") { watch.lastStatus == true }
        #expect(watch.statuses.first == false)
        #expect(watch.events.contains(.processed("b1")))
        try await device.plugin.stop()
    }

    @Test func aDeleteThatCancelsAnUnsentCreateEnqueuesNothingAndEmptiesTheOutbox() async throws {
        let backend = try await SyncFixture.backend()
        defer { Task { await backend.stop() } }
        let proxy = try await FaultProxy.start(forwardingTo: backend.endpoint)
        defer { Task { await proxy.stop() } }
        // The backend cannot be reached: nothing is sent.
        proxy.blackHole()
        let device = try SyncDevice(backend: backend, through: proxy)
        let watch = OutboxWatch(device.hub)
        try await device.plugin.start()
        try await device.waitUntil("the status on start") { watch.lastStatus != nil }
        try await device.plugin.save(Blog(id: "b1", name: "Never sent"))
        try await device.plugin.delete(Blog.self, withId: "b1")
        #expect(try await device.plugin.pendingMutations().isEmpty)
        #expect(
            watch.events == [
                .status(isEmpty: true), .enqueued("b1"), .status(isEmpty: false), .status(isEmpty: true),
            ]
        )
        try await device.plugin.stop()
    }
}

/// Holds the device's mutation requests while closed, until opened again.
final class MutationGate: URLRequestInterceptor {
    private struct State {
        var closed = false
        var held = 0
        var waiters: [CheckedContinuation<Void, Never>] = []
    }
    private let state = Mutex(State())

    /// How many mutations are held now.
    var held: Int { state.withLock { $0.held } }

    /// Holds the mutations sent from now on.
    func close() {
        state.withLock { $0.closed = true }
    }

    /// Sends the held mutations, and the next ones at once.
    func open() {
        let waiters = state.withLock { state in
            state.closed = false
            state.held = 0
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    func intercept(_ request: URLRequest) async throws -> URLRequest {
        guard let body = request.httpBody, String(decoding: body, as: UTF8.self).contains("mutation") else {
            return request
        }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let passes = state.withLock { state -> Bool in
                guard state.closed else { return true }
                state.held += 1
                state.waiters.append(continuation)
                return false
            }
            if passes { continuation.resume() }
        }
        return request
    }
}

/// A thread that runs the tasks preferring it, off the concurrency pool.
private final class SaverThread: TaskExecutor {
    static let shared = SaverThread()

    private let jobs = Mutex<[UnownedJob]>([])
    private let signal = DispatchSemaphore(value: 0)

    private init() {
        let thread = Thread { [self] in
            while true {
                signal.wait()
                let job = jobs.withLock { $0.removeFirst() }
                job.runSynchronously(on: asUnownedTaskExecutor())
            }
        }
        thread.name = "OutboxStatusTests.saver"
        thread.start()
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        jobs.withLock { $0.append(job) }
        signal.signal()
    }
}
