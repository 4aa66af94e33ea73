import AWSPluginsCore
import Foundation
import StratusTesting
import Synchronization
import Testing
import TodoAPI

@testable import AWSAppSync

/// `syncTodos` as `stratus codegen types` writes a delta query: the client fills `$lastSync`.
struct SyncTodosQuery: GraphQLQuery {
    static let operationName = "SyncTodos"
    static let operationString = """
        query SyncTodos($lastSync: AWSTimestamp) {
          syncTodos(lastSync: $lastSync) {
            __typename
            items {
              __typename
              id
              name
              _deleted
            }
            startedAt
          }
        }
        """

    struct Data: GraphQLSelectionSet {
        static let possibleTypes = ["Query"]
        static let selections: [any GraphQLSelection] = [
            GraphQLField(
                "syncTodos",
                arguments: ["lastSync": GraphQLVariable("lastSync")],
                type: .object(SyncTodo.selections)
            )
        ]
        var snapshot: Snapshot
        init(snapshot: Snapshot) { self.snapshot = snapshot }

        var syncTodos: SyncTodo? { snapshot[field: "syncTodos"] }

        struct SyncTodo: GraphQLSelectionSet {
            static let possibleTypes = ["ModelTodoConnection"]
            static let selections: [any GraphQLSelection] = [
                GraphQLField("__typename", type: .nonNull(.scalar(String.self))),
                GraphQLField("items", type: .nonNull(.list(.object(Item.selections)))),
                GraphQLField("startedAt", type: .scalar(Int.self)),
            ]
            var snapshot: Snapshot
            init(snapshot: Snapshot) { self.snapshot = snapshot }

            var items: [Item?] { snapshot[field: "items"] }

            struct Item: GraphQLSelectionSet {
                static let possibleTypes = ["Todo"]
                static let selections: [any GraphQLSelection] = [
                    GraphQLField("__typename", type: .nonNull(.scalar(String.self))),
                    GraphQLField("id", type: .nonNull(.scalar(GraphQLID.self))),
                    GraphQLField("name", type: .nonNull(.scalar(String.self))),
                    GraphQLField("_deleted", type: .scalar(Bool.self)),
                ]
                var snapshot: Snapshot
                init(snapshot: Snapshot) { self.snapshot = snapshot }

                var id: GraphQLID { snapshot[field: "id"] }
                var name: String { snapshot[field: "name"] }
                var _deleted: Bool? { snapshot[field: "_deleted"] }
            }
        }
    }
}

/// Delta sync: base or delta query by the interval, `lastSync` kept per sync operation, and
/// subscription messages applied after the query.
@Suite struct DeltaSyncTests {
    /// What the sync's handlers were called with, in order.
    final class Events: Sendable {
        let calls = HandlerCalls<String>()

        var base: @Sendable (GraphQLResult<ListTodosQuery.Data>?, (any Error)?) -> Void {
            { [calls] result, error in
                calls.handler("base " + AppSyncClientTests.names(result).sorted().joined(separator: ","), error)
            }
        }

        var delta: DeltaQueryResultHandler<SyncTodosQuery> {
            { [calls] result, transaction, error in
                let names = (result?.data?.syncTodos?.items ?? []).compactMap { $0?.name }.sorted()
                calls.handler(
                    "delta " + names.joined(separator: ",") + (transaction == nil ? "" : " in a transaction"),
                    error
                )
            }
        }

        var subscription: DeltaQueryResultHandler<OnCreateTodoSubscription> {
            { [calls] result, _, error in
                calls.handler("subscription " + (result?.data?.onCreateTodo?.name ?? ""), error)
            }
        }

        /// Starts `client`'s base and delta query of the todos, calling these handlers.
        func syncTodos(
            _ client: AWSAppSyncClient,
            syncConfiguration: SyncConfiguration = SyncConfiguration()
        ) -> any Cancellable {
            client.sync(
                baseQuery: ListTodosQuery(),
                baseQueryResultHandler: base,
                deltaQuery: SyncTodosQuery(),
                deltaQueryResultHandler: delta,
                callbackQueue: calls.queue,
                syncConfiguration: syncConfiguration
            )
        }
    }

    @Test(.timeLimit(.minutes(1))) func theBaseQueryRunsFirstThenTheDeltaQueryWithLastSync() async throws {
        try await OfflineClients.withBackend(conflictDetection: true) { clients in
            _ = try await clients.backend.perform(CreateTodoMutation(input: CreateTodoInput(id: "t1", name: "Milk")))
            let events = Events()
            var iterator = events.calls.stream.makeAsyncIterator()
            do {
                let appSyncClient = try clients.makeClient()
                let before = Date()
                let deltaWatcher = events.syncTodos(appSyncClient)
                let (first, error) = try await events.calls.next(&iterator)
                let after = Date()
                #expect(error == nil)
                #expect(first == "base Milk")
                deltaWatcher.cancel()
                let cached = try await appSyncClient.fetch(
                    query: ListTodosQuery(),
                    cachePolicy: .returnCacheDataDontFetch
                )
                #expect(AppSyncClientTests.names(cached) == ["Milk"])
                let key = "ListTodos{}||SyncTodos{}"
                let lastSync = try #require(try appSyncClient.subscriptionMetadata.lastSync(of: key))
                // Two seconds before the base query started, by the server's `Date` header:
                // whole seconds, renewed once a second.
                #expect(lastSync >= before.addingTimeInterval(-4.01))
                #expect(lastSync <= after.addingTimeInterval(-1.99))
            }

            // Made while no client was syncing.
            _ = try await clients.backend.perform(CreateTodoMutation(input: CreateTodoInput(id: "t2", name: "Eggs")))

            // Another run of the app: lastSync is on disk, so the delta query runs.
            let stored = try #require(
                try SubscriptionMetadataStore(
                    databaseURL: clients.directory.appending(path: "subscriptionMetadataCache.db")
                ).lastSync(of: "ListTodos{}||SyncTodos{}")
            )
            let transport = RecordingTransport()
            let appSyncClient = try clients.makeClient(transport: transport)
            let deltaWatcher = events.syncTodos(appSyncClient)
            // The base query's cached result first, before any request.
            let (cachedFirst, cacheError) = try await events.calls.next(&iterator)
            #expect(cacheError == nil)
            #expect(cachedFirst == "base Milk")
            let (second, error) = try await events.calls.next(&iterator)
            deltaWatcher.cancel()
            #expect(error == nil)
            // What changed since lastSync: Eggs, and Milk too when it was written less than two
            // seconds before the first sync started.
            #expect(second == "delta Eggs" || second == "delta Eggs,Milk")
            let body = try #require(transport.posts.first?.httpBody)
            let variables = try JSONValue(parsing: body).objectValue?["variables"]
            // syncTodos takes DataStore's millisecond timestamps.
            #expect(variables == ["lastSync": .integer(Int(stored.timeIntervalSince1970 * 1000))])

            // An interval of 0 s: the base query every time.
            let base = events.syncTodos(
                appSyncClient,
                syncConfiguration: SyncConfiguration(baseRefreshIntervalInSeconds: 0)
            )
            let (cachedThird, _) = try await events.calls.next(&iterator)
            let (third, _) = try await events.calls.next(&iterator)
            base.cancel()
            // The cached list is the first run's: the delta query's changes are not merged into it.
            #expect(cachedThird == "base Milk")
            #expect(third == "base Eggs,Milk")
        }
    }

    @Test(.timeLimit(.minutes(1))) func aClockAheadOrBehindMissesNoChangeMadeWhileAway() async throws {
        try await OfflineClients.withBackend(conflictDetection: true) { clients in
            _ = try await clients.backend.perform(CreateTodoMutation(input: CreateTodoInput(id: "t1", name: "Milk")))
            let events = Events()
            var iterator = events.calls.stream.makeAsyncIterator()
            /// Syncs the todos with a client whose clock is `clock` until `events` heard `count`
            /// calls, and returns them.
            func sync(clock: @escaping @Sendable () -> Date, count: Int) async throws -> (AWSAppSyncClient, [String]) {
                let appSyncClient = try clients.makeClient(clock: clock)
                let deltaWatcher = events.syncTodos(appSyncClient)
                defer { deltaWatcher.cancel() }
                var heard: [String] = []
                for _ in 0..<count {
                    let (call, error) = try await events.calls.next(&iterator)
                    #expect(error == nil)
                    heard.append(call ?? "")
                }
                return (appSyncClient, heard)
            }
            // An hour ahead: within the day after which a sync runs the base query again.
            let ahead: @Sendable () -> Date = { Date().addingTimeInterval(3600) }

            do {
                let before = Date()
                let (appSyncClient, first) = try await sync(clock: ahead, count: 1)
                let after = Date()
                #expect(first == ["base Milk"])
                // The server's time, not the device's. The `Date` header is whole seconds, and the
                // server renews it once a second.
                let lastSync = try #require(
                    try appSyncClient.subscriptionMetadata.lastSync(of: "ListTodos{}||SyncTodos{}")
                )
                #expect(lastSync >= before.addingTimeInterval(-4.01))
                #expect(lastSync <= after.addingTimeInterval(-1.99))
            }

            // Made while the device was away; its next run asks for the changes since the
            // server's time, and hears of Eggs after the cached list. (Since the device's time,
            // an hour ahead, it heard of nothing.)
            _ = try await clients.backend.perform(CreateTodoMutation(input: CreateTodoInput(id: "t2", name: "Eggs")))
            let (_, second) = try await sync(clock: ahead, count: 2)
            #expect(second == ["base Milk", "delta Eggs"] || second == ["base Milk", "delta Eggs,Milk"])

            // A clock three days behind: before any answer tells it the server's time, the
            // last sync looks ahead, so the base query runs, with Bread.
            _ = try await clients.backend.perform(CreateTodoMutation(input: CreateTodoInput(id: "t3", name: "Bread")))
            let (_, third) = try await sync(clock: { Date().addingTimeInterval(-72 * 3600) }, count: 2)
            #expect(third == ["base Milk", "base Bread,Eggs,Milk"])
        }
    }

    static let gqlScript = URL(filePath: #filePath).deletingLastPathComponent().appending(
        path: "Interop/gql_todo_changes.py"
    )

    @Test(.timeLimit(.minutes(1))) func updatesAndDeletesMadeByGQLWhileOfflineReachTheCacheAfterReconnecting()
        async throws
    {
        try await OfflineClients.withBackend(conflictDetection: true) { clients in
            _ = try await clients.backend.perform(CreateTodoMutation(input: CreateTodoInput(id: "t1", name: "Milk")))
            _ = try await clients.backend.perform(CreateTodoMutation(input: CreateTodoInput(id: "t2", name: "Eggs")))
            let proxy = try await FaultProxy.start(forwardingTo: clients.backend.endpoint)
            do {
                try await Self.syncThroughAnOutage(clients, proxy: proxy)
            } catch {
                await proxy.stop()
                throw error
            }
            await proxy.stop()
        }
    }

    private static func syncThroughAnOutage(_ clients: OfflineClients, proxy: FaultProxy) async throws {
        let appSyncClient = try clients.makeClient(endpoint: proxy.url(proxying: clients.backend.endpoint))
        let store = try #require(appSyncClient.store)
        let events = Events()
        var iterator = events.calls.stream.makeAsyncIterator()
        // As the guide's delta handler does: the changes are merged into the base query's list.
        let delta: DeltaQueryResultHandler<SyncTodosQuery> = { [calls = events.calls] result, _, error in
            let items = (result?.data?.syncTodos?.items ?? []).compactMap { $0 }
            let merged = store.withinReadWriteTransaction { transaction in
                try transaction.update(query: ListTodosQuery()) { (data: inout ListTodosQuery.Data) in
                    var list = data.listTodos?.items ?? []
                    for item in items {
                        list.removeAll { $0?.id == item.id }
                        if item._deleted != true { list.append(.init(id: item.id, name: item.name)) }
                    }
                    data.listTodos?.items = list
                }
            }
            var failure = error
            if case .failure(let mergeError) = merged, !items.isEmpty { failure = failure ?? mergeError }
            calls.handler("delta " + items.map(\.name).sorted().joined(separator: ","), failure)
        }
        let deltaWatcher = appSyncClient.sync(
            baseQuery: ListTodosQuery(),
            baseQueryResultHandler: events.base,
            subscription: OnCreateTodoSubscription(),
            subscriptionResultHandler: events.subscription,
            deltaQuery: SyncTodosQuery(),
            deltaQueryResultHandler: delta,
            callbackQueue: events.calls.queue
        )
        defer { deltaWatcher.cancel() }
        let (base, baseError) = try await events.calls.next(&iterator)
        #expect(baseError == nil)
        #expect(base == "base Eggs,Milk")

        // Offline: every connection through the proxy drops, while gql changes the todos.
        proxy.dropAfter(bytes: 0)
        proxy.cutAllConnections()
        let host = "\(clients.backend.endpoint.host!):\(clients.backend.endpoint.port!)"
        let changed = try await ChildProcess.run([
            "python3", Self.gqlScript.path, clients.backend.endpoint.absoluteString, host, clients.backend.apiKey,
        ])
        try #require(
            changed.status == .exited(0),
            "gql failed (install it with: python3 -m pip install 'gql[aiohttp,websockets,botocore]'):\n\(changed.outputText)\(changed.errorText)"
        )
        proxy.resume()

        // Back online: the subscription reconnects and the delta query brings the changes.
        var seen: [String] = []
        while seen.last?.hasPrefix("delta ") != true || seen.last == "delta " {
            let (event, error) = try await events.calls.next(&iterator)
            if error == nil, let event { seen.append(event) }
        }
        // The delta query answers every version written since the last sync, oldest first.
        let changes = Set((seen.last ?? "").dropFirst("delta ".count).split(separator: ",").map(String.init))
        #expect(changes.isSuperset(of: ["Bread", "Eggs", "Oat milk"]), "\(seen)")
        let cached = try await appSyncClient.fetch(query: ListTodosQuery(), cachePolicy: .returnCacheDataDontFetch)
        #expect(AppSyncClientTests.names(cached).sorted() == ["Bread", "Oat milk"])
        let (milk, eggs) = try store.withinReadTransaction { transaction in
            (try transaction.record("t1"), try transaction.record("t2"))
        }.get()
        #expect(milk?["name"] == "Oat milk")
        #expect(eggs?["_deleted"] == true)
    }

    @Test(.timeLimit(.minutes(1))) func messagesArrivingDuringTheQueryAreAppliedAfterItInOrder() async throws {
        try await OfflineClients.withBackend(conflictDetection: true) { clients in
            let transport = RecordingTransport()
            let appSyncClient = try clients.makeClient(transport: transport)
            let events = Events()
            var iterator = events.calls.stream.makeAsyncIterator()
            transport.holdNextPost()
            let deltaWatcher = appSyncClient.sync(
                baseQuery: ListTodosQuery(),
                baseQueryResultHandler: events.base,
                subscription: OnCreateTodoSubscription(),
                subscriptionResultHandler: events.subscription,
                callbackQueue: events.calls.queue
            )
            // The subscription is acknowledged and the base query is on its way.
            #expect(try await OfflineClients.eventually { transport.isHolding })
            _ = try await clients.backend.perform(CreateTodoMutation(input: CreateTodoInput(id: "a", name: "A")))
            _ = try await clients.backend.perform(CreateTodoMutation(input: CreateTodoInput(id: "b", name: "B")))
            try await Task.sleep(for: .milliseconds(200))
            transport.release()
            var seen: [String] = []
            for _ in 0..<3 {
                let (event, error) = try await events.calls.next(&iterator)
                #expect(error == nil)
                seen.append(event ?? "")
            }
            deltaWatcher.cancel()
            #expect(seen == ["base A,B", "subscription A", "subscription B"])
        }
    }
}
