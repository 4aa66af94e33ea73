import AWSAPIPlugin
import AWSPluginsCore
import Amplify
import BlogModels
import Foundation
import StratusServer
import StratusTesting
import Testing

@testable import AWSDataStorePlugin

/// Several devices editing the same records at once end equal to the backend, under each
/// conflict resolution strategy. `STRATUS_SYNC_DEVICES` and `STRATUS_SYNC_EDITS` make the run
/// larger (5 devices and 2,000 edits each for the full check).
@Suite struct SyncConvergenceTests {
    static let devices = Int(ProcessInfo.processInfo.environment["STRATUS_SYNC_DEVICES"] ?? "") ?? 3
    static let edits = Int(ProcessInfo.processInfo.environment["STRATUS_SYNC_EDITS"] ?? "") ?? 40

    @Test(arguments: [false, true])
    func concurrentEditsConverge(optimistic: Bool) async throws {
        let configuration =
            optimistic
            ? ServerConfiguration(conflictResolution: .optimisticConcurrency) : ServerConfiguration()
        let backend = try await SyncFixture.backend(configuration)
        defer { Task { await backend.stop() } }
        var devices: [SyncDevice] = []
        for _ in 0..<Self.devices {
            // Under optimistic concurrency the handler retries the local change: the last
            // writer wins, and every device must still agree.
            let device = try SyncDevice(backend: backend) { configuration in
                if optimistic { configuration.conflictHandler = { _, resolve in resolve(.retryLocal) } }
            }
            try await device.startAndWaitUntilReady()
            devices.append(device)
        }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (number, device) in devices.enumerated() {
                group.addTask {
                    var generator = SeededGenerator(seed: UInt64(number + 1))
                    for edit in 0..<Self.edits {
                        let id = "b\(Int.random(in: 0..<8, using: &generator))"
                        if Int.random(in: 0..<5, using: &generator) == 0 {
                            try await device.plugin.delete(Blog.self, withId: id)
                        } else {
                            try await device.plugin.save(Blog(id: id, name: "device \(number) edit \(edit)"))
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
        for device in devices { try await device.waitUntilOutboxIsEmpty() }
        let api = try backend.makeAPIPlugin()
        // A versioned backend lists deleted records too, marked `_deleted`.
        let page = try await api.query(request: .syncQuery(modelSchema: Blog.schema, limit: 1000)).get()
        let expected = Set(
            (page["items"]?.arrayValue ?? []).filter { $0["_deleted"]?.booleanValue != true }
                .map { "\($0["id"]?.stringValue ?? "")=\($0["name"]?.stringValue ?? "")" }
        )
        for (number, device) in devices.enumerated() {
            do {
                try await waitUntil("device \(number) equal to the backend") {
                    Set(try await device.plugin.query(Blog.self).map { "\($0.id)=\($0.name)" }) == expected
                }
            } catch {
                let local = try await device.plugin.query(Blog.self).map { "\($0.id)=\($0.name)" }
                Issue.record("device \(number) holds \(local.sorted()), the backend \(expected.sorted())")
                let names = device.eventNames.filter { !$0.contains("outbox") }
                Issue.record(
                    "events \(names.suffix(40)) errors \(device.errors.values) log \(device.logs.messages.suffix(5))"
                )
                throw error
            }
        }
        for device in devices {
            // Under heavy contention a retried change may lose the race again and again; after four
            // rounds the backend's record is kept and the error says so. Nothing else may fail.
            let unexpected = device.errors.values.filter { !(optimistic && $0.message.contains("conflict four times")) }
            #expect(unexpected.isEmpty, "\(unexpected)")
            try await device.plugin.stop()
        }
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
