import AWSPluginsCore
import Amplify
import Dispatch
import Foundation
import StratusServer
import StratusTesting
import Testing
import TodoAPI

@testable import AWSAppSync

/// Handler calls collected in order, with whether each ran on the expected queue.
final class HandlerCalls<Value: Sendable>: Sendable {
    let stream: AsyncStream<(Value?, (any Error)?, Bool)>
    private let continuation: AsyncStream<(Value?, (any Error)?, Bool)>.Continuation
    let queue: DispatchQueue
    private let marker = UUID().uuidString
    private let specificKey = DispatchSpecificKey<String>()

    init() {
        (stream, continuation) = AsyncStream.makeStream()
        queue = DispatchQueue(label: "appsync-tests.handlers")
        queue.setSpecific(key: specificKey, value: marker)
    }

    /// A handler that records its calls.
    var handler: @Sendable (Value?, (any Error)?) -> Void {
        { [continuation, specificKey, marker] value, error in
            continuation.yield((value, error, DispatchQueue.getSpecific(key: specificKey) == marker))
        }
    }

    /// A handler that records its calls without checking the queue: for the subscription's
    /// result handler, which runs inside the cache's write while `queue` waits for it.
    var handlerOnAnyQueue: @Sendable (Value?, (any Error)?) -> Void {
        { [continuation] value, error in
            continuation.yield((value, error, true))
        }
    }

    /// The next call.
    func next(
        _ iterator: inout AsyncStream<(Value?, (any Error)?, Bool)>.AsyncIterator
    ) async throws -> (
        Value?, (any Error)?
    ) {
        let call = try #require(await iterator.next())
        #expect(call.2, "The handler ran on another queue than the one given.")
        return (call.0, call.1)
    }
}

/// The AppSync client against the local backend serving the guide's Todo API.
@Suite struct AppSyncClientTests {
    static func makeClient(_ backend: LocalBackend, cacheKeyedById: Bool = true) throws -> AWSAppSyncClient {
        let serviceConfig = AWSAppSyncServiceConfig(
            endpoint: backend.endpoint,
            region: "us-east-1",
            authType: .apiKey,
            apiKey: backend.apiKey
        )
        let appSyncConfig = try AWSAppSyncClientConfiguration(appSyncServiceConfig: serviceConfig)
        let appSyncClient = try AWSAppSyncClient(appSyncConfig: appSyncConfig)
        if cacheKeyedById {
            appSyncClient.apolloClient?.cacheKeyForObject = { $0["id"] }
        }
        return appSyncClient
    }

    /// Runs `body` with a backend serving the Todo API and a client for it, stopping the
    /// backend afterwards whatever happens.
    static func withClient(
        cacheKeyedById: Bool = true,
        _ body: (LocalBackend, AWSAppSyncClient) async throws -> Void
    ) async throws {
        // The guide's API, made with `amplify add api`, has no conflict detection: updates need
        // no `_version`.
        var configuration = ServerConfiguration()
        configuration.conflictDetection = false
        let backend = try await LocalBackend.start(schema: TodoSeedTests.schema, configuration: configuration)
        do {
            try await body(backend, try makeClient(backend, cacheKeyedById: cacheKeyedById))
        } catch {
            await backend.stop()
            throw error
        }
        await backend.stop()
    }

    @Test(.timeLimit(.minutes(1))) func theGuidesMutationAndQueryRunOnTheGivenQueue() async throws {
        try await Self.withClient { _, appSyncClient in
            let mutations = HandlerCalls<GraphQLResult<CreateTodoMutation.Data>>()
            var mutationCalls = mutations.stream.makeAsyncIterator()
            let mutationInput = CreateTodoInput(name: "Use AppSync", description: "Realtime and Offline")
            appSyncClient.perform(mutation: CreateTodoMutation(input: mutationInput), queue: mutations.queue) {
                (result, error) in
                mutations.handler(result, error)
            }
            let (created, mutationError) = try await mutations.next(&mutationCalls)
            #expect(mutationError == nil)
            #expect(created?.errors == nil)
            #expect(created?.data?.createTodo?.name == "Use AppSync")

            let queries = HandlerCalls<GraphQLResult<ListTodosQuery.Data>>()
            var queryCalls = queries.stream.makeAsyncIterator()
            appSyncClient.fetch(query: ListTodosQuery(), queue: queries.queue, resultHandler: queries.handler)
            let (result, error) = try await queries.next(&queryCalls)
            #expect(error == nil)
            #expect(result?.source == .server)
            var printed: [String] = []
            // swift-format-ignore: ReplaceForEachWithForLoop
            // The guide's own line.
            result?.data?.listTodos?.items!.forEach { printed.append(($0?.name)! + " " + ($0?.description)!) }
            #expect(printed == ["Use AppSync Realtime and Offline"])
        }
    }

    @Test(.timeLimit(.minutes(1))) func eachCachePolicyReadsAndWritesTheCacheAsDocumented() async throws {
        try await Self.withClient { backend, appSyncClient in
            let calls = HandlerCalls<GraphQLResult<ListTodosQuery.Data>>()
            var iterator = calls.stream.makeAsyncIterator()
            func names(_ result: GraphQLResult<ListTodosQuery.Data>?) -> [String] {
                (result?.data?.listTodos?.items ?? []).compactMap { $0?.name }.sorted()
            }
            _ = try await backend.perform(CreateTodoMutation(input: CreateTodoInput(id: "a", name: "A")))

            // A miss without fetching: (nil, nil), once.
            appSyncClient.fetch(
                query: ListTodosQuery(),
                cachePolicy: .returnCacheDataDontFetch,
                queue: calls.queue,
                resultHandler: calls.handler
            )
            let miss = try await calls.next(&iterator)
            #expect(miss.0 == nil)
            #expect(miss.1 == nil)

            // The default policy fetches on a miss and answers from the cache afterwards.
            appSyncClient.fetch(query: ListTodosQuery(), queue: calls.queue, resultHandler: calls.handler)
            let fetched = try await calls.next(&iterator)
            #expect(fetched.0?.source == .server)
            #expect(names(fetched.0) == ["A"])
            _ = try await backend.perform(CreateTodoMutation(input: CreateTodoInput(id: "b", name: "B")))
            appSyncClient.fetch(query: ListTodosQuery(), queue: calls.queue, resultHandler: calls.handler)
            let cached = try await calls.next(&iterator)
            #expect(cached.0?.source == .cache)
            #expect(names(cached.0) == ["A"])

            // Ignoring the cache fetches, and writes what it fetched.
            appSyncClient.fetch(
                query: ListTodosQuery(),
                cachePolicy: .fetchIgnoringCacheData,
                queue: calls.queue,
                resultHandler: calls.handler
            )
            let ignoring = try await calls.next(&iterator)
            #expect(ignoring.0?.source == .server)
            #expect(names(ignoring.0) == ["A", "B"])

            // Cache and fetch: the cache's data, then the server's.
            _ = try await backend.perform(CreateTodoMutation(input: CreateTodoInput(id: "c", name: "C")))
            appSyncClient.fetch(
                query: ListTodosQuery(),
                cachePolicy: .returnCacheDataAndFetch,
                queue: calls.queue,
                resultHandler: calls.handler
            )
            let first = try await calls.next(&iterator)
            let second = try await calls.next(&iterator)
            #expect(first.0?.source == .cache)
            #expect(names(first.0) == ["A", "B"])
            #expect(second.0?.source == .server)
            #expect(names(second.0) == ["A", "B", "C"])
            let stored = try await appSyncClient.fetch(query: ListTodosQuery(), cachePolicy: .returnCacheDataDontFetch)
            #expect(stored.source == .cache)
            #expect(names(stored) == ["A", "B", "C"])
        }
    }

    @Test(.timeLimit(.minutes(1))) func theAsyncFetchReportsAMissAsAnError() async throws {
        try await Self.withClient { _, appSyncClient in
            let error = await #expect(throws: AWSAppSyncClientError.self) {
                try await appSyncClient.fetch(query: GetTodoQuery(id: "t1"), cachePolicy: .returnCacheDataDontFetch)
            }
            #expect(error?.code == .cacheMiss)
            #expect(
                error?.message
                    == "The cache does not hold the data of GetTodo, and the cache policy is .returnCacheDataDontFetch. "
                    + "Fetch it with another cache policy first."
            )
        }
    }

    @Test(.timeLimit(.minutes(1))) func getTodoAndListTodosShareARecordKeyedById() async throws {
        try await Self.withClient { backend, appSyncClient in
            _ = try await backend.perform(CreateTodoMutation(input: CreateTodoInput(id: "t1", name: "Milk")))
            _ = try await appSyncClient.fetch(query: ListTodosQuery(), cachePolicy: .fetchIgnoringCacheData)
            let update = try await backend.perform(
                UpdateTodoMutation(input: UpdateTodoInput(id: "t1", name: "Oat milk"))
            )
            #expect(update.errors == nil)
            #expect(update.data?.updateTodo?.name == "Oat milk")
            let got = try await appSyncClient.fetch(query: GetTodoQuery(id: "t1"), cachePolicy: .fetchIgnoringCacheData)
            #expect(got.data?.getTodo?.name == "Oat milk")

            // The list reads the record the get wrote.
            let list = try await appSyncClient.fetch(query: ListTodosQuery(), cachePolicy: .returnCacheDataDontFetch)
            #expect(list.data?.listTodos?.items?.first??.name == "Oat milk")

            let records = try #require(appSyncClient.store).withinReadTransaction { transaction in
                (try transaction.record("QUERY_ROOT"), try transaction.record("t1"))
            }
            let (root, todo) = try records.get()
            #expect(root?["getTodo(id:t1)"] == ["$reference": "t1"])
            #expect(root?["listTodos"] == ["$reference": "QUERY_ROOT.listTodos"])
            #expect(todo?["name"] == "Oat milk")
            #expect(todo?["__typename"] == "Todo")
        }
    }

    @Test(.timeLimit(.minutes(1))) func withoutCacheKeysObjectsAreKeyedByTheirPath() async throws {
        try await Self.withClient(cacheKeyedById: false) { backend, appSyncClient in
            _ = try await backend.perform(CreateTodoMutation(input: CreateTodoInput(id: "t1", name: "Milk")))
            _ = try await appSyncClient.fetch(query: ListTodosQuery(limit: 10), cachePolicy: .fetchIgnoringCacheData)
            _ = try await backend.perform(UpdateTodoMutation(input: UpdateTodoInput(id: "t1", name: "Oat milk")))
            _ = try await appSyncClient.fetch(query: GetTodoQuery(id: "t1"), cachePolicy: .fetchIgnoringCacheData)
            let list = try await appSyncClient.fetch(
                query: ListTodosQuery(limit: 10),
                cachePolicy: .returnCacheDataDontFetch
            )
            #expect(list.data?.listTodos?.items?.first??.name == "Milk")
            let item = try appSyncClient.store!.withinReadTransaction { transaction in
                try transaction.record("QUERY_ROOT.listTodos(limit:10).items.0")
            }.get()
            #expect(item?["name"] == "Milk")
        }
    }

    @Test(.timeLimit(.minutes(1))) func theDefaultMainQueueRunsHandlersWhileAnAsyncProgramAwaits() async throws {
        // The test runner's entry point is async, as a command-line program's `main` can be:
        // the main queue is drained while it awaits (by a thread of its own on Linux, as
        // `dispatchMain()` does).
        try await Self.withClient { _, appSyncClient in
            let key = DispatchSpecificKey<String>()
            let marker = UUID().uuidString
            DispatchQueue.main.setSpecific(key: key, value: marker)
            defer { DispatchQueue.main.setSpecific(key: key, value: nil) }
            let (stream, continuation) = AsyncStream.makeStream(of: String.self)
            appSyncClient.fetch(query: ListTodosQuery()) { result, error in
                let onMain = DispatchQueue.getSpecific(key: key) == marker
                continuation.yield(
                    "main queue: \(onMain), result: \(result != nil), error: \(String(describing: error))"
                )
            }
            var iterator = stream.makeAsyncIterator()
            let call = await iterator.next()
            #expect(call == "main queue: true, result: true, error: nil")
        }
    }
}
