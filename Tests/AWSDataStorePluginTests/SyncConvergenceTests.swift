import AWSAPIPlugin
import AWSPluginsCore
import Amplify
import BlogModels
import Foundation
import StratusServer
import StratusTesting
import Testing

@testable import AWSDataStorePlugin

/// Several devices, each a process of its own with its own database, edit the same records at
/// once through the local backend and end equal to it, under each conflict resolution strategy.
/// `STRATUS_SYNC_DEVICES` and `STRATUS_SYNC_EDITS` make the run larger (5 devices and 2,000
/// edits each for the full check).
@Suite struct SyncConvergenceTests {
    static let devices = Int(ProcessInfo.processInfo.environment["STRATUS_SYNC_DEVICES"] ?? "") ?? 3
    static let edits = Int(ProcessInfo.processInfo.environment["STRATUS_SYNC_EDITS"] ?? "") ?? 40

    @Test(.enabled(if: ChildTest.isSupported && ChildTest.role == nil), arguments: [false, true])
    func concurrentEditsConverge(optimistic: Bool) async throws {
        let configuration =
            optimistic
            ? ServerConfiguration(conflictResolution: .optimisticConcurrency) : ServerConfiguration()
        let backend = try await SyncFixture.backend(configuration)
        defer { Task { await backend.stop() } }
        let directory = try TemporaryDirectory()
        var children: [ChildProcess] = []
        for number in 0..<Self.devices {
            children.append(
                try await ChildTest.start(
                    filter: "SyncConvergenceDevice",
                    role: "sync-convergence-device",
                    environment: [
                        "STRATUS_ENDPOINT": backend.endpoint.absoluteString,
                        "STRATUS_API_KEY": backend.apiKey,
                        "STRATUS_DIRECTORY": directory.url.path,
                        "STRATUS_DEVICE": String(number),
                        "STRATUS_SYNC_DEVICES": String(Self.devices),
                        "STRATUS_SYNC_EDITS": String(Self.edits),
                        "STRATUS_OPTIMISTIC": optimistic ? "1" : "0",
                    ],
                    directory: directory.url,
                    output: directory.file("device-\(number).log")
                )
            )
        }
        for (number, child) in children.enumerated() {
            let status = try await child.wait(timeout: .seconds(600))
            let log = (try? String(contentsOf: directory.file("device-\(number).log"), encoding: .utf8)) ?? ""
            try #require(status == .exited(0), "device \(number): \(log.suffix(3000))")
        }
        let expected = try await SyncConvergenceDevice.backendRecords(try backend.makeAPIPlugin())
        // A deleted record stays deleted (a create with its id fails its condition, as on AppSync),
        // so the live records may be few; the backend must have seen the edits all the same.
        #expect(try await SyncConvergenceDevice.backendRecords(try backend.makeAPIPlugin(), deleted: true).count > 0)
        for number in 0..<Self.devices {
            let final = try String(contentsOf: directory.file("final-\(number).txt"), encoding: .utf8)
            #expect(final == expected.joined(separator: "\n"), "device \(number) differs from the backend")
            // Under heavy contention a retried change may lose the race again and again; after
            // four rounds the backend's record is kept and the error says so. Nothing else may fail.
            let errors = try String(contentsOf: directory.file("errors-\(number).txt"), encoding: .utf8)
                .split(separator: "\n")
                .filter { !(optimistic && $0.contains("conflict four times")) }
            #expect(errors.isEmpty, "device \(number): \(errors)")
        }
    }
}

/// One device of ``SyncConvergenceTests`` in its child process: it waits for the others to be
/// ready, makes its seeded random saves and deletes on shared records (8, or a quarter of the
/// edits), drains, waits for the
/// others to drain, then waits until it holds what the backend holds and writes that down.
@Suite struct SyncConvergenceDevice {
    /// The backend's live records as sorted `id=name` lines.
    static func backendRecords(_ api: AWSAPIPlugin, deleted: Bool = false) async throws -> [String] {
        // The document's selections of embedded types come from the registered models.
        _ = ModelRegistry.modelTypes(registeredBy: BlogRegistration())
        // A versioned backend lists deleted records too, marked `_deleted`.
        let page = try await api.query(request: .syncQuery(modelSchema: Blog.schema, limit: 10_000)).get()
        return (page["items"]?.arrayValue ?? []).filter { deleted || $0["_deleted"]?.booleanValue != true }
            .map { "\($0["id"]?.stringValue ?? "")=\($0["name"]?.stringValue ?? "")" }.sorted()
    }

    /// Waits until every device has written the marker `name`.
    static func waitForAll(_ name: String, devices: Int, in directory: URL) async throws {
        try await waitUntil("\(devices) devices \(name)", timeout: .seconds(300)) {
            (0..<devices).allSatisfy {
                FileManager.default.fileExists(atPath: directory.appending(path: "\(name)-\($0)").path)
            }
        }
    }

    @Test(.enabled(if: ChildTest.role == "sync-convergence-device"))
    func run() async throws {
        let environment = ProcessInfo.processInfo.environment
        let directory = URL(fileURLWithPath: try #require(environment["STRATUS_DIRECTORY"]))
        let number = try #require(environment["STRATUS_DEVICE"].flatMap { Int($0) })
        let devices = try #require(environment["STRATUS_SYNC_DEVICES"].flatMap { Int($0) })
        let edits = try #require(environment["STRATUS_SYNC_EDITS"].flatMap { Int($0) })
        let optimistic = environment["STRATUS_OPTIMISTIC"] == "1"
        let errors = Recorder<String>()
        var configuration = DataStoreConfiguration(
            databaseURL: directory.appending(path: "device-\(number).sqlite")
        )
        configuration.errorHandler = { errors.append($0.message) }
        // Under optimistic concurrency the handler retries the local change: the last writer
        // wins, and every device must still agree.
        if optimistic { configuration.conflictHandler = { _, resolve in resolve(.retryLocal) } }
        let hub = HubCategory()
        let ready = Recorder<Bool>()
        hub.listen(to: .dataStore, eventName: HubPayload.EventName.DataStore.ready) { _ in ready.append(true) }
        let plugin = AWSDataStorePlugin(
            modelRegistration: BlogRegistration(),
            configuration: configuration,
            api: try ChildTest.apiPlugin(),
            hub: hub
        )
        func mark(_ name: String) throws {
            try Data().write(to: directory.appending(path: "\(name)-\(number)"))
        }

        try await plugin.start()
        try await waitUntil("DataStore.ready", timeout: .seconds(120)) { ready.count > 0 }
        try mark("ready")
        try await Self.waitForAll("ready", devices: devices, in: directory)

        var generator = SeededGenerator(seed: UInt64(number + 1))
        // Enough records that deletions, which are final, leave some alive in a long run.
        let records = max(8, edits / 4)
        for edit in 0..<edits {
            let id = "b\(Int.random(in: 0..<records, using: &generator))"
            if Int.random(in: 0..<10, using: &generator) == 0 {
                try await plugin.delete(Blog.self, withId: id)
            } else {
                try await plugin.save(Blog(id: id, name: "device \(number) edit \(edit)"))
            }
        }
        try await waitUntil("an empty outbox", timeout: .seconds(300)) { try await plugin.pendingMutations().isEmpty }
        try mark("drained")
        try await Self.waitForAll("drained", devices: devices, in: directory)

        let api = try ChildTest.apiPlugin()
        var local: [String] = []
        var expected: [String] = []
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: .seconds(120))
        repeat {
            expected = try await Self.backendRecords(api)
            local = try await plugin.query(Blog.self).map { "\($0.id)=\($0.name)" }.sorted()
            if local == expected { break }
            try await Task.sleep(for: .milliseconds(50))
        } while clock.now < deadline
        try local.joined(separator: "\n").write(
            to: directory.appending(path: "final-\(number).txt"),
            atomically: true,
            encoding: .utf8
        )
        try errors.values.joined(separator: "\n").write(
            to: directory.appending(path: "errors-\(number).txt"),
            atomically: true,
            encoding: .utf8
        )
        try await plugin.stop()
    }
}

/// A small, seeded random number generator (SplitMix64), so that a failing run can be repeated.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var value = state
        value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
        value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
        return value ^ (value >> 31)
    }
}
