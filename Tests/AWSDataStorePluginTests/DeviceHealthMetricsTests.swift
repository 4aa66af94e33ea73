import AWSAPIPlugin
import AWSPluginsCore
import Amplify
import BlogModels
import CoreMetrics
import Foundation
import MetricsTestKit
import StratusServer
import StratusTesting
import Testing

@testable import AWSDataStorePlugin

/// The device health DataStore reports through swift-metrics (<doc:DeviceHealth>): each test
/// gives its device a `TestMetrics` of its own through `DataStoreConfiguration.metricsFactory`,
/// so that the tests run in parallel without the process-wide `MetricsSystem`.
@Suite struct DeviceHealthMetricsTests {
    @Test func outboxDepthFollowsOfflineSavesAndDrainsToZeroOnline() async throws {
        let backend = try await SyncFixture.backend()
        defer { Task { await backend.stop() } }
        let proxy = try await FaultProxy.start(forwardingTo: backend.endpoint)
        defer { Task { await proxy.stop() } }
        let metrics = TestMetrics()
        let device = try SyncDevice(backend: backend, through: proxy) { $0.metricsFactory = metrics }
        try await device.startAndWaitUntilReady()
        let depth = try metrics.expectGauge("datastore_outbox_depth")
        let age = try metrics.expectGauge("datastore_outbox_oldest_age_seconds")
        #expect(depth.lastValue == 0)

        proxy.blackHole()
        try await device.plugin.save(Blog(id: "b1", name: "One"))
        try await device.plugin.save(Blog(id: "b2", name: "Two"))
        // Told as each save commits, before it returns.
        #expect(depth.lastValue == 2)
        #expect(try #require(age.lastValue) > 0)

        proxy.resume()
        try await device.waitUntil("an outbox drained to 0") { depth.lastValue == 0 }
        #expect(age.lastValue == 0)
        try await device.waitUntil("both mutations counted") {
            metrics.counterTotal(label: "datastore_mutations_sent_total") == 2
        }
        #expect(metrics.counterTotal(label: "datastore_mutations_failed_total") == 0)
        #expect(device.errors.values.isEmpty, "\(device.diagnostics)")
        try await device.plugin.stop()
    }

    @Test func aConflictCountsOnceAsAConflict() async throws {
        let backend = try await SyncFixture.backend(ServerConfiguration(conflictResolution: .optimisticConcurrency))
        defer { Task { await backend.stop() } }
        let proxy = try await FaultProxy.start(forwardingTo: backend.endpoint)
        defer { Task { await proxy.stop() } }
        let metrics = TestMetrics()
        let device = try SyncDevice(backend: backend, through: proxy) { $0.metricsFactory = metrics }
        try await device.startAndWaitUntilReady()
        let depth = try metrics.expectGauge("datastore_outbox_depth")
        try await device.plugin.save(Blog(id: "b1", name: "One"))
        try await device.waitUntil("b1 sent") { depth.lastValue == 0 }

        // Another client changes b1 while the device cannot hear of it; the device's change is
        // based on the version before.
        proxy.blackHole()
        _ = ModelRegistry.modelTypes(registeredBy: BlogRegistration())
        let other = try backend.makeAPIPlugin()
        let changed = try await other.mutate(
            request: .syncMutation(
                modelSchema: Blog.schema,
                kind: "update",
                json: ["id": "b1", "name": "Elsewhere"],
                version: 1,
                condition: nil
            )
        ).get()
        #expect(changed["_version"]?.intValue == 2)
        try await device.plugin.save(Blog(id: "b1", name: "Here"))
        #expect(depth.lastValue == 1)

        proxy.resume()
        try await device.waitUntil("the conflict settled") { depth.lastValue == 0 }
        let failed = metrics.counters(label: "datastore_mutations_failed_total").filter { $0.totalValue > 0 }
        #expect(failed.map { $0.dimensions.map { "\($0.0)=\($0.1)" } } == [["kind=conflict"]])
        #expect(failed.map(\.totalValue) == [1])
        #expect(metrics.counterTotal(label: "datastore_mutations_sent_total") == 2)
        try await device.plugin.stop()
    }

    @Test func aDroppedConnectionCountsOneReconnect() async throws {
        let backend = try await SyncFixture.backend()
        defer { Task { await backend.stop() } }
        let proxy = try await FaultProxy.start(forwardingTo: backend.endpoint)
        defer { Task { await proxy.stop() } }
        let metrics = TestMetrics()
        let device = try SyncDevice(backend: backend, through: proxy) { $0.metricsFactory = metrics }
        try await device.startAndWaitUntilReady()
        let reconnects = try metrics.expectCounter("datastore_reconnects_total")
        #expect(reconnects.totalValue == 0)
        // The first sync stamped each model.
        #expect(
            try #require(
                try metrics.expectGauge("datastore_last_sync_timestamp_seconds", [("model", "Blog")]).lastValue
            ) > 0
        )

        proxy.cutAllConnections()
        try await device.waitUntil("one reconnect") { reconnects.totalValue == 1 }
        // A record saved elsewhere now arrives by subscription, with its lag measured.
        let other = try backend.makeAPIPlugin()
        _ = ModelRegistry.modelTypes(registeredBy: BlogRegistration())
        _ = try await other.mutate(
            request: .syncMutation(
                modelSchema: Blog.schema,
                kind: "create",
                json: ["id": "remote", "name": "Remote"],
                version: nil,
                condition: nil
            )
        )
        let lag = try metrics.expectTimer("datastore_sync_lag_seconds", [("model", "Blog")])
        try await device.waitUntil("the remote record's lag") { !lag.values.isEmpty }
        #expect(reconnects.totalValue == 1)
        try await device.plugin.stop()
    }

    @Test func outboxDepthIsReadFromTheStoreAfterARestart() async throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("datastore.sqlite")
        let first = TestStore.makePlugin(BlogRegistration(), at: url, logs: LogRecorder())
        try await first.save(Blog(id: "b1", name: "One"))
        try await first.save(Blog(id: "b2", name: "Two"))
        try await first.save(Blog(id: "b3", name: "Three"))
        try await first.stop()

        let metrics = TestMetrics()
        var configuration = DataStoreConfiguration(databaseURL: url)
        configuration.durability = .normal
        configuration.metricsFactory = metrics
        let restarted = AWSDataStorePlugin(modelRegistration: BlogRegistration(), configuration: configuration)
        // Opening the store is enough: no save, no sync.
        _ = try await restarted.query(Blog.self)
        #expect(try metrics.expectGauge("datastore_outbox_depth").lastValue == 3)
        #expect(try #require(try metrics.expectGauge("datastore_outbox_oldest_age_seconds").lastValue) > 0)
        try await restarted.stop()
    }

    @Test(arguments: [
        (#"[{"message":"Conflict","errorType":"ConflictUnhandled"}]"#, MutationFailureKind.conflict),
        (#"[{"message":"x","errorType":"DynamoDB:ConditionalCheckFailedException"}]"#, .condition),
        (
            #"[{"message":"Not Authorized to access createBlog on type Mutation","errorType":"Unauthorized"}]"#,
            .unauthorized
        ),
        (#"[{"message":"boom","errorType":"InternalFailure"}]"#, .other),
    ])
    func refusalsFallIntoFourKinds(errors: String, kind: MutationFailureKind) throws {
        let parsed = try #require(try GraphQLError.appSyncErrors(try JSONValue(parsing: Data(errors.utf8))))
        #expect(DataStoreMetrics.failure(of: .failure(.error(parsed))) == kind)
    }

    @Test func anAnswerWithTheRecordOrALostAnswerIsNoFailure() throws {
        #expect(DataStoreMetrics.failure(of: .success(["id": "b1"])) == nil)
        let lost = try #require(
            try GraphQLError.appSyncErrors(
                try JSONValue(
                    parsing: Data(#"[{"message":"lost","errorType":"IdempotentResponseLostException"}]"#.utf8)
                )
            )
        )
        #expect(DataStoreMetrics.failure(of: .failure(.error(lost))) == nil)
        #expect(DataStoreMetrics.failure(of: .success(.null)) == .other)
    }

    @Test func noMetricsAreMadeWithoutABackend() {
        #expect(DataStoreMetrics(factory: NOOPMetricsHandler.instance, modelNames: ["Blog"]) == nil)
    }
}
