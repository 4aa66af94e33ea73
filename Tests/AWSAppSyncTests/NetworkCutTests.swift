import AWSPluginsCore
import Amplify
import Foundation
import StratusTesting
import Synchronization
import Testing
import TodoAPI

@testable import AWSAppSync

/// The network between the client and the backend cut by `FaultProxy` while mutations are
/// queued and a subscription listens: every mutation reaches the server exactly once, and the
/// subscription comes back.
@Suite struct NetworkCutTests {
    /// What the subscription delivered: connection states and the names of created todos.
    final class Events: Sendable {
        private let values = Mutex<[String]>([])

        func append(_ value: String) { values.withLock { $0.append(value) } }

        var all: [String] { values.withLock { $0 } }
    }

    @Test(.timeLimit(.minutes(1))) func cutsLoseNoMutationApplyNoneTwiceAndTheSubscriptionResumes() async throws {
        try await OfflineClients.withBackend { clients in
            let proxy = try await FaultProxy.start(forwardingTo: clients.backend.endpoint)
            do {
                try await Self.run(clients, proxy: proxy)
            } catch {
                await proxy.stop()
                throw error
            }
            await proxy.stop()
        }
    }

    private static func run(_ clients: OfflineClients, proxy: FaultProxy) async throws {
        let appSyncClient = try clients.makeClient(endpoint: proxy.url(proxying: clients.backend.endpoint))
        let events = Events()
        let stream = appSyncClient.subscribe(subscription: OnCreateTodoSubscription())
        let listening = Task {
            for try await event in stream {
                switch event {
                case .connection(let state): events.append("state \(state)")
                case .data(let result): events.append("created \(result.data?.onCreateTodo?.name ?? "?")")
                }
            }
        }
        defer { listening.cancel() }
        #expect(try await OfflineClients.eventually { events.all.contains("state connected") })

        // Creates without ids: a create applied twice would show as two todos.
        let names = (0..<40).map { "Todo \($0)" }
        let results = Mutex<[String: Int]>([:])
        let failures = Mutex<[String]>([])
        let (done, finish) = AsyncStream.makeStream(of: Void.self)
        for name in names {
            appSyncClient.perform(
                mutation: CreateTodoMutation(input: CreateTodoInput(name: name)),
                queue: DispatchQueue.global()
            ) { result, error in
                if error != nil || result?.errors != nil {
                    failures.withLock { $0.append("\(name): \(String(describing: error)) \(result?.errors ?? [])") }
                }
                let count = results.withLock { results in
                    results[name, default: 0] += 1
                    return results.values.reduce(0, +)
                }
                if count == names.count { finish.yield() }
            }
        }
        // Connections cut mid-request, then an outage in which every connection drops at once.
        for _ in 0..<5 {
            try await Task.sleep(for: .milliseconds(Int.random(in: 20..<60)))
            proxy.cutAllConnections()
        }
        proxy.dropAfter(bytes: 0)
        proxy.cutAllConnections()
        try await Task.sleep(for: .milliseconds(400))
        proxy.resume()

        var iterator = done.makeAsyncIterator()
        await iterator.next()
        #expect(failures.withLock { $0 } == [])
        #expect(results.withLock { $0 } == Dictionary(uniqueKeysWithValues: names.map { ($0, 1) }))
        #expect(try await clients.serverNames() == names.sorted())
        #expect(try appSyncClient.queuedMutationIdentifiers() == [])

        // The subscription was dropped, and is back: a todo created now reaches it.
        let afterConnecting = events.all.drop { $0 != "state connected" }
        #expect(afterConnecting.contains { $0.hasPrefix("state ") && $0 != "state connected" }, "\(events.all)")
        var arrived = false
        for attempt in 0..<50 where !arrived {
            _ = try await clients.backend.perform(CreateTodoMutation(input: CreateTodoInput(name: "After \(attempt)")))
            arrived = try await OfflineClients.eventually(for: .milliseconds(200)) {
                events.all.contains { $0.hasPrefix("created After ") }
            }
        }
        #expect(arrived, "\(events.all)")
    }
}
