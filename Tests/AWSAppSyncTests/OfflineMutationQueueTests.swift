import AWSPluginsCore
import Amplify
import Foundation
import StratusTesting
import Synchronization
import Testing
import TodoAPI

@testable import AWSAppSync

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The offline mutation queue: durable, in order, retried by the rules, each attempt carrying
/// its `Idempotency-Key`.
@Suite struct OfflineMutationQueueTests {
    @Test(.timeLimit(.minutes(1))) func queuedMutationsSurviveAnOutageAndAreSentInOrderWithTheirKey() async throws {
        try await OfflineClients.withBackend { clients in
            let transport = RecordingTransport()
            let appSyncClient = try clients.makeClient(transport: transport)
            await clients.backend.kill()

            let calls = HandlerCalls<GraphQLResult<CreateTodoMutation.Data>>()
            var iterator = calls.stream.makeAsyncIterator()
            let operations = ["First", "Second", "Third"].map { name in
                appSyncClient.perform(
                    mutation: CreateTodoMutation(input: CreateTodoInput(name: name)),
                    queue: calls.queue,
                    resultHandler: calls.handler
                )
            }
            // On disk, in order, when perform returns.
            let identifiers = operations.map(\.identifier)
            #expect(try appSyncClient.queuedMutationIdentifiers() == identifiers)
            #expect(try clients.queued.map(\.id) == identifiers)
            #expect(try clients.queued.map(\.operationName) == ["CreateTodo", "CreateTodo", "CreateTodo"])

            // The first one fails while the server is away, and is counted.
            #expect(try await OfflineClients.eventually { try clients.queued.first?.attempts ?? 0 >= 2 })
            let first = try #require(try clients.queued.first)
            #expect(first.id == identifiers[0])
            #expect(
                first.lastError?.hasPrefix("The request to \(clients.backend.endpoint.absoluteString) failed: ") == true
            )
            #expect(first.lastError?.hasSuffix(" Check the network and that the server is running.") == true)
            #expect(try clients.queued.dropFirst().allSatisfy { $0.attempts == 0 })

            try await clients.backend.restart()
            var names: [String] = []
            for _ in 0..<3 {
                let (result, error) = try await calls.next(&iterator)
                #expect(error == nil)
                #expect(result?.errors == nil)
                names.append(result?.data?.createTodo?.name ?? "")
            }
            #expect(names == ["First", "Second", "Third"])
            #expect(try appSyncClient.queuedMutationIdentifiers() == [])
            #expect(try await clients.serverNames() == ["First", "Second", "Third"])

            // Every attempt carried the mutation's durable id; each was sent only after the one
            // before it was answered.
            let keys = transport.posts.map { $0.value(forHTTPHeaderField: "Idempotency-Key") }
            #expect(keys.allSatisfy { $0 != nil })
            var firstSeen: [String] = []
            for case let key? in keys where !firstSeen.contains(key) { firstSeen.append(key) }
            #expect(firstSeen == identifiers)
            #expect(keys.suffix(2) == [identifiers[1], identifiers[2]])
        }
    }

    @Test(.timeLimit(.minutes(1))) func waitingForAnEmptyQueueEndsOnlyOnceTheServerHasEveryMutation() async throws {
        try await OfflineClients.withBackend { clients in
            let transport = RecordingTransport()
            transport.holdNextPost()
            let appSyncClient = try clients.makeClient(transport: transport)
            // Already empty: it returns at once.
            try await appSyncClient.waitUntilMutationQueueIsEmpty()
            for name in ["First", "Second", "Third"] {
                appSyncClient.perform(
                    mutation: CreateTodoMutation(input: CreateTodoInput(name: name)),
                    resultHandler: nil
                )
            }
            let waited = Mutex(false)
            let drained = Task {
                try await appSyncClient.waitUntilMutationQueueIsEmpty()
                waited.withLock { $0 = true }
                // What the server holds the moment the wait ends.
                return try await clients.serverNames()
            }
            #expect(try await OfflineClients.eventually { transport.isHolding })
            #expect(!waited.withLock { $0 })
            #expect(try appSyncClient.queuedMutationIdentifiers().count == 3)
            transport.release()
            #expect(try await drained.value == ["First", "Second", "Third"])
            #expect(try appSyncClient.queuedMutationIdentifiers() == [])

            // A cancelled wait ends with CancellationError, the mutation left queued.
            await clients.backend.kill()
            appSyncClient.perform(
                mutation: CreateTodoMutation(input: CreateTodoInput(name: "Fourth")),
                resultHandler: nil
            )
            let cancelled = Task { try await appSyncClient.waitUntilMutationQueueIsEmpty() }
            cancelled.cancel()
            await #expect(throws: CancellationError.self) { try await cancelled.value }
            #expect(try appSyncClient.queuedMutationIdentifiers().count == 1)
        }
    }

    @Test(.timeLimit(.minutes(1))) func mutationsLeftByAnEndedClientAreReplayedToTheDelegateAndTheSequence()
        async throws
    {
        try await OfflineClients.withBackend { clients in
            await clients.backend.kill()
            var ended: AWSAppSyncClient? = try clients.makeClient()
            let first = ended?.perform(
                mutation: CreateTodoMutation(input: CreateTodoInput(id: "r1", name: "One")),
                resultHandler: nil
            )
            let second = ended?.perform(
                mutation: CreateTodoMutation(input: CreateTodoInput(id: "r2", name: "Two")),
                resultHandler: nil
            )
            ended = nil
            #expect(try clients.queued.map(\.id) == [first?.identifier, second?.identifier].compactMap { $0 })

            try await clients.backend.restart()
            let delegate = RecordingDelegate()
            let appSyncClient = try clients.makeClient(delegate: delegate)
            var replayed: [OfflineMutationResult] = []
            for await result in appSyncClient.offlineMutationResults {
                replayed.append(result)
                if replayed.count == 2 { break }
            }
            #expect(replayed.map(\.recordIdentifier) == [first?.identifier, second?.identifier].compactMap { $0 })
            #expect(replayed.map(\.operationName) == ["CreateTodo", "CreateTodo"])
            #expect(
                replayed.map(\.operationString) == [
                    CreateTodoMutation.operationString, CreateTodoMutation.operationString,
                ]
            )
            #expect(replayed.map { $0.snapshot?["createTodo"]?.objectValue?["name"] } == ["One", "Two"])
            #expect(replayed.allSatisfy { $0.errors == nil && $0.error == nil })
            let heard = delegate.calls.withLock { $0 }
            #expect(heard.map(\.0) == replayed.map(\.recordIdentifier))
            #expect(heard.map(\.1) == [CreateTodoMutation.operationString, CreateTodoMutation.operationString])
            #expect(heard.map { $0.2?["createTodo"]?.objectValue?["id"] } == ["r1", "r2"])
            #expect(heard.allSatisfy { $0.3 == nil })
            // A replay is reported, then removed from the queue.
            #expect(try await OfflineClients.eventually { try clients.queued.isEmpty })
            #expect(try await clients.serverNames() == ["One", "Two"])
        }
    }

    @Test(.timeLimit(.minutes(1))) func aReplayedMutationUpdatesTheCacheAndItsWatchers() async throws {
        try await OfflineClients.withBackend { clients in
            _ = try await clients.backend.perform(CreateTodoMutation(input: CreateTodoInput(id: "t1", name: "Milk")))
            var ended: AWSAppSyncClient? = try clients.makeClient()
            let fetched = try await ended?.fetch(query: ListTodosQuery())
            #expect(AppSyncClientTests.names(fetched) == ["Milk"])
            await clients.backend.kill()
            ended?.perform(
                mutation: UpdateTodoMutation(input: UpdateTodoInput(id: "t1", name: "Oat milk")),
                resultHandler: nil
            )
            ended = nil
            #expect(try clients.queued.map(\.operationName) == ["UpdateTodo"])

            // The next run watches the list from the cache before the server is back.
            let appSyncClient = try clients.makeClient()
            let calls = HandlerCalls<GraphQLResult<ListTodosQuery.Data>>()
            var iterator = calls.stream.makeAsyncIterator()
            let watcher = appSyncClient.watch(
                query: ListTodosQuery(),
                cachePolicy: .returnCacheDataDontFetch,
                queue: calls.queue,
                resultHandler: calls.handler
            )
            let initial = try await calls.next(&iterator)
            #expect(AppSyncClientTests.names(initial.0) == ["Milk"])

            try await clients.backend.restart()
            let changed = try await calls.next(&iterator)
            watcher.cancel()
            #expect(changed.1 == nil)
            #expect(changed.0?.source == .cache)
            #expect(AppSyncClientTests.names(changed.0) == ["Oat milk"])
            // The todo's record holds the server's answer; as for a live mutation, MUTATION_ROOT
            // is not kept.
            let (todo, root) = try appSyncClient.store!.withinReadTransaction { transaction in
                (try transaction.record("t1"), try transaction.record("MUTATION_ROOT"))
            }.get()
            #expect(todo?["name"] == "Oat milk")
            #expect(root == nil)
            // The cache and its watchers hear of the answer before the mutation leaves the queue.
            #expect(try await OfflineClients.eventually { try clients.queued.isEmpty })
        }
    }

    @Test(.timeLimit(.minutes(1))) func perRecordOrderingSendsOtherRecordsWhileOneWaits() async throws {
        try await OfflineClients.withBackend { clients in
            let transport = RecordingTransport()
            let appSyncClient = try clients.makeClient(transport: transport, ordering: .perRecord(maxConcurrent: 4))
            let calls = HandlerCalls<String>()
            var iterator = calls.stream.makeAsyncIterator()
            transport.holdNextPost()
            appSyncClient.perform(
                mutation: CreateTodoMutation(input: CreateTodoInput(id: "a", name: "A1")),
                queue: calls.queue
            ) { result, error in calls.handler(result?.data?.createTodo?.name, error) }
            #expect(try await OfflineClients.eventually { transport.isHolding })
            appSyncClient.perform(
                mutation: UpdateTodoMutation(input: UpdateTodoInput(id: "a", name: "A2")),
                queue: calls.queue
            ) { result, error in calls.handler(result?.data?.updateTodo?.name, error) }
            appSyncClient.perform(
                mutation: CreateTodoMutation(input: CreateTodoInput(id: "b", name: "B1")),
                queue: calls.queue
            ) { result, error in calls.handler(result?.data?.createTodo?.name, error) }

            // B1 goes while A1 is held; A2 waits for A1.
            let first = try await calls.next(&iterator)
            #expect(first.0 == "B1")
            #expect(first.1 == nil)
            #expect(transport.posts.count == 2)
            #expect(transport.isHolding)
            transport.release()
            var rest: [String?] = []
            for _ in 0..<2 { rest.append(try await calls.next(&iterator).0) }
            #expect(rest == ["A1", "A2"])
            #expect(try await clients.serverNames() == ["A2", "B1"])
            #expect(try appSyncClient.queuedMutationIdentifiers() == [])
        }
    }

    @Test(.timeLimit(.minutes(1))) func perRecordOrderingSendsAMutationWithoutARecordAlone() async throws {
        try await OfflineClients.withBackend { clients in
            let transport = RecordingTransport()
            let appSyncClient = try clients.makeClient(transport: transport, ordering: .perRecord(maxConcurrent: 4))
            let calls = HandlerCalls<String>()
            var iterator = calls.stream.makeAsyncIterator()
            transport.holdNextPost()
            // No id: the server picks it, so nothing tells which record it writes.
            appSyncClient.perform(
                mutation: CreateTodoMutation(input: CreateTodoInput(name: "Anonymous")),
                queue: calls.queue
            ) { result, error in calls.handler(result?.data?.createTodo?.name, error) }
            #expect(try await OfflineClients.eventually { transport.isHolding })
            appSyncClient.perform(
                mutation: CreateTodoMutation(input: CreateTodoInput(id: "c", name: "C1")),
                queue: calls.queue
            ) { result, error in calls.handler(result?.data?.createTodo?.name, error) }
            try await Task.sleep(for: .milliseconds(200))
            #expect(transport.posts.count == 1)
            transport.release()
            var names: [String?] = []
            for _ in 0..<2 { names.append(try await calls.next(&iterator).0) }
            #expect(names == ["Anonymous", "C1"])
        }
    }

    @Test func theRecordOfAMutationIsItsInputIdOrIdVariable() {
        #expect(MutationOrdering.recordKey(of: ["input": ["id": "t1", "name": "Milk"]]) == "t1")
        #expect(MutationOrdering.recordKey(of: ["id": .integer(7)]) == "7")
        #expect(MutationOrdering.recordKey(of: ["input": ["name": "Milk"]]) == nil)
        #expect(MutationOrdering.recordKey(of: nil) == nil)
        #expect(MutationOrdering.serial == MutationOrdering(maxConcurrent: 1, isPerRecord: false))
    }

    @Test(.timeLimit(.minutes(1))) func a401FetchesTheKeyAgainAndRetriesInsteadOfDropping() async throws {
        try await OfflineClients.withBackend { clients in
            // The server refuses the expired key with 401; the provider has the new one by the
            // time it is asked again.
            let apiKey = SwitchableAPIKey("da2-expired", renewed: clients.backend.apiKey)
            let transport = RecordingTransport()
            let appSyncClient = try clients.makeClient(apiKey: apiKey, transport: transport)
            let result = try await appSyncClient.perform(
                mutation: CreateTodoMutation(input: CreateTodoInput(name: "Kept"))
            )
            #expect(result.data?.createTodo?.name == "Kept")
            #expect(apiKey.calls == 2)
            #expect(transport.posts.count == 2)
            #expect(
                transport.posts.map { $0.value(forHTTPHeaderField: "x-api-key") } == [
                    "da2-expired", clients.backend.apiKey,
                ]
            )
            #expect(try await clients.serverNames() == ["Kept"])
        }
    }

    @Test(.timeLimit(.minutes(1))) func a429IsRetriedAfterItsRetryAfterAndA5xxByBackoff() async throws {
        try await OfflineClients.withBackend { clients in
            let transport = RecordingTransport()
            let appSyncClient = try clients.makeClient(transport: transport)
            transport.script([
                APIResponse(statusCode: 429, headers: ["Retry-After": "1"], body: Data("Slow down".utf8)),
                APIResponse(statusCode: 503, headers: [:], body: Data()),
            ])
            let started = ContinuousClock.now
            let result = try await appSyncClient.perform(
                mutation: CreateTodoMutation(input: CreateTodoInput(name: "Later"))
            )
            #expect(ContinuousClock.now - started >= .seconds(1))
            #expect(result.data?.createTodo?.name == "Later")
            #expect(transport.posts.count == 3)
            #expect(Set(transport.posts.map { $0.value(forHTTPHeaderField: "Idempotency-Key") }).count == 1)
        }
    }

    @Test(.timeLimit(.minutes(1))) func aRefusalEndsTheMutationWithTheServersReason() async throws {
        try await OfflineClients.withBackend { clients in
            let transport = RecordingTransport()
            let appSyncClient = try clients.makeClient(transport: transport)
            transport.script([
                APIResponse(
                    statusCode: 400,
                    headers: [:],
                    body: Data(#"{"errors":[{"errorType":"BadRequestException","message":"Bad input"}]}"#.utf8)
                )
            ])
            let error = await #expect(throws: AWSAppSyncClientError.self) {
                try await appSyncClient.perform(mutation: CreateTodoMutation(input: CreateTodoInput(name: "Refused")))
            }
            #expect(error?.statusCode == 400)
            #expect(
                error?.message
                    == "\(clients.backend.endpoint.absoluteString) refused CreateTodo with HTTP 400: "
                    + "BadRequestException: Bad input. Check ApiUrl in awsconfiguration.json and the server's logs."
            )
            #expect(try appSyncClient.queuedMutationIdentifiers() == [])
            #expect(transport.posts.count == 1)
        }
    }

    @Test func theRetryDelayDoublesUpToItsCapWithJitterAndRetryAfterIsRead() {
        let policy = MutationRetryPolicy()
        #expect(policy.delay(afterFailures: 1, random: 0) == .milliseconds(100))
        #expect(policy.delay(afterFailures: 2, random: 0) == .milliseconds(200))
        #expect(policy.delay(afterFailures: 4, random: 0.5) == .milliseconds(850))
        #expect(policy.delay(afterFailures: 12, random: 0) == .milliseconds(204_800))
        #expect(policy.delay(afterFailures: 13, random: 0) == .seconds(300))
        #expect(policy.delay(afterFailures: 500, random: 0.99) == .seconds(300) + .milliseconds(99))
        let now = Date(timeIntervalSince1970: 1_700_000_000)
        #expect(RetryAfter(headers: ["Retry-After": "7"], now: now)?.delay == .seconds(7))
        #expect(RetryAfter(headers: ["retry-after": " 0 "], now: now)?.delay == .zero)
        #expect(
            RetryAfter(headers: ["Retry-After": "Tue, 14 Nov 2023 22:13:30 GMT"], now: now)?.delay == .seconds(10)
        )
        #expect(RetryAfter(headers: ["Retry-After": "soon"], now: now)?.delay == nil)
        #expect(RetryAfter(headers: [:], now: now)?.delay == nil)
    }
}
