// The AppSync client's offline mutation queue against plain URLSession requests in the same run.
//
// Run with `swift run -c release StratusBench appsync-queue`.
import AWSAppSync
import Amplify
import Foundation
import StratusServer
import StratusTesting
import Synchronization
import TodoAPI

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Over loopback against the local backend serving the guide's Todo API:
///
/// - 1,000 `CreateTodo` mutations sent one after another with a bare `URLSession` POST (the
///   baseline), then the same through `AWSAppSyncClient.perform`, which writes each to
///   `offlineMutations.db` before sending it and deletes it after, in order, one in flight;
/// - 1,000 mutations queued while the server is down, and the time from its restart to an
///   empty queue (the client notices the server within its probe interval, 1 s).
struct AppSyncQueueBenchmark {
    var mutations = 1_000

    static let schema = "type Todo @model { id: ID! name: String! description: String }"

    func run() async throws {
        var configuration = ServerConfiguration()
        configuration.conflictDetection = false
        let backend = try await LocalBackend.start(schema: Self.schema, configuration: configuration)
        let directory = FileManager.default.temporaryDirectory.appending(
            path: "appsync-queue-bench-\(UUID().uuidString)"
        )
        defer { try? FileManager.default.removeItem(at: directory) }
        print("appsync-queue: \(mutations) CreateTodo mutations in order on loopback, same server, same run")

        let session = URLSession(configuration: .ephemeral)
        let clock = ContinuousClock()
        let bare = try await clock.measure {
            for index in 0..<mutations {
                var request = URLRequest(url: backend.endpoint)
                request.httpMethod = "POST"
                request.setValue("application/json", forHTTPHeaderField: "content-type")
                request.setValue(backend.apiKey, forHTTPHeaderField: "x-api-key")
                request.setValue(UUID().uuidString, forHTTPHeaderField: "Idempotency-Key")
                request.httpBody = Self.body(CreateTodoMutation(input: CreateTodoInput(name: "bare \(index)")))
                let (data, _) = try await session.data(for: request)
                precondition(data.count > 20)
            }
        }
        report("bare URLSession POST, sequential", bare)

        let appSyncClient = try makeClient(backend, directory: directory)
        let queued = try await clock.measure {
            try await performAll(appSyncClient, prefix: "queued")
        }
        report("AWSAppSyncClient.perform (queue)", queued)
        print(String(format: "    ratio queue/bare: %.2f", Self.seconds(queued) / Self.seconds(bare)))

        await backend.kill()
        let results = Results()
        let (done, finish) = AsyncStream.makeStream(of: Void.self)
        let total = mutations
        let enqueueing = clock.now
        for index in 0..<mutations {
            appSyncClient.perform(
                mutation: CreateTodoMutation(input: CreateTodoInput(name: "offline \(index)")),
                queue: Self.handlers
            ) { _, _ in
                if results.add() == total { finish.yield() }
            }
        }
        report("enqueue while offline", clock.now - enqueueing)
        try await backend.restart()
        let reconnected = clock.now
        var iterator = done.makeAsyncIterator()
        await iterator.next()
        report("reconnect to empty queue", clock.now - reconnected)
        let left = try appSyncClient.queuedMutationIdentifiers()
        precondition(left.isEmpty, "\(left.count) mutations left in the queue")
        await backend.stop()
    }

    private func makeClient(_ backend: LocalBackend, directory: URL) throws -> AWSAppSyncClient {
        let serviceConfig = AWSAppSyncServiceConfig(
            endpoint: backend.endpoint,
            region: "us-east-1",
            authType: .apiKey,
            apiKey: backend.apiKey
        )
        return try AWSAppSyncClient(
            appSyncConfig: AWSAppSyncClientConfiguration(
                appSyncServiceConfig: serviceConfig,
                cacheConfiguration: AWSAppSyncCacheConfiguration(withRootDirectory: directory)
            )
        )
    }

    /// Queues the mutations and waits for their last result.
    private func performAll(_ appSyncClient: AWSAppSyncClient, prefix: String) async throws {
        let results = Results()
        let (done, finish) = AsyncStream.makeStream(of: Void.self)
        let total = mutations
        for index in 0..<mutations {
            appSyncClient.perform(
                mutation: CreateTodoMutation(input: CreateTodoInput(name: "\(prefix) \(index)")),
                queue: Self.handlers
            ) { result, error in
                precondition(error == nil && result?.errors == nil, "\(String(describing: error))")
                if results.add() == total { finish.yield() }
            }
        }
        var iterator = done.makeAsyncIterator()
        await iterator.next()
    }

    private final class Results: Sendable {
        private let count = Mutex(0)

        @discardableResult
        func add() -> Int {
            count.withLock { count in
                count += 1
                return count
            }
        }
    }

    private static let handlers = DispatchQueue(label: "appsync-queue-bench")

    private static func body(_ mutation: CreateTodoMutation) -> Data {
        var body: [String: JSONValue] = ["query": .string(CreateTodoMutation.operationString)]
        body["variables"] = .object(mutation.variables ?? [:])
        do {
            return try JSONEncoder().encode(JSONValue.object(body))
        } catch {
            preconditionFailure("Cannot encode a CreateTodo request: \(error)")
        }
    }

    private func report(_ name: String, _ elapsed: Duration) {
        let seconds = Self.seconds(elapsed)
        print(
            "    \(name.padding(toLength: 36, withPad: " ", startingAt: 0)) "
                + String(format: "%.3f s, %.0f mutations/s", seconds, Double(mutations) / seconds)
        )
    }

    static func seconds(_ duration: Duration) -> Double {
        let (seconds, attoseconds) = duration.components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
