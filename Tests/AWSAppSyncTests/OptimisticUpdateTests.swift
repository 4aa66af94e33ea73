import AWSPluginsCore
import Foundation
import StratusTesting
import Synchronization
import Testing
import TodoAPI

@testable import AWSAppSync

/// Optimistic updates as a layer over the cache, conflicts, cancels and clearing the caches.
@Suite struct OptimisticUpdateTests {
    /// A server holding Milk (`t1`), and a client whose cache holds the list and Milk.
    static func withPrimedClient(
        conflictDetection: Bool = false,
        _ body: (OfflineClients, AWSAppSyncClient, SwitchableAPIKey, RecordingTransport) async throws -> Void
    ) async throws {
        try await OfflineClients.withBackend(conflictDetection: conflictDetection) { clients in
            _ = try await clients.backend.perform(CreateTodoMutation(input: CreateTodoInput(id: "t1", name: "Milk")))
            let apiKey = SwitchableAPIKey(clients.backend.apiKey)
            let transport = RecordingTransport()
            let appSyncClient = try clients.makeClient(apiKey: apiKey, transport: transport)
            _ = try await appSyncClient.fetch(query: ListTodosQuery(), cachePolicy: .fetchIgnoringCacheData)
            _ = try await appSyncClient.fetch(query: GetTodoQuery(id: "t1"), cachePolicy: .fetchIgnoringCacheData)
            try await body(clients, appSyncClient, apiKey, transport)
        }
    }

    /// Watches the list and Milk from the cache.
    final class Watchers: Sendable {
        let list = HandlerCalls<GraphQLResult<ListTodosQuery.Data>>()
        let todo = HandlerCalls<GraphQLResult<GetTodoQuery.Data>>()
        let watchers: [any Cancellable]

        init(_ appSyncClient: AWSAppSyncClient) {
            watchers = [
                appSyncClient.watch(
                    query: ListTodosQuery(),
                    cachePolicy: .returnCacheDataDontFetch,
                    queue: list.queue,
                    resultHandler: list.handler
                ),
                appSyncClient.watch(
                    query: GetTodoQuery(id: "t1"),
                    cachePolicy: .returnCacheDataDontFetch,
                    queue: todo.queue,
                    resultHandler: todo.handler
                ),
            ]
        }

        deinit {
            for watcher in watchers { watcher.cancel() }
        }
    }

    /// Writes Milk's new name and a pending item through `transaction`.
    static func optimisticUpdate(_ transaction: ReadWriteTransaction?) {
        do {
            try transaction?.update(query: ListTodosQuery()) { (data: inout ListTodosQuery.Data) in
                data.listTodos?.items?[0]?.name = "Milk (saving)"
                data.listTodos?.items?.append(ListTodosQuery.Data.ListTodo.Item(id: "pending", name: "Pending"))
            }
        } catch {
            Issue.record("The optimistic update failed: \(error)")
        }
    }

    enum Refusal: String, CaseIterable, Sendable {
        case authorization, validation, conditionalCheck
    }

    @Test(.timeLimit(.minutes(1)), arguments: Refusal.allCases)
    func aRefusedMutationLeavesTheCacheAndEveryWatcherAsBefore(refusal: Refusal) async throws {
        try await Self.withPrimedClient { clients, appSyncClient, apiKey, _ in
            let watchers = Watchers(appSyncClient)
            var list = watchers.list.stream.makeAsyncIterator()
            var todo = watchers.todo.stream.makeAsyncIterator()
            #expect(AppSyncClientTests.names(try await watchers.list.next(&list).0) == ["Milk"])
            #expect(try await watchers.todo.next(&todo).0?.data?.getTodo?.name == "Milk")

            let mutation: UpdateTodoMutation
            switch refusal {
            case .authorization:
                apiKey.key = "da2-revoked"
                mutation = UpdateTodoMutation(input: UpdateTodoInput(id: "t1", name: "Oat milk"))
            case .validation:
                mutation = UpdateTodoMutation(input: UpdateTodoInput(graphQLMap: ["id": "t1", "name": 5]))
            case .conditionalCheck:
                mutation = UpdateTodoMutation(
                    input: UpdateTodoInput(id: "t1", name: "Oat milk"),
                    condition: ModelTodoConditionInput(name: ModelStringInput(eq: "Soy milk"))
                )
            }
            let calls = HandlerCalls<GraphQLResult<UpdateTodoMutation.Data>>()
            var iterator = calls.stream.makeAsyncIterator()
            appSyncClient.perform(
                mutation: mutation,
                queue: calls.queue,
                optimisticUpdate: Self.optimisticUpdate,
                resultHandler: calls.handler
            )
            // Seen at once by both watchers…
            #expect(AppSyncClientTests.names(try await watchers.list.next(&list).0) == ["Milk (saving)", "Pending"])
            #expect(try await watchers.todo.next(&todo).0?.data?.getTodo?.name == "Milk (saving)")

            let (result, error) = try await calls.next(&iterator)
            switch refusal {
            case .authorization:
                let refused = try #require(error as? AWSAppSyncClientError)
                #expect(refused.statusCode == 401)
                #expect(
                    refused.message
                        == "\(clients.backend.endpoint.absoluteString) refused UpdateTodo with HTTP 401: "
                        + "UnauthorizedException: You are not authorized to make this call. "
                        + "Check the API_KEY key, token or credentials the client sends."
                )
                #expect(apiKey.calls >= 4)
            case .validation:
                #expect(error == nil)
                #expect(result?.data == nil)
                #expect(
                    result?.errors?.map(\.message) == [
                        #"Variable "$input" got invalid value "{"id":"t1","name":5}"."#
                            + "\n" + #"In field "name": Expected type "String", found 5."#
                    ]
                )
            case .conditionalCheck:
                #expect(error == nil)
                #expect(result?.data?.updateTodo == nil)
                #expect(
                    result?.errors?.map(\.message) == [
                        "The conditional request failed (Service: DynamoDb, Status Code: 400)"
                    ]
                )
            }
            // …and rolled back for both.
            #expect(AppSyncClientTests.names(try await watchers.list.next(&list).0) == ["Milk"])
            #expect(try await watchers.todo.next(&todo).0?.data?.getTodo?.name == "Milk")
            let cached = try await appSyncClient.fetch(query: ListTodosQuery(), cachePolicy: .returnCacheDataDontFetch)
            #expect(AppSyncClientTests.names(cached) == ["Milk"])
            #expect(try appSyncClient.queuedMutationIdentifiers() == [])
            #expect(try await clients.serverNames() == ["Milk"])
        }
    }

    @Test(.timeLimit(.minutes(1))) func theServersAnswerIsWrittenOverTheAcceptedLayer() async throws {
        try await Self.withPrimedClient { clients, appSyncClient, _, _ in
            let watchers = Watchers(appSyncClient)
            var todo = watchers.todo.stream.makeAsyncIterator()
            #expect(try await watchers.todo.next(&todo).0?.data?.getTodo?.name == "Milk")
            let result = try await appSyncClient.perform(
                mutation: UpdateTodoMutation(input: UpdateTodoInput(id: "t1", name: "Oat milk")),
                optimisticUpdate: Self.optimisticUpdate
            )
            #expect(result.data?.updateTodo?.name == "Oat milk")
            #expect(try await watchers.todo.next(&todo).0?.data?.getTodo?.name == "Milk (saving)")
            #expect(try await watchers.todo.next(&todo).0?.data?.getTodo?.name == "Oat milk")
            // The layer is part of the records now: the pending item stays, Milk has the
            // server's name.
            let cached = try await appSyncClient.fetch(query: ListTodosQuery(), cachePolicy: .returnCacheDataDontFetch)
            #expect(AppSyncClientTests.names(cached) == ["Oat milk", "Pending"])
            #expect(try appSyncClient.store?.withinReadTransaction { try OptimisticLayers.exist($0.db) }.get() == false)
        }
    }

    /// Appends Eggs (`t2`) to the list through `transaction`, marked as being saved, as the
    /// example app adds a todo.
    static func appendEggs(_ transaction: ReadWriteTransaction?) {
        do {
            try transaction?.update(query: ListTodosQuery()) { (data: inout ListTodosQuery.Data) in
                data.listTodos?.items?.append(
                    ListTodosQuery.Data.ListTodo.Item(id: "t2", name: "Eggs", description: "saving")
                )
            }
        } catch {
            Issue.record("The optimistic update failed: \(error)")
        }
    }

    static let createEggs = CreateTodoMutation(input: CreateTodoInput(id: "t2", name: "Eggs"))

    /// The list's items in the cache, as name and description.
    static func cachedItems(_ appSyncClient: AWSAppSyncClient) async throws -> [String] {
        let cached = try await appSyncClient.fetch(query: ListTodosQuery(), cachePolicy: .returnCacheDataDontFetch)
        return (cached.data?.listTodos?.items ?? []).compactMap { $0.map { "\($0.name) \($0.description ?? "-")" } }
    }

    @Test(.timeLimit(.minutes(1))) func anItemAddedOfflineStaysInTheListOnceTheServerAcceptsIt() async throws {
        try await Self.withPrimedClient { clients, appSyncClient, _, _ in
            let watchers = Watchers(appSyncClient)
            var list = watchers.list.stream.makeAsyncIterator()
            #expect(AppSyncClientTests.names(try await watchers.list.next(&list).0) == ["Milk"])
            await clients.backend.kill()
            let sending = Task {
                try await appSyncClient.perform(mutation: Self.createEggs, optimisticUpdate: Self.appendEggs)
            }
            #expect(AppSyncClientTests.names(try await watchers.list.next(&list).0) == ["Milk", "Eggs"])
            try await clients.backend.restart()
            let result = try await sending.value
            #expect(result.errors == nil)
            // No subscription brings Eggs: the accepted layer keeps it in the list, with the
            // fields of the server's answer.
            #expect(try await Self.cachedItems(appSyncClient) == ["Milk -", "Eggs -"])
            #expect(try appSyncClient.store?.withinReadTransaction { try OptimisticLayers.exist($0.db) }.get() == false)
            #expect(try await clients.serverNames() == ["Eggs", "Milk"])
        }
    }

    @Test(.timeLimit(.minutes(1))) func anItemAddedOfflineStaysInTheListWhenTheNextRunSendsIt() async throws {
        try await OfflineClients.withBackend { clients in
            _ = try await clients.backend.perform(CreateTodoMutation(input: CreateTodoInput(id: "t1", name: "Milk")))
            var ended: AWSAppSyncClient? = try clients.makeClient()
            _ = try await ended?.fetch(query: ListTodosQuery(), cachePolicy: .fetchIgnoringCacheData)
            await clients.backend.kill()
            ended?.perform(mutation: Self.createEggs, optimisticUpdate: Self.appendEggs, resultHandler: nil)
            ended = nil

            try await clients.backend.restart()
            let appSyncClient = try clients.makeClient()
            for await replayed in appSyncClient.offlineMutationResults {
                #expect(replayed.errors == nil && replayed.error == nil)
                break
            }
            #expect(try await Self.cachedItems(appSyncClient) == ["Milk -", "Eggs -"])
        }
    }

    @Test(.timeLimit(.minutes(1))) func anAcceptedLayerKeepsWhatAFetchAddedToTheListMeanwhile() async throws {
        try await Self.withPrimedClient { clients, appSyncClient, _, transport in
            transport.holdNextPost()
            let sending = Task {
                try await appSyncClient.perform(mutation: Self.createEggs, optimisticUpdate: Self.appendEggs)
            }
            #expect(try await OfflineClients.eventually { transport.isHolding })
            // Another client adds Bread, and this one fetches the list while Eggs is on its way.
            _ = try await clients.backend.perform(CreateTodoMutation(input: CreateTodoInput(id: "t3", name: "Bread")))
            _ = try await appSyncClient.fetch(query: ListTodosQuery(), cachePolicy: .fetchIgnoringCacheData)
            transport.release()
            #expect(try await sending.value.errors == nil)
            #expect(try await Self.cachedItems(appSyncClient) == ["Milk -", "Eggs -", "Bread -"])
        }
    }

    @Test func aCommittedListKeepsWhatOthersAddedAndLeavesWhatTheyRemoved() {
        let item = { (key: String) -> JSONValue in ["$reference": .string(key)] }
        // Nobody else changed the list: the layer's list, in its order.
        #expect(
            ReadWriteTransaction.rebased(
                [item("b"), item("a")],
                previous: .some([item("a")]),
                stored: [item("a")]
            ) == [item("b"), item("a")]
        )
        // Others added c and removed a meanwhile; the layer added d and removed b.
        #expect(
            ReadWriteTransaction.rebased(
                [item("a"), item("d")],
                previous: .some([item("a"), item("b")]),
                stored: [item("b"), item("c")]
            ) == [item("d"), item("c")]
        )
        // A layer of an earlier version, without the previous values, wins as it is.
        #expect(ReadWriteTransaction.rebased([item("a")], previous: nil, stored: [item("c")]) == [item("a")])
        // Not a list: the layer's value.
        #expect(ReadWriteTransaction.rebased("mine", previous: .some("old"), stored: "theirs") == "mine")
    }

    /// The guide's `optimisticCreateTodo`, on a view without UIKit.
    final class TodoScreen: @unchecked Sendable {
        var appSyncClient: AWSAppSyncClient?
        let done: @Sendable () -> Void

        init(appSyncClient: AWSAppSyncClient, done: @escaping @Sendable () -> Void) {
            self.appSyncClient = appSyncClient
            self.done = done
        }

        // swift-format-ignore
        func optimisticCreateTodo(input: CreateTodoInput, query:ListTodosQuery){
            let createTodoInput = CreateTodoInput(name: input.name, description: input.description)
            let createTodoMutation = CreateTodoMutation(input: createTodoInput)
            let UUID = NSUUID().uuidString

            self.appSyncClient?.perform(mutation: createTodoMutation, optimisticUpdate: { (transaction) in
                do {
                    try transaction?.update(query: query) { (data: inout ListTodosQuery.Data) in
                        data.listTodos?.items?.append(ListTodosQuery.Data.ListTodo.Item.init(id: UUID, name: input.name, description: input.description!))
                    }
                } catch {
                    print("Error updating cache with optimistic response for \(createTodoInput)")
                }
            }, resultHandler: { (result, error) in
                if let result = result {
                    print("Added Todo Response from service: \(String(describing: result.data?.createTodo?.name))")
                    //Now remove the outdated entry in cache from optimistic write
                    let _ = self.appSyncClient?.store?.withinReadWriteTransaction { transaction in
                        try transaction.update(query: ListTodosQuery())
                        { (data: inout ListTodosQuery.Data) in
                            var pos = -1, counter = 0
                            for item in (data.listTodos?.items!)! {
                                if item?.id == UUID {
                                    pos = counter
                                    continue
                                }; counter += 1
                            }
                            if pos != -1 { data.listTodos?.items?.remove(at: pos) }
                        }
                    }
                } else if let error = error {
                    print("Error adding Todo: \(error.localizedDescription)")
                }
                self.done()
            })
        }
    }

    @Test(.timeLimit(.minutes(1))) func theGuidesOptimisticCreateAndItsCleanUpWork() async throws {
        try await Self.withPrimedClient { clients, appSyncClient, _, _ in
            let watchers = Watchers(appSyncClient)
            var list = watchers.list.stream.makeAsyncIterator()
            #expect(AppSyncClientTests.names(try await watchers.list.next(&list).0) == ["Milk"])
            let (finished, finish) = AsyncStream.makeStream(of: Void.self)
            let screen = TodoScreen(appSyncClient: appSyncClient) { finish.yield() }
            screen.optimisticCreateTodo(
                input: CreateTodoInput(name: "Use AppSync", description: "Realtime and Offline"),
                query: ListTodosQuery()
            )
            #expect(AppSyncClientTests.names(try await watchers.list.next(&list).0) == ["Milk", "Use AppSync"])
            var iterator = finished.makeAsyncIterator()
            await iterator.next()
            // The server's answer can reach the watcher before the clean-up does: the list with the
            // new item once more, then without it.
            var names = AppSyncClientTests.names(try await watchers.list.next(&list).0)
            while names == ["Milk", "Use AppSync"] {
                names = AppSyncClientTests.names(try await watchers.list.next(&list).0)
            }
            #expect(names == ["Milk"])
            let cached = try await appSyncClient.fetch(query: ListTodosQuery(), cachePolicy: .returnCacheDataDontFetch)
            #expect(AppSyncClientTests.names(cached) == ["Milk"])
            #expect(try await clients.serverNames() == ["Milk", "Use AppSync"])
        }
    }

    final class Calls: Sendable {
        let count = Mutex(0)
    }

    @Test(.timeLimit(.minutes(1))) func cancelTakesTheMutationOutOfTheQueueAndRollsBack() async throws {
        try await Self.withPrimedClient { clients, appSyncClient, _, _ in
            let watchers = Watchers(appSyncClient)
            var todo = watchers.todo.stream.makeAsyncIterator()
            #expect(try await watchers.todo.next(&todo).0?.data?.getTodo?.name == "Milk")
            await clients.backend.kill()
            let handlerCalls = Calls()
            let operation = appSyncClient.perform(
                mutation: UpdateTodoMutation(input: UpdateTodoInput(id: "t1", name: "Oat milk")),
                optimisticUpdate: Self.optimisticUpdate,
                resultHandler: { _, _ in handlerCalls.count.withLock { $0 += 1 } }
            )
            #expect(try await watchers.todo.next(&todo).0?.data?.getTodo?.name == "Milk (saving)")
            #expect(try await OfflineClients.eventually { try clients.queued.first?.attempts ?? 0 >= 1 })
            operation.cancel()
            #expect(try await watchers.todo.next(&todo).0?.data?.getTodo?.name == "Milk")
            #expect(try await OfflineClients.eventually { try clients.queued.isEmpty })
            #expect(try appSyncClient.queuedMutationIdentifiers() == [])
            try await clients.backend.restart()
            // A later mutation goes through; the cancelled one never reaches the server.
            let later = try await appSyncClient.perform(
                mutation: CreateTodoMutation(input: CreateTodoInput(id: "t2", name: "Eggs"))
            )
            #expect(later.data?.createTodo?.name == "Eggs")
            #expect(try await clients.serverNames() == ["Eggs", "Milk"])
            #expect(handlerCalls.count.withLock { $0 } == 0)
        }
    }

    @Test(.timeLimit(.minutes(1))) func theConflictBlockMayResendOnce() async throws {
        try await Self.withPrimedClient { clients, appSyncClient, _, transport in
            let heard = Mutex<[(Snapshot?, [String])]>([])
            let result = try await appSyncClient.perform(
                mutation: UpdateTodoMutation(
                    input: UpdateTodoInput(id: "t1", name: "Mine"),
                    condition: ModelTodoConditionInput(name: ModelStringInput(eq: "Old milk"))
                ),
                conflictResolutionBlock: { serverState, taskCompletionSource, result in
                    heard.withLock { $0.append((serverState, result?.errors?.map(\.message) ?? [])) }
                    // Resending the same refused condition: the second refusal is final.
                    taskCompletionSource?.set(
                        result: UpdateTodoMutation(
                            input: UpdateTodoInput(id: "t1", name: "Mine"),
                            condition: ModelTodoConditionInput(name: ModelStringInput(eq: "Milk"))
                        )
                    )
                }
            )
            #expect(result.errors == nil)
            #expect(result.data?.updateTodo?.name == "Mine")
            let calls = heard.withLock { $0 }
            #expect(calls.count == 1)
            #expect(calls.first?.0 == nil)
            #expect(calls.first?.1 == ["The conditional request failed (Service: DynamoDb, Status Code: 400)"])
            let keys = transport.posts.suffix(2).map { $0.value(forHTTPHeaderField: "Idempotency-Key") ?? "" }
            #expect(keys.count == 2)
            #expect(keys.last == (keys.first ?? "") + "-resend")
            #expect(try await clients.serverNames() == ["Mine"])
        }
    }

    @Test(.timeLimit(.minutes(1))) func anUnresolvedConflictEndsWithTheServersResultAndRollsBack() async throws {
        try await Self.withPrimedClient(conflictDetection: true) { clients, appSyncClient, _, _ in
            let watchers = Watchers(appSyncClient)
            var todo = watchers.todo.stream.makeAsyncIterator()
            #expect(try await watchers.todo.next(&todo).0?.data?.getTodo?.name == "Milk")
            let heard = Mutex<[Snapshot?]>([])
            let result = try await appSyncClient.perform(
                mutation: UpdateTodoMutation(
                    input: UpdateTodoInput(graphQLMap: ["id": "t1", "name": "Mine", "_version": 7])
                ),
                optimisticUpdate: Self.optimisticUpdate,
                conflictResolutionBlock: { serverState, taskCompletionSource, _ in
                    heard.withLock { $0.append(serverState) }
                    taskCompletionSource?.cancel()
                }
            )
            #expect(result.data?.updateTodo == nil)
            #expect(result.errors?.map(\.errorType) == ["ConflictUnhandled"])
            #expect(result.errors?.map(\.message) == ["Conflict resolver rejects mutation."])
            let serverState = try #require(heard.withLock { $0 }.first ?? nil)
            #expect(serverState["name"] == "Milk")
            #expect(serverState["id"] == "t1")
            #expect(try await watchers.todo.next(&todo).0?.data?.getTodo?.name == "Milk (saving)")
            #expect(try await watchers.todo.next(&todo).0?.data?.getTodo?.name == "Milk")
            #expect(try await clients.serverNames() == ["Milk"])
        }
    }

    @Test(.timeLimit(.minutes(1))) func clearingTheQueueEndsAnAsyncPerformAsCancelled() async throws {
        try await OfflineClients.withBackend { clients in
            let appSyncClient = try clients.makeClient()
            await clients.backend.kill()
            let performing = Task {
                try await appSyncClient.perform(mutation: CreateTodoMutation(input: CreateTodoInput(name: "Dropped")))
            }
            #expect(try await OfflineClients.eventually { try !clients.queued.isEmpty })
            appSyncClient.clearCaches(options: ClearCacheOptions(clearMutations: true))
            let error = await #expect(throws: AWSAppSyncClientError.self) { try await performing.value }
            #expect(error?.code == .cancelled)
            #expect(
                error?.message
                    == "CreateTodo was cancelled and taken out of the offline queue before the server answered it. "
                    + "Perform it again if it is still wanted."
            )
        }
    }

    @Test(.timeLimit(.minutes(1))) func clearCachesClearsEachCacheOnItsOwn() async throws {
        try await Self.withPrimedClient { clients, appSyncClient, _, _ in
            await clients.backend.kill()
            appSyncClient.perform(
                mutation: CreateTodoMutation(input: CreateTodoInput(name: "Queued")),
                resultHandler: nil
            )
            try appSyncClient.subscriptionMetadata.setLastSync(Date(timeIntervalSince1970: 1000), of: "ListTodos")

            #expect(try appSyncClient.clearCaches(options: ClearCacheOptions(clearQueries: true)).get() == ())
            let miss = await #expect(throws: AWSAppSyncClientError.self) {
                try await appSyncClient.fetch(query: ListTodosQuery(), cachePolicy: .returnCacheDataDontFetch)
            }
            #expect(miss?.code == .cacheMiss)
            #expect(try appSyncClient.queuedMutationIdentifiers().count == 1)
            #expect(
                try appSyncClient.subscriptionMetadata.lastSync(of: "ListTodos") == Date(timeIntervalSince1970: 1000)
            )

            appSyncClient.clearCaches(options: ClearCacheOptions(clearMutations: true))
            #expect(try appSyncClient.queuedMutationIdentifiers() == [])
            #expect(try clients.queued.isEmpty)
            #expect(try appSyncClient.subscriptionMetadata.lastSync(of: "ListTodos") != nil)

            // The guide's spelling.
            let clearCacheOptions = ClearCacheOptions(
                clearQueries: false,
                clearMutations: false,
                clearSubscription: true
            )
            appSyncClient.clearCaches(options: clearCacheOptions)
            #expect(try appSyncClient.subscriptionMetadata.lastSync(of: "ListTodos") == nil)

            appSyncClient.perform(
                mutation: CreateTodoMutation(input: CreateTodoInput(name: "Queued")),
                resultHandler: nil
            )
            appSyncClient.clearCaches()
            #expect(try appSyncClient.queuedMutationIdentifiers() == [])
        }
    }

    /// Adds a todo to the cached list unless it is there, as the example app does with its own
    /// items and with each `onCreateTodo` event.
    static func append(_ id: String, _ name: String, in transaction: ReadWriteTransaction) throws {
        try transaction.update(query: ListTodosQuery()) { (data: inout ListTodosQuery.Data) in
            guard data.listTodos?.items?.contains(where: { $0?.id == id }) == false else { return }
            data.listTodos?.items?.append(ListTodosQuery.Data.ListTodo.Item(id: id, name: name))
        }
    }

    /// The names in the cached list, as a store reads it.
    static func names(_ store: ApolloStore) throws -> [String] {
        let data = try store.withinReadTransaction { try $0.read(query: ListTodosQuery()) }.get()
        return (data.listTodos?.items ?? []).compactMap { $0?.name }
    }

    /// A store whose list is empty, and Three (`t3`) appended by the optimistic layer of the
    /// queued mutation `m3`.
    static func storeWithPendingThree() throws -> ApolloStore {
        let store = try ApolloStore()
        store.cacheKeyForObject = { $0["id"] }
        try store.withinReadWriteTransaction { transaction in
            try transaction.write(data: .init(listTodos: .init(items: [])), forQuery: ListTodosQuery())
        }.get()
        try store.withinOptimisticLayer("m3") { try Self.append("t3", "Three", in: $0) }.get()
        return store
    }

    /// Where the subscription's event for Three comes among the events of One and Two and the
    /// answer to Three's mutation.
    enum OwnEvent: String, CaseIterable, Sendable {
        case first, betweenOthers, beforeAnswer, afterAnswer, never
    }

    @Test(arguments: OwnEvent.allCases)
    func itemsSubscriptionsAddUnderALayerStayOnceItIsAccepted(ownEvent: OwnEvent) throws {
        let store = try Self.storeWithPendingThree()
        let event = { (id: String, name: String) in
            try store.withinReadWriteTransaction { try Self.append(id, name, in: $0) }.get()
        }
        if ownEvent == .first { try event("t3", "Three") }
        try event("t1", "One")
        #expect(try Self.names(store) == ["Three", "One"])
        if ownEvent == .betweenOthers { try event("t3", "Three") }
        try event("t2", "Two")
        #expect(try Self.names(store) == ["Three", "One", "Two"])
        if ownEvent == .beforeAnswer { try event("t3", "Three") }
        try store.publish(
            data: CreateTodoMutation.Data(createTodo: .init(id: "t3", name: "Three")),
            for: CreateTodoMutation(input: CreateTodoInput(id: "t3", name: "Three")),
            origin: nil,
            endingLayer: ("m3", .commit)
        )
        if ownEvent == .afterAnswer { try event("t3", "Three") }
        #expect(try Self.names(store) == ["Three", "One", "Two"])
        #expect(try store.withinReadTransaction { try OptimisticLayers.exist($0.db) }.get() == false)
    }

    @Test func itemsSubscriptionsAddUnderARefusedLayerStayWithoutItsItem() throws {
        let store = try Self.storeWithPendingThree()
        for (id, name) in [("t1", "One"), ("t2", "Two")] {
            try store.withinReadWriteTransaction { try Self.append(id, name, in: $0) }.get()
        }
        #expect(try Self.names(store) == ["Three", "One", "Two"])
        try store.withinReadWriteTransaction { try $0.end(layer: "m3", .remove) }.get()
        #expect(try Self.names(store) == ["One", "Two"])
    }
}
