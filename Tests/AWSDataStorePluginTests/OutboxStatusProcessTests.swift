import AWSAPIPlugin
import Amplify
import BlogModels
import Foundation
import StratusServer
import StratusTesting
import Synchronization
import Testing

@testable import AWSDataStorePlugin

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// An app saves records, waits for the Hub's `outboxStatus` to say `isEmpty: true` after it
/// said `false`, as the README advises before exiting or signing out, and exits at once: the
/// backend holds every record it saved. The app runs in a child process, saving with one task
/// or with sixteen (and as many outbox senders), with the network cut for part of the run or
/// not.
@Suite struct OutboxStatusProcessTests {
    struct Run: Sendable, CustomTestStringConvertible {
        let records: Int
        let concurrency: Int
        var testDescription: String { "\(records) records, concurrency \(concurrency)" }
    }

    static let runs = [1, 50, 500].flatMap { records in
        [1, 16].map { Run(records: records, concurrency: $0) }
    }

    @Test(.enabled(if: ChildTest.isSupported && ChildTest.role == nil), .timeLimit(.minutes(2)), arguments: runs)
    func everyRecordIsOnTheBackendWhenTheOutboxSaysEmpty(_ run: Run) async throws {
        let backend = try await SyncFixture.backend()
        defer { Task { await backend.stop() } }
        try await Self.runApp(run, endpoint: backend.endpoint, backend: backend)
    }

    @Test(
        .enabled(if: ChildTest.isSupported && ChildTest.role == nil),
        .timeLimit(.minutes(2)),
        arguments: [Run(records: 50, concurrency: 1), Run(records: 500, concurrency: 16)]
    )
    func everyRecordIsOnTheBackendWhenTheOutboxSaysEmptyAfterNetworkCuts(_ run: Run) async throws {
        let backend = try await SyncFixture.backend()
        defer { Task { await backend.stop() } }
        let proxy = try await FaultProxy.start(forwardingTo: backend.endpoint)
        defer { Task { await proxy.stop() } }
        // While the app saves and sends: connections cut, then nothing gets through for a while.
        let faults = Task {
            for _ in 0..<3 {
                try await Task.sleep(for: .milliseconds(Int.random(in: 100..<400)))
                proxy.cutAllConnections()
            }
            proxy.blackHole()
            proxy.cutAllConnections()
            try await Task.sleep(for: .milliseconds(300))
            proxy.resume()
        }
        defer { faults.cancel() }
        try await Self.runApp(run, endpoint: proxy.url(proxying: backend.endpoint), backend: backend)
        // The app may have been done before the last fault.
        proxy.resume()
    }

    /// Runs the app of `run` against `endpoint` and checks that `backend` holds what it saved.
    static func runApp(_ run: Run, endpoint: URL, backend: LocalBackend) async throws {
        let directory = try TemporaryDirectory()
        let output = directory.file("child.log")
        let process = try await ChildTest.start(
            filter: "OutboxStatusChild",
            role: "outbox-status",
            environment: [
                "STRATUS_DATABASE": directory.file("device.sqlite").path,
                "STRATUS_ENDPOINT": endpoint.absoluteString,
                "STRATUS_API_KEY": backend.apiKey,
                "STRATUS_RECORDS": String(run.records),
                "STRATUS_CONCURRENCY": String(run.concurrency),
            ],
            directory: directory.url,
            output: output
        )
        let status = try await process.wait(timeout: .seconds(90))
        if status == nil {
            process.kill()
            _ = try await process.wait()
        }
        let log = (try? String(contentsOf: output, encoding: .utf8)) ?? ""
        try #require(status == .exited(0), "\(log)")
        #expect(log.contains("EMPTY after \(run.records) saves, 0 pending"), "\(log)")

        _ = ModelRegistry.modelTypes(registeredBy: BlogRegistration())
        let api = try backend.makeAPIPlugin()
        let page = try await api.query(request: .syncQuery(modelSchema: Blog.schema, limit: 10_000)).get()
        let stored = Set((page["items"]?.arrayValue ?? []).compactMap { $0["id"]?.stringValue })
        let saved = Set((0..<run.records).map { "r\($0)" })
        #expect(stored == saved, "missing: \(saved.subtracting(stored).sorted().prefix(20))")
    }
}

@Suite struct OutboxStatusChild {
    /// Saves `STRATUS_RECORDS` blogs with `STRATUS_CONCURRENCY` tasks (and as many outbox
    /// senders), waits for `outboxStatus` to say empty after it said not empty, and exits at
    /// once, without stopping DataStore.
    @Test(.enabled(if: ChildTest.role == "outbox-status"))
    func run() async throws {
        let environment = ProcessInfo.processInfo.environment
        let records = try #require(environment["STRATUS_RECORDS"].flatMap { Int($0) })
        let concurrency = try #require(environment["STRATUS_CONCURRENCY"].flatMap { Int($0) })
        var configuration = DataStoreConfiguration(
            databaseURL: URL(fileURLWithPath: try #require(environment["STRATUS_DATABASE"]))
        )
        configuration.outboxConcurrency = concurrency
        configuration.errorHandler = { error in print("error: \(error.message)") }
        let hub = HubCategory()
        // The app's view of the outbox: whether it said not empty, and what it said last.
        let status = Mutex<(seenNotEmpty: Bool, isEmpty: Bool?)>((false, nil))
        let (changes, changed) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        hub.listen(to: .dataStore, eventName: HubPayload.EventName.DataStore.outboxStatus) { payload in
            guard let event = payload.data as? OutboxStatusEvent else { return }
            status.withLock { status in
                status.isEmpty = event.isEmpty
                if !event.isEmpty { status.seenNotEmpty = true }
            }
            changed.yield()
        }
        let plugin = AWSDataStorePlugin(
            modelRegistration: BlogRegistration(),
            configuration: configuration,
            api: try ChildTest.apiPlugin(),
            hub: hub
        )
        try await plugin.start()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for worker in 0..<concurrency {
                group.addTask {
                    for index in stride(from: worker, to: records, by: concurrency) {
                        try await plugin.save(Blog(id: "r\(index)", name: "Record \(index)"))
                    }
                }
            }
            try await group.waitForAll()
        }
        // Every save has returned: the status each one caused was told before it returned.
        var waits = changes.makeAsyncIterator()
        while status.withLock({ !($0.seenNotEmpty && $0.isEmpty == true) }) {
            guard await waits.next() != nil else { break }
        }
        // What the outbox holds when it says empty: nothing, or the status came early.
        let pending = try await plugin.pendingMutations().count
        FileHandle.standardOutput.write(Data("EMPTY after \(records) saves, \(pending) pending\n".utf8))
        exit(0)
    }
}
