import AWSAPIPlugin
import AWSPluginsCore
import Amplify
import BlogModels
import Foundation
import StratusTesting
import Synchronization
import Testing

/// `subscribe(request:)` against the local backend's real-time endpoint: events, connection
/// states, refusals that end a subscription, and recovery from a server restart.
@Suite struct SubscriptionEndToEndTests {
    init() {
        AmplifyModels().registerModels(registry: ModelRegistry.self)
    }

    /// What a subscription delivered, read by a task of its own.
    final class Recorder<R: Decodable & Sendable>: Sendable {
        final class Log: Sendable {
            let state = Mutex<(events: [GraphQLSubscriptionEvent<R>], ended: Result<Void, any Error>?)>(([], nil))
        }
        private let log = Log()
        let task: Task<Void, Never>

        init(_ sequence: AmplifyAsyncThrowingSequence<GraphQLSubscriptionEvent<R>>) {
            let log = log
            task = Task {
                do {
                    for try await event in sequence {
                        log.state.withLock { $0.events.append(event) }
                    }
                    log.state.withLock { $0.ended = .success(()) }
                } catch {
                    log.state.withLock { $0.ended = .failure(error) }
                }
            }
        }

        var events: [GraphQLSubscriptionEvent<R>] { log.state.withLock { $0.events } }
        var ended: Result<Void, any Error>? { log.state.withLock { $0.ended } }

        var states: [SubscriptionConnectionState] {
            events.compactMap { if case .connection(let state) = $0 { state } else { nil } }
        }

        var values: [R] {
            events.compactMap { if case .data(.success(let value)) = $0 { value } else { nil } }
        }

        /// Waits until `condition` holds, for at most `seconds`.
        func wait(
            _ what: String,
            seconds: Double = 60,
            until condition: @Sendable (Recorder) -> Bool
        ) async throws {
            let deadline = ContinuousClock.now + .seconds(seconds)
            while !condition(self) {
                guard ContinuousClock.now < deadline else {
                    throw WaitTimeout(
                        message: "timed out waiting for \(what); events: \(events); ended: \(String(describing: ended))"
                    )
                }
                try await Task.sleep(for: .milliseconds(20))
            }
        }
    }

    struct WaitTimeout: Error, CustomStringConvertible {
        var message: String
        var description: String { message }
    }

    static func plugin(_ backend: LocalBackend, _ mode: AWSAuthorizationType = .apiKey) throws -> AWSAPIPlugin {
        try backend.makeAPIPlugin(authorizationType: mode)
    }

    @Test(arguments: [AWSAuthorizationType.apiKey, .awsIAM])
    func eventsArriveWithTheSelectedFields(_ mode: AWSAuthorizationType) async throws {
        let backend = try await LocalBackend.start(schema: LocalBackendEndToEndTests.schema)
        do {
            let api = try Self.plugin(backend, mode)
            let subscription = api.subscribe(request: .subscription(of: Album.self, type: .onCreate))
            let recorder = Recorder(subscription)
            try await recorder.wait("connected") { $0.states.contains(.connected) }
            _ = try await api.mutate(request: .create(Album(id: "a1", title: "First"))).get()
            try await recorder.wait("the event") { !$0.values.isEmpty }
            #expect(recorder.values.map(\.id) == ["a1"])
            #expect(recorder.values.first?.title == "First")
            #expect(recorder.states.first == .connecting)
            subscription.cancel()
            _ = await recorder.task.value
            #expect(recorder.ended.map { (try? $0.get()) != nil } == true, "cancel ends without an error")
        } catch {
            await backend.stop()
            throw error
        }
        await backend.stop()
    }

    @Test func anInvalidDocumentEndsTheSubscriptionWithTheServersError() async throws {
        let backend = try await LocalBackend.start(schema: LocalBackendEndToEndTests.schema)
        do {
            let api = try Self.plugin(backend)
            let request = GraphQLRequest<JSONValue>(
                document: "subscription { onCreateAlbum { id nope } }",
                responseType: JSONValue.self
            )
            let recorder = Recorder(api.subscribe(request: request))
            try await recorder.wait("the refusal") { $0.ended != nil }
            guard case .failure(let error as AppSyncRealTimeError)? = recorder.ended else {
                Issue.record("expected AppSyncRealTimeError, got \(String(describing: recorder.ended))")
                await backend.stop()
                return
            }
            #expect(error.kind == .subscriptionRefused)
            #expect(error.errors.first?.message.contains("nope") == true, "\(error)")
        } catch {
            await backend.stop()
            throw error
        }
        await backend.stop()
    }

    @Test func aRefusedConnectionEndsTheSubscription() async throws {
        let backend = try await LocalBackend.start(schema: LocalBackendEndToEndTests.schema)
        do {
            let configuration = AWSAPIPluginConfiguration(endpoints: [
                .init(
                    name: "stratus",
                    endpointType: .graphQL,
                    endpoint: backend.endpoint,
                    region: "us-east-1",
                    authorizationType: .apiKey,
                    apiKey: "da2-not-a-key"
                )
            ])
            let api = AWSAPIPlugin()
            try api.configure(configuration)
            let recorder = Recorder(api.subscribe(request: .subscription(of: Album.self, type: .onCreate)))
            try await recorder.wait("the refusal") { $0.ended != nil }
            guard case .failure(let error as AppSyncRealTimeError)? = recorder.ended else {
                Issue.record("expected AppSyncRealTimeError, got \(String(describing: recorder.ended))")
                await backend.stop()
                return
            }
            #expect(error.kind == .connectionRefused)
            #expect(error.errorType == "UnauthorizedException")
        } catch {
            await backend.stop()
            throw error
        }
        await backend.stop()
    }

    /// Subscriptions after `configure` use the new configuration, not a connection made for the
    /// previous one.
    @Test func aReconfiguredPluginSubscribesWithItsNewConfiguration() async throws {
        let backend = try await LocalBackend.start(schema: LocalBackendEndToEndTests.schema)
        do {
            func configuration(key: String) -> AWSAPIPluginConfiguration {
                AWSAPIPluginConfiguration(endpoints: [
                    .init(
                        name: "stratus",
                        endpointType: .graphQL,
                        endpoint: backend.endpoint,
                        region: "us-east-1",
                        authorizationType: .apiKey,
                        apiKey: key
                    )
                ])
            }
            let api = AWSAPIPlugin()
            try api.configure(configuration(key: "da2-not-a-key"))
            let refused = Recorder(api.subscribe(request: .subscription(of: Album.self, type: .onCreate)))
            try await refused.wait("the refusal") { $0.ended != nil }
            try api.configure(configuration(key: backend.apiKey))
            let subscription = api.subscribe(request: .subscription(of: Album.self, type: .onCreate))
            let recorder = Recorder(subscription)
            try await recorder.wait("connected") { $0.states.contains(.connected) || $0.ended != nil }
            #expect(recorder.states.contains(.connected), "ended: \(String(describing: recorder.ended))")
            subscription.cancel()
            _ = await recorder.task.value
        } catch {
            await backend.stop()
            throw error
        }
        await backend.stop()
    }

    /// The server dies and comes back on the same port and data directory while three
    /// subscriptions are live: each reports the drop, reconnects, and receives the next event;
    /// none ends.
    @Test func subscriptionsSurviveAServerRestart() async throws {
        let backend = try await LocalBackend.start(schema: LocalBackendEndToEndTests.schema)
        do {
            let api = try backend.makeAPIPlugin()
            let recorders = [
                Recorder(api.subscribe(request: .subscription(of: Album.self, type: .onCreate))),
                Recorder(api.subscribe(request: .subscription(of: Album.self, type: .onUpdate))),
                Recorder(api.subscribe(request: .subscription(of: Album.self, type: .onCreate))),
            ]
            for recorder in recorders {
                try await recorder.wait("connected") { $0.states.contains(.connected) }
            }
            await backend.kill()
            for recorder in recorders {
                try await recorder.wait("disconnected") { $0.states.contains(.disconnected) }
            }
            try await Task.sleep(for: .milliseconds(500))
            try await backend.restart()
            for recorder in recorders {
                try await recorder.wait("reconnected") { $0.states.filter { $0 == .connected }.count >= 2 }
            }
            let created = try await api.mutate(request: .create(Album(id: "after", title: "Back"))).get()
            _ = try await api.mutate(request: .update(created, version: 1)).get()
            for recorder in recorders {
                try await recorder.wait("the event after the restart") { $0.values.contains { $0.id == "after" } }
                #expect(recorder.ended == nil, "a restart never ends a subscription")
            }
            // Connected, then disconnected by the kill. (A loaded machine may add a first attempt
            // that timed out: connecting, disconnected, connecting, connected.)
            let states = recorders[0].states
            #expect(states.first == .connecting)
            let connected = try #require(states.firstIndex(of: .connected))
            #expect(states[connected...].contains(.disconnected))
            for recorder in recorders { recorder.task.cancel() }
        } catch {
            await backend.stop()
            throw error
        }
        await backend.stop()
    }
}
