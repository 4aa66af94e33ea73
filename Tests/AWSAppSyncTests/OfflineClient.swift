import AWSPluginsCore
import Amplify
import Foundation
import MetricsTestKit
import StratusServer
import StratusTesting
import Synchronization
import TodoAPI

@testable import AWSAppSync

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Sends requests with `URLSession`, recording them, and answers the first ones with scripted
/// responses instead when some are given.
final class RecordingTransport: HTTPTransport {
    private let inner = URLSessionTransport()
    private let state = Mutex<(requests: [URLRequest], scripted: [APIResponse])>(([], []))
    private let hold = Mutex<(armed: Bool, held: Bool, released: Bool, waiter: CheckedContinuation<Void, Never>?)>(
        (false, false, false, nil)
    )

    /// Holds the next `POST` until ``release()``.
    func holdNextPost() {
        hold.withLock { $0 = (true, false, false, nil) }
    }

    /// Whether a `POST` is held.
    var isHolding: Bool { hold.withLock { $0.held } }

    /// Sends the held `POST`.
    func release() {
        let waiter = hold.withLock { hold in
            hold.released = true
            defer { hold.waiter = nil }
            return hold.waiter
        }
        waiter?.resume()
    }

    /// The `POST` requests sent so far (probes of the network are `GET`s).
    var posts: [URLRequest] { state.withLock { $0.requests.filter { $0.httpMethod == "POST" } } }

    /// Answers the next `POST`s with `responses`, in order.
    func script(_ responses: [APIResponse]) {
        state.withLock { $0.scripted += responses }
    }

    func send(_ request: URLRequest) async throws -> APIResponse {
        let scripted = state.withLock { state -> APIResponse? in
            state.requests.append(request)
            guard request.httpMethod == "POST", !state.scripted.isEmpty else { return nil }
            return state.scripted.removeFirst()
        }
        if let scripted { return scripted }
        if request.httpMethod == "POST", hold.withLock({ $0.armed }) {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let resumeNow = hold.withLock { hold -> Bool in
                    hold.armed = false
                    hold.held = true
                    if hold.released { return true }
                    hold.waiter = continuation
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        }
        return try await inner.send(request)
    }
}

/// An API key provider whose key can be changed, counting its calls.
final class SwitchableAPIKey: AWSAPIKeyAuthProvider, Sendable {
    private let state: Mutex<(key: String, calls: Int, renewed: String?)>

    /// A provider answering `key`, then `renewed` from its second call on when one is given.
    init(_ key: String, renewed: String? = nil) {
        state = Mutex((key, 0, renewed))
    }

    var key: String {
        get { state.withLock { $0.key } }
        set { state.withLock { $0.key = newValue } }
    }

    var calls: Int { state.withLock { $0.calls } }

    func getAPIKey() -> String {
        state.withLock { state in
            state.calls += 1
            defer {
                if let renewed = state.renewed {
                    state.key = renewed
                    state.renewed = nil
                }
            }
            return state.key
        }
    }
}

/// Records the replayed mutations the delegate hears of.
final class RecordingDelegate: AWSAppSyncOfflineMutationDelegate {
    let calls = Mutex<[(String, String, Snapshot?, String?)]>([])

    func mutationCallback(recordIdentifier: String, operationString: String, snapshot: Snapshot?, error: (any Error)?) {
        calls.withLock { $0.append((recordIdentifier, operationString, snapshot, error.map { "\($0)" })) }
    }
}

/// Clients of the local backend with their caches in a temporary directory, retrying fast.
struct OfflineClients {
    let backend: LocalBackend
    let directory: URL

    static func withBackend(
        conflictDetection: Bool = false,
        _ body: (OfflineClients) async throws -> Void
    ) async throws {
        var configuration = ServerConfiguration()
        configuration.conflictDetection = conflictDetection
        configuration.conflictResolution = .optimisticConcurrency
        let backend = try await LocalBackend.start(schema: TodoSeedTests.schema, configuration: configuration)
        let directory = FileManager.default.temporaryDirectory.appending(path: "appsync-offline-\(UUID().uuidString)")
        let clients = OfflineClients(backend: backend, directory: directory)
        do {
            try await body(clients)
        } catch {
            await backend.stop()
            try? FileManager.default.removeItem(at: directory)
            throw error
        }
        await backend.stop()
        try? FileManager.default.removeItem(at: directory)
    }

    /// A client keyed by `id`, with its three databases in the directory.
    func makeClient(
        apiKey: SwitchableAPIKey? = nil,
        transport: RecordingTransport? = nil,
        delegate: RecordingDelegate? = nil,
        endpoint: URL? = nil,
        ordering: MutationOrdering = .serial,
        metrics: TestMetrics? = nil,
        clock: (@Sendable () -> Date)? = nil
    ) throws -> AWSAppSyncClient {
        let serviceConfig = AWSAppSyncServiceConfig(
            endpoint: endpoint ?? backend.endpoint,
            region: "us-east-1",
            authType: .apiKey,
            apiKey: backend.apiKey
        )
        var configuration = try AWSAppSyncClientConfiguration(
            appSyncServiceConfig: serviceConfig,
            apiKeyAuthProvider: apiKey,
            cacheConfiguration: try AWSAppSyncCacheConfiguration(withRootDirectory: directory),
            offlineMutationDelegate: delegate
        )
        configuration.retryPolicy = MutationRetryPolicy(
            base: .milliseconds(20),
            cap: .milliseconds(400),
            probeInterval: .milliseconds(100)
        )
        configuration.transport = transport
        configuration.metricsFactory = metrics
        if let clock { configuration.clock = clock }
        // A connection that drops in its handshake is given up after five seconds, not fifteen
        // (less would give up on handshakes a loaded machine is merely slow to answer).
        configuration.realTimeConfiguration = AppSyncRealTimeConfiguration(
            initialDelay: .milliseconds(50),
            maximumDelay: .milliseconds(500),
            acknowledgementTimeout: .seconds(5)
        )
        configuration.mutationOrdering = ordering
        configuration.cacheKeyForObject = { $0["id"] }
        return try AWSAppSyncClient(appSyncConfig: configuration)
    }

    /// The queued mutations as `offlineMutations.db` holds them.
    var queued: [QueuedMutation] {
        get throws {
            try OfflineMutationStore.queuedMutations(inDatabaseAt: directory.appending(path: "offlineMutations.db"))
        }
    }

    /// The names of the todos the server holds, sorted.
    func serverNames() async throws -> [String] {
        let result = try await backend.perform(ListTodosQuery())
        return (result.data?.listTodos?.items ?? []).compactMap { $0?.name }.sorted()
    }

    /// Waits until `condition` holds, checking every 20 ms for up to `limit`.
    static func eventually(for limit: Duration = .seconds(30), _ condition: () throws -> Bool) async throws -> Bool {
        let deadline = ContinuousClock.now + limit
        while ContinuousClock.now < deadline {
            if try condition() { return true }
            try await Task.sleep(for: .milliseconds(20))
        }
        return try condition()
    }
}

extension AppSyncClientTests {
    /// The names of a list result's items, in order.
    static func names(_ result: GraphQLResult<ListTodosQuery.Data>?) -> [String] {
        (result?.data?.listTodos?.items ?? []).compactMap { $0?.name }
    }
}
