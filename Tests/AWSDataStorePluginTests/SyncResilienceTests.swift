import AWSAPIPlugin
import AWSPluginsCore
import Amplify
import BlogModels
import Foundation
import StratusServer
import StratusTesting
import Testing

@testable import AWSDataStorePlugin

/// The network between a device and the backend is cut again and again while the device saves
/// and another client writes: nothing is lost or applied twice, the device ends equal to the
/// backend, and the Hub says when the network went and came back. `STRATUS_SYNC_CUTS` sets the
/// number of cuts (50 for the full check).
@Suite struct SyncResilienceTests {
    static let cuts = Int(ProcessInfo.processInfo.environment["STRATUS_SYNC_CUTS"] ?? "") ?? 8

    @Test func repeatedCutsLoseNothing() async throws {
        let backend = try await SyncFixture.backend(ServerConfiguration(conflictResolution: .optimisticConcurrency))
        defer { Task { await backend.stop() } }
        let proxy = try await FaultProxy.start(forwardingTo: backend.endpoint)
        defer { Task { await proxy.stop() } }
        let replays = Recorder<String>()
        let device = try SyncDevice(backend: backend, through: proxy) { configuration in
            // Only a replayed change can conflict here: nobody else writes these records.
            configuration.conflictHandler = { data, resolve in
                replays.append("conflict \(data.local.identifier)")
                resolve(.applyRemote)
            }
        }
        device.hub.listen(to: .dataStore, eventName: HubPayload.EventName.DataStore.conditionalSaveFailed) { _ in
            replays.append("condition")
        }
        try await device.startAndWaitUntilReady()
        let api = try backend.makeAPIPlugin()
        let total = Self.cuts * 10
        async let saves: Void = {
            for index in 0..<total {
                try await device.plugin.save(Blog(id: "d\(index)", name: "first d\(index)"))
                try await device.plugin.save(Blog(id: "d\(index)", name: "final d\(index)"))
                try await Task.sleep(for: .milliseconds(15))
            }
        }()
        async let external: Void = {
            for index in 0..<Self.cuts * 2 {
                _ = try await api.mutate(request: .create(Blog(id: "x\(index)", name: "external x\(index)"))).get()
                try await Task.sleep(for: .milliseconds(60))
            }
        }()
        for _ in 0..<Self.cuts {
            try await Task.sleep(for: .milliseconds(Int.random(in: 40..<200)))
            proxy.cutAllConnections()
        }
        try await saves
        try await external
        try await device.waitUntilOutboxIsEmpty()

        _ = ModelRegistry.modelTypes(registeredBy: BlogRegistration())
        let page = try await api.query(request: .syncQuery(modelSchema: Blog.schema, limit: 10_000)).get()
        let server = (page["items"]?.arrayValue ?? []).map {
            "\($0["id"]?.stringValue ?? "")=\($0["name"]?.stringValue ?? "")"
        }
        let expected =
            (0..<total).map { "d\($0)=final d\($0)" } + (0..<Self.cuts * 2).map { "x\($0)=external x\($0)" }
        #expect(server.sorted() == expected.sorted())
        try await waitUntil("the device equal to the backend") {
            Set(try await device.plugin.query(Blog.self).map { "\($0.id)=\($0.name)" }) == Set(expected)
        }
        #expect(replays.values.isEmpty)
        #expect(device.errors.values.isEmpty, "\(device.errors.values)")
        let statuses = device.events.values.compactMap { ($0.data as? NetworkStatusEvent)?.active }
        #expect(statuses.last == true)
        #expect(statuses.contains(false))
        // Each status differs from the one before: the Hub reports changes, not repeats.
        #expect(zip(statuses, statuses.dropFirst()).allSatisfy { $0 != $1 })
        try await device.plugin.stop()
    }
}
