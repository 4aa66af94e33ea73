import AWSAPIPlugin
import AWSPluginsCore
import Amplify
import BlogModels
import Foundation
import StratusServer
import StratusTesting
import Testing

@testable import AWSDataStorePlugin

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A device saving records is killed with SIGKILL at random moments while its outbox drains;
/// after it restarts and drains, the backend holds each record exactly once with its latest
/// data, and no change was ever applied twice. The backend runs under optimistic concurrency,
/// so a replayed update (stale `_version`) would come back as a conflict and a replayed create
/// as a failed condition: the device records both, and there must be none. `STRATUS_SYNC_KILLS`
/// and `STRATUS_SYNC_RECORDS` make the run larger (20 kills of a device saving 1,000 records for
/// the full check).
@Suite struct SyncExactlyOnceTests {
    static let kills = Int(ProcessInfo.processInfo.environment["STRATUS_SYNC_KILLS"] ?? "") ?? 3
    static let records = Int(ProcessInfo.processInfo.environment["STRATUS_SYNC_RECORDS"] ?? "") ?? 300

    @Test(.enabled(if: ChildTest.isSupported && ChildTest.role == nil))
    func killedWhileDrainingAppliesEachChangeOnce() async throws {
        let backend = try await SyncFixture.backend(ServerConfiguration(conflictResolution: .optimisticConcurrency))
        defer { Task { await backend.stop() } }
        let directory = try TemporaryDirectory()
        let environment = [
            "STRATUS_DATABASE": directory.file("device.sqlite").path,
            "STRATUS_ENDPOINT": backend.endpoint.absoluteString,
            "STRATUS_API_KEY": backend.apiKey,
            "STRATUS_REPLAYS": directory.file("replays.txt").path,
        ]
        var random = SystemRandomNumberGenerator()
        var killed = 0
        for run in 0...Self.kills {
            let process = try await ChildTest.start(
                filter: "SyncExactlyOnceChild",
                role: "sync-exactly-once",
                environment: environment,
                directory: directory.url,
                output: directory.file("child-\(run).log")
            )
            if run < Self.kills {
                try await Task.sleep(for: .milliseconds(Int.random(in: 50..<600, using: &random)))
                if process.isRunning {
                    kill(process.processIdentifier, SIGKILL)
                    killed += 1
                }
                _ = try await process.wait()
            } else {
                let status = try await process.wait(timeout: .seconds(120))
                let log = (try? String(contentsOf: directory.file("child-\(run).log"), encoding: .utf8)) ?? ""
                try #require(status == .exited(0), "\(log)")
            }
        }
        let replays = (try? String(contentsOf: directory.file("replays.txt"), encoding: .utf8)) ?? ""
        #expect(replays.isEmpty, "changes applied twice: \(replays)")
        _ = ModelRegistry.modelTypes(registeredBy: BlogRegistration())
        let api = try backend.makeAPIPlugin()
        let page = try await api.query(request: .syncQuery(modelSchema: Blog.schema, limit: 10_000)).get()
        let items = page["items"]?.arrayValue ?? []
        #expect(items.count == Self.records)
        #expect(Set(items.compactMap { $0["id"]?.stringValue }).count == Self.records)
        let wrong = items.filter { item in
            item["name"]?.stringValue != "final \(item["id"]?.stringValue ?? "")"
                || item["_deleted"]?.booleanValue == true
        }
        #expect(wrong.isEmpty, "\(wrong.prefix(3))")
        #expect(killed > 0)
    }
}

@Suite struct SyncExactlyOnceChild {
    /// Saves each record (a create, then an update) unless the store has its final version
    /// already, then waits for an empty outbox; conflicts and failed conditions, which only a
    /// replayed change can cause here, are written to the replays file.
    @Test(.enabled(if: ChildTest.role == "sync-exactly-once"))
    func run() async throws {
        let environment = ProcessInfo.processInfo.environment
        let replays = try #require(environment["STRATUS_REPLAYS"])
        let descriptor = open(replays, O_WRONLY | O_CREAT | O_APPEND, 0o644)
        #expect(descriptor >= 0)
        let record: @Sendable (String) -> Void = { line in
            let bytes = Array((line + "\n").utf8)
            _ = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        }
        var configuration = DataStoreConfiguration(
            databaseURL: URL(fileURLWithPath: try #require(environment["STRATUS_DATABASE"]))
        )
        configuration.durability = .full
        configuration.conflictHandler = { data, resolve in
            record("conflict \((data.local as? Blog)?.id ?? "?")")
            resolve(.applyRemote)
        }
        configuration.errorHandler = { error in record("error \(error.message)") }
        let api = try ChildTest.apiPlugin()
        let hub = HubCategory()
        hub.listen(to: .dataStore, eventName: HubPayload.EventName.DataStore.conditionalSaveFailed) { payload in
            record("condition \((payload.data as? OutboxMutationEvent)?.element.model.identifier ?? "?")")
        }
        let plugin = AWSDataStorePlugin(
            modelRegistration: BlogRegistration(),
            configuration: configuration,
            api: api,
            hub: hub
        )
        try await plugin.start()
        for index in 0..<SyncExactlyOnceTests.records {
            let id = "r\(index)"
            if try await plugin.query(Blog.self, byId: id)?.name == "final \(id)" { continue }
            try await plugin.save(Blog(id: id, name: "first \(id)"))
            // Let some creates leave before their update, so that both kinds are replayed.
            if index % 3 == 0 { try await Task.sleep(for: .milliseconds(5)) }
            try await plugin.save(Blog(id: id, name: "final \(id)"))
        }
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: .seconds(90))
        while try await !plugin.pendingMutations().isEmpty, clock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(try await plugin.pendingMutations().isEmpty)
        try await plugin.stop()
    }
}
