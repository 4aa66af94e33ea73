import AWSAPIPlugin
import AWSPluginsCore
import Amplify
import BlogModels
import Foundation
import StratusServer
import StratusTesting
import Testing

/// The testing kit's fault proxy between the API plugin and the local backend: each fault
/// shows to the client as it would on a real network, and `resume()` brings the traffic back.
/// Also the conflict a test forces with `bumpVersion(model:id:)`.
@Suite(.timeLimit(.minutes(1))) struct FaultProxyTests {
    typealias Recorder = SubscriptionEndToEndTests.Recorder

    init() {
        AmplifyModels().registerModels(registry: ModelRegistry.self)
    }

    /// A backend, a proxy in front of it and an API plugin through the proxy, all stopped at
    /// the end of `body`.
    static func withProxy(
        configuration: ServerConfiguration = ServerConfiguration(),
        _ body: (LocalBackend, FaultProxy, AWSAPIPlugin) async throws -> Void
    ) async throws {
        let backend = try await LocalBackend.start(
            schema: LocalBackendEndToEndTests.schema,
            configuration: configuration
        )
        let proxy: FaultProxy
        do {
            proxy = try await FaultProxy.start(forwardingTo: backend.endpoint)
        } catch {
            await backend.stop()
            throw error
        }
        do {
            try await body(backend, proxy, try backend.makeAPIPlugin(through: proxy))
        } catch {
            await proxy.stop()
            await backend.stop()
            throw error
        }
        await proxy.stop()
        await backend.stop()
    }

    /// Whether `work` fails with a network error, cutting the proxy's connections until it ends
    /// (an HTTP client may retry once on a fresh connection, which then hangs too).
    static func failsWhileCut(_ proxy: FaultProxy, _ work: Task<Void, any Error>) async -> (any Error)? {
        let cutter = Task {
            while (try? await Task.sleep(for: .milliseconds(50))) != nil {
                proxy.cutAllConnections()
            }
        }
        let result = await work.result
        // No cut may land after this returns, on the requests that follow.
        cutter.cancel()
        await cutter.value
        switch result {
        case .success: return nil
        case .failure(let error): return error
        }
    }

    @Test func requestsGoThroughAndAreCounted() async throws {
        try await Self.withProxy { _, proxy, api in
            let album = try await api.mutate(request: .create(Album(id: "a1", title: "Summer"))).get()
            #expect(album.title == "Summer")
            #expect(proxy.acceptedConnections >= 1)
            #expect(proxy.bytesFromClients > 0)
            #expect(proxy.bytesFromTarget > 0)
            #expect(proxy.url(proxying: URL(string: "http://127.0.0.1:1/graphql")!).port == proxy.port)
        }
    }

    @Test func aCutFailsTheRequestUnderWayAndResumeWorksAgain() async throws {
        try await Self.withProxy { _, proxy, api in
            _ = try await api.query(request: .list(Album.self)).get()
            proxy.blackHole()
            let request = Task { _ = try await api.mutate(request: .create(Album(id: "cut", title: "Lost"))).get() }
            try await Task.sleep(for: .milliseconds(200))
            let error = await Self.failsWhileCut(proxy, request)
            guard case .networkError? = error as? APIError else {
                Issue.record("expected a network error, got \(String(describing: error))")
                return
            }
            proxy.resume()
            let album = try await api.mutate(request: .create(Album(id: "after", title: "Back"))).get()
            #expect(album.id == "after")
        }
    }

    @Test func aBlackHoleHoldsTrafficUntilResume() async throws {
        try await Self.withProxy { backend, proxy, api in
            _ = try await api.query(request: .list(Album.self)).get()
            proxy.blackHole()
            let request = Task { try await api.mutate(request: .create(Album(id: "held", title: "Held"))).get() }
            try await Task.sleep(for: .milliseconds(300))
            #expect(proxy.openConnections >= 1)
            // Around the proxy: nothing reached the server yet.
            let direct = try backend.makeAPIPlugin()
            #expect(try await direct.query(request: .get(Album.self, byId: "held")).get() == nil)
            proxy.resume()
            let album = try await request.value
            #expect(album.title == "Held")
            #expect(try await direct.query(request: .get(Album.self, byId: "held")).get()?.title == "Held")
        }
    }

    @Test func aDelayHoldsEachChunk() async throws {
        try await Self.withProxy { _, proxy, api in
            _ = try await api.query(request: .list(Album.self)).get()
            proxy.delay(by: .milliseconds(750))
            let start = ContinuousClock.now
            _ = try await api.query(request: .list(Album.self)).get()
            let delayed = ContinuousClock.now - start
            #expect(delayed >= .milliseconds(1500), "a request chunk and a response chunk, each held")
            // A delay no request could outwait in time: after resume() none is left. (Held, the
            // request would take four minutes; even a very busy machine answers well within one.)
            proxy.delay(by: .seconds(120))
            proxy.resume()
            let again = ContinuousClock.now
            _ = try await api.query(request: .list(Album.self)).get()
            #expect(ContinuousClock.now - again < .seconds(60))
        }
    }

    @Test func dropAfterClosesAConnectionAtTheLimit() async throws {
        try await Self.withProxy { _, proxy, api in
            _ = try await api.query(request: .list(Album.self)).get()
            proxy.cutAllConnections()
            try await Task.sleep(for: .milliseconds(50))
            let before = proxy.bytesFromClients
            let beforeTarget = proxy.bytesFromTarget
            proxy.dropAfter(bytes: 100)
            // A retry on a fresh connection is dropped at the limit too.
            let error: (any Error)?
            do {
                _ = try await api.query(request: .list(Album.self)).get()
                error = nil
            } catch let failure {
                error = failure
            }
            guard case .networkError? = error as? APIError else {
                Issue.record("expected a network error, got \(String(describing: error))")
                return
            }
            let forwarded = proxy.bytesFromClients - before
            #expect(forwarded > 0 && forwarded % 100 == 0, "each connection carries exactly 100 bytes: \(forwarded)")
            #expect(proxy.bytesFromTarget == beforeTarget, "the server never saw a whole request")
            proxy.resume()
            _ = try await api.query(request: .list(Album.self)).get()
        }
    }

    /// A subscription through the proxy: a cut while the network is down leaves it disconnected;
    /// once resumed it reconnects and hears the next event.
    @Test func aSubscriptionSeesTheCutAndRecoversAfterResume() async throws {
        try await Self.withProxy { backend, proxy, api in
            let recorder = Recorder(api.subscribe(request: .subscription(of: Album.self, type: .onCreate)))
            defer { recorder.task.cancel() }
            try await recorder.wait("connected", seconds: 30) { $0.states.contains(.connected) }
            proxy.blackHole()
            proxy.cutAllConnections()
            try await recorder.wait("disconnected", seconds: 30) { $0.states.contains(.disconnected) }
            let direct = try backend.makeAPIPlugin()
            _ = try await direct.mutate(request: .create(Album(id: "unheard", title: "Missed"))).get()
            try await Task.sleep(for: .milliseconds(300))
            #expect(!recorder.values.contains { $0.id == "unheard" })
            #expect(recorder.states.filter { $0 == .connected }.count == 1)
            proxy.resume()
            try await recorder.wait("reconnected", seconds: 30) { $0.states.filter { $0 == .connected }.count >= 2 }
            _ = try await direct.mutate(request: .create(Album(id: "heard", title: "Back"))).get()
            try await recorder.wait("the event after resume", seconds: 30) { $0.values.contains { $0.id == "heard" } }
            #expect(recorder.ended == nil, "a cut never ends a subscription")
        }
    }

    /// `bumpVersion` makes the server's copy newer: an update with the version the client knew
    /// meets `ConflictUnhandled` under optimistic concurrency, and subscribers hear the bump.
    @Test func bumpVersionForcesAConflict() async throws {
        let configuration = ServerConfiguration(conflictResolution: .optimisticConcurrency)
        try await Self.withProxy(configuration: configuration) { backend, _, api in
            let recorder = Recorder(api.subscribe(request: .subscription(of: Album.self, type: .onUpdate)))
            defer { recorder.task.cancel() }
            try await recorder.wait("connected", seconds: 30) { $0.states.contains(.connected) }
            var album = try await api.mutate(request: .create(Album(id: "c1", title: "Mine"))).get()
            #expect(try await backend.bumpVersion(model: "Album", id: "c1") == 2)
            try await recorder.wait("the bump", seconds: 30) { $0.values.contains { $0.id == "c1" } }
            #expect(try await backend.bumpVersion(model: "Album", id: "c1", setting: ["title": "Theirs"]) == 3)
            album.title = "Changed"
            let refused = try await api.mutate(request: .update(album, version: 2))
            guard case .failure(.error(let errors)) = refused else {
                Issue.record("expected a conflict, got \(refused)")
                return
            }
            #expect(errors.first?.errorType == "ConflictUnhandled")
            let current = try #require(try await api.query(request: .get(Album.self, byId: "c1")).get())
            #expect(current.title == "Theirs")
        }
    }

    @Test func bumpVersionNamesAnUnknownModelOrItem() async throws {
        try await Self.withProxy { backend, _, _ in
            do {
                try await backend.bumpVersion(model: "Nope", id: "x")
                Issue.record("expected an error")
            } catch let error as LocalBackendError {
                #expect(
                    error.message
                        == "The schema has no model 'Nope' with get and update operations. Give one of: Album, Photo."
                )
            }
            do {
                try await backend.bumpVersion(model: "Album", id: "missing")
                Issue.record("expected an error")
            } catch let error as LocalBackendError {
                #expect(
                    error.message
                        == #"Cannot read the _version of Album 'missing': the server answered {"data":{"getAlbum":null}}. "#
                        + "Create the item first, and start the backend with conflict detection."
                )
            }
        }
    }
}
