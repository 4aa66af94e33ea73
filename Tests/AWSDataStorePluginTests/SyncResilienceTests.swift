import AWSAPIPlugin
import AWSPluginsCore
import Amplify
import BlogModels
import Foundation
import StratusServer
import StratusTesting
import Synchronization
import Testing

@testable import AWSDataStorePlugin

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

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

/// A create the backend refuses is undone by reading the backend's record; when the network
/// fails during that read, the undo waits for the network instead of leaving the refused record
/// on the device for good.
@Suite struct RefusedChangeUndoTests {
    @Test func undoOfARefusedCreateSurvivesANetworkFailure() async throws {
        let backend = try await SyncFixture.backend()
        defer { Task { await backend.stop() } }
        // The documents' selections of embedded types come from the registered models.
        _ = ModelRegistry.modelTypes(registeredBy: BlogRegistration())
        let api = try backend.makeAPIPlugin()
        let blog = try await api.mutate(request: .create(Blog(id: "b1", name: "Theirs"))).get()
        _ = try await api.mutate(request: .delete(blog, version: 1)).get()
        let proxy = try await FaultProxy.start(forwardingTo: backend.endpoint)
        defer { Task { await proxy.stop() } }
        let cut = CutFirstRead(proxy: proxy, of: "getBlog")
        let device = try SyncDevice(backend: backend, through: proxy, interceptor: cut)
        try await device.startAndWaitUntilReady()
        // The device knows b1 as a tombstone: a create of that id fails its condition.
        try await device.plugin.save(Blog(id: "b1", name: "Mine"))
        try await device.waitUntilOutboxIsEmpty()
        // The read the network failed, then at least one that got through.
        #expect(cut.reads >= 2)
        #expect(try await device.plugin.query(Blog.self, byId: "b1") == nil)
        #expect(device.errors.values.isEmpty, "\(device.errors.values)")
        try await device.plugin.stop()
    }
}

extension RefusedChangeUndoTests {
    /// The backend's record that replaces a refused create may belong to a parent the device
    /// does not hold (here a deleted blog): it waits for that parent, and the refused record
    /// leaves the device rather than stay with values the backend never had.
    @Test func refusedCreateWhoseBackendRecordWaitsForItsParentLeavesTheDevice() async throws {
        let backend = try await SyncFixture.backend()
        defer { Task { await backend.stop() } }
        _ = ModelRegistry.modelTypes(registeredBy: BlogRegistration())
        let api = try backend.makeAPIPlugin()
        let gone = try await api.mutate(request: .create(Blog(id: "b0", name: "Gone"))).get()
        _ = try await api.mutate(request: .delete(gone, version: 1)).get()
        // The backend keeps no link between a post and its blog: the post outlives it.
        let theirs = BlogModels.Post(id: "p1", title: "Theirs", blog: gone, status: .draft)
        _ = try await api.mutate(request: .create(theirs)).get()
        let kept = try await api.mutate(request: .create(Blog(id: "b1", name: "Kept"))).get()
        let device = try SyncDevice(backend: backend)
        try await device.startAndWaitUntilReady()
        #expect(try await device.plugin.query(BlogModels.Post.self, byId: "p1") == nil)
        try await device.plugin.save(BlogModels.Post(id: "p1", title: "Mine", blog: kept, status: .draft))
        try await device.waitUntilOutboxIsEmpty()
        #expect(try await device.plugin.query(BlogModels.Post.self, byId: "p1") == nil)
        #expect(device.errors.values.isEmpty, "\(device.errors.values)")
        try await device.plugin.stop()
    }
}

/// Breaks the network for the first request whose body holds `field`: each connection is
/// closed before it carries a byte, until the network comes back 300 ms later.
final class CutFirstRead: URLRequestInterceptor {
    let proxy: FaultProxy
    let field: String
    private let count = Mutex(0)

    init(proxy: FaultProxy, of field: String) {
        self.proxy = proxy
        self.field = field
    }

    /// How many requests held `field`.
    var reads: Int { count.withLock { $0 } }

    func intercept(_ request: URLRequest) async throws -> URLRequest {
        guard let body = request.httpBody, String(decoding: body, as: UTF8.self).contains(field),
            count.withLock({ count in
                defer { count += 1 }
                return count == 0
            })
        else { return request }
        proxy.dropAfter(bytes: 0)
        Task { [proxy] in
            try await Task.sleep(for: .milliseconds(300))
            proxy.resume()
        }
        return request
    }
}
