import AWSPluginsCore
import Amplify
import Foundation
import MetricsTestKit
import StratusTesting
import Testing
import TodoAPI

@testable import AWSAppSync

/// The device health the AppSync client reports through swift-metrics (<doc:DeviceHealth>):
/// each test gives its client a `TestMetrics` of its own through
/// `AWSAppSyncClientConfiguration.metricsFactory`, so that the tests run in parallel without
/// the process-wide `MetricsSystem`.
@Suite(.timeLimit(.minutes(1))) struct AppSyncDeviceHealthTests {
    @Test func queueDepthFollowsOfflineMutationsAndDrainsToZero() async throws {
        try await OfflineClients.withBackend { clients in
            let proxy = try await FaultProxy.start(forwardingTo: clients.backend.endpoint)
            defer { Task { await proxy.stop() } }
            let metrics = TestMetrics()
            let client = try clients.makeClient(
                endpoint: proxy.url(proxying: clients.backend.endpoint),
                metrics: metrics
            )
            let depth = try metrics.expectGauge("appsync_queue_depth")
            let age = try metrics.expectGauge("appsync_queue_oldest_age_seconds")
            #expect(depth.lastValue == 0)

            proxy.blackHole()
            let first = Task {
                try await client.perform(mutation: CreateTodoMutation(input: CreateTodoInput(name: "One")))
            }
            let second = Task {
                try await client.perform(mutation: CreateTodoMutation(input: CreateTodoInput(name: "Two")))
            }
            #expect(try await OfflineClients.eventually { depth.lastValue == 2 })
            #expect(try #require(age.lastValue) >= 0)

            proxy.resume()
            _ = try await first.value
            _ = try await second.value
            #expect(try await OfflineClients.eventually { depth.lastValue == 0 })
            #expect(age.lastValue == 0)
            #expect(metrics.counterTotal(label: "appsync_mutations_sent_total") == 2)
            #expect(metrics.counterTotal(label: "appsync_mutations_failed_total") == 0)
        }
    }

    @Test func aFailedConditionCountsOnceAsACondition() async throws {
        try await OfflineClients.withBackend { clients in
            let metrics = TestMetrics()
            let client = try clients.makeClient(metrics: metrics)
            _ = try await client.perform(mutation: CreateTodoMutation(input: CreateTodoInput(id: "t1", name: "Milk")))
            let refused = try await client.perform(
                mutation: UpdateTodoMutation(
                    input: UpdateTodoInput(id: "t1", name: "Oat milk"),
                    condition: ModelTodoConditionInput(name: ModelStringInput(eq: "Bread"))
                )
            )
            #expect(refused.errors?.first?.errorType == "ConditionalCheckFailedException")
            let failed = metrics.counters(label: "appsync_mutations_failed_total").filter { $0.totalValue > 0 }
            #expect(failed.map { $0.dimensions.map { "\($0.0)=\($0.1)" } } == [["kind=condition"]])
            #expect(failed.map(\.totalValue) == [1])
            #expect(metrics.counterTotal(label: "appsync_mutations_sent_total") == 2)
        }
    }

    @Test func aDroppedConnectionCountsOneReconnect() async throws {
        try await OfflineClients.withBackend { clients in
            let proxy = try await FaultProxy.start(forwardingTo: clients.backend.endpoint)
            defer { Task { await proxy.stop() } }
            let metrics = TestMetrics()
            let client = try clients.makeClient(
                endpoint: proxy.url(proxying: clients.backend.endpoint),
                metrics: metrics
            )
            let reconnects = try metrics.expectCounter("appsync_reconnects_total")
            let states = NetworkCutTests.Events()
            let listening = Task {
                for try await event in client.subscribe(subscription: OnCreateTodoSubscription()) {
                    if case .connection(let state) = event { states.append("\(state)") }
                }
            }
            defer { listening.cancel() }
            #expect(try await OfflineClients.eventually { states.all.contains("connected") })
            #expect(reconnects.totalValue == 0)

            proxy.cutAllConnections()
            #expect(try await OfflineClients.eventually { reconnects.totalValue == 1 })
            #expect(try await OfflineClients.eventually { states.all.filter { $0 == "connected" }.count == 2 })
            #expect(reconnects.totalValue == 1)
        }
    }

    @Test func queueDepthIsReadFromTheStoreWhenTheClientStarts() async throws {
        try await OfflineClients.withBackend { clients in
            // An earlier run left two mutations in the queue's file.
            let cache = try AWSAppSyncCacheConfiguration(withRootDirectory: clients.directory)
            let left = try OfflineMutationStore(databaseURL: cache.offlineMutations)
            for id in ["m1", "m2"] {
                _ = try left.enqueue(id: id, operationName: "CreateTodo", requestBody: #"{"query":"","variables":{}}"#)
            }
            let proxy = try await FaultProxy.start(forwardingTo: clients.backend.endpoint)
            defer { Task { await proxy.stop() } }
            proxy.blackHole()
            let metrics = TestMetrics()
            let client = try clients.makeClient(
                endpoint: proxy.url(proxying: clients.backend.endpoint),
                metrics: metrics
            )
            #expect(try metrics.expectGauge("appsync_queue_depth").lastValue == 2)
            #expect(try #require(try metrics.expectGauge("appsync_queue_oldest_age_seconds").lastValue) > 0)
            _ = client
        }
    }
}
