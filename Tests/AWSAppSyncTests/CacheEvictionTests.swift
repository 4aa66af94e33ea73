import Foundation
import Testing
import TodoAPI

@testable import AWSAppSync

/// The bounded cache: a size limit held while records stream through, least recently used
/// records evicted first, watchers' records kept.
@Suite struct CacheEvictionTests {
    /// A client whose cache in `directory` is limited to `sizeLimit` bytes; its API is never
    /// reached.
    static func makeClient(directory: URL, sizeLimit: Int?, timeToLive: TimeInterval? = nil) throws -> AWSAppSyncClient
    {
        var cacheConfiguration = try AWSAppSyncCacheConfiguration(withRootDirectory: directory)
        cacheConfiguration.sizeLimit = sizeLimit
        cacheConfiguration.timeToLive = timeToLive
        let serviceConfig = AWSAppSyncServiceConfig(
            endpoint: URL(string: "http://127.0.0.1:1/graphql")!,
            region: "us-east-1",
            authType: .apiKey,
            apiKey: "da2-unused"
        )
        let appSyncClient = try AWSAppSyncClient(
            appSyncConfig: AWSAppSyncClientConfiguration(
                appSyncServiceConfig: serviceConfig,
                cacheConfiguration: cacheConfiguration
            )
        )
        appSyncClient.apolloClient?.cacheKeyForObject = { $0["id"] }
        return appSyncClient
    }

    /// A page of `count` todos of about 150 bytes each.
    static func page(_ number: Int, count: Int) -> ListTodosQuery.Data {
        ListTodosQuery.Data(
            listTodos: .init(
                items: (0..<count).map { index in
                    .init(
                        id: "todo-\(number)-\(index)",
                        name: "Todo \(index) of page \(number)",
                        description: String(repeating: "x", count: 80)
                    )
                }
            )
        )
    }

    @Test(.timeLimit(.minutes(2))) func aSizeLimitHoldsWhileRecordsStreamThroughAndWatchersStayCorrect() async throws {
        // 100,000 records through a 10 MB cache with STRATUS_EVICTION_FULL=1; a tenth of both
        // in the suite.
        let full = ProcessInfo.processInfo.environment["STRATUS_EVICTION_FULL"] == "1"
        let (pages, limit) = full ? (100, 10_000_000) : (10, 1_000_000)
        let directory = FileManager.default.temporaryDirectory.appending(path: "appsync-eviction-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let appSyncClient = try Self.makeClient(directory: directory, sizeLimit: limit)
        let store = try #require(appSyncClient.store)
        try store.withinReadWriteTransaction { transaction in
            try transaction.write(
                data: GetTodoQuery.Data(getTodo: .init(id: "watched", name: "Watched")),
                forQuery: GetTodoQuery(id: "watched")
            )
        }.get()
        let calls = HandlerCalls<GraphQLResult<GetTodoQuery.Data>>()
        var iterator = calls.stream.makeAsyncIterator()
        let watcher = appSyncClient.watch(
            query: GetTodoQuery(id: "watched"),
            cachePolicy: .returnCacheDataDontFetch,
            queue: calls.queue,
            resultHandler: calls.handler
        )
        defer { watcher.cancel() }
        #expect(try await calls.next(&iterator).0?.data?.getTodo?.name == "Watched")

        var largest = 0
        for number in 0..<pages {
            try store.withinReadWriteTransaction { transaction in
                try transaction.write(data: Self.page(number, count: 1_000), forQuery: ListTodosQuery(limit: number))
            }.get()
            largest = max(largest, try #require(store.storedBytes))
        }
        #expect(largest <= limit)
        let onDisk = try store.withinReadTransaction { try CacheBounds.storedBytes($0.db) }.get()
        #expect(onDisk == store.storedBytes)
        #expect(onDisk <= limit)
        #expect(onDisk > limit / 2)

        // The oldest pages went, the newest is whole, the watched record stayed.
        await #expect(throws: AWSAppSyncClientError.self) {
            try await appSyncClient.fetch(query: ListTodosQuery(limit: 0), cachePolicy: .returnCacheDataDontFetch)
        }
        let newest = try await appSyncClient.fetch(
            query: ListTodosQuery(limit: pages - 1),
            cachePolicy: .returnCacheDataDontFetch
        )
        #expect(newest.data?.listTodos?.items?.count == 1_000)
        let watched = try await appSyncClient.fetch(
            query: GetTodoQuery(id: "watched"),
            cachePolicy: .returnCacheDataDontFetch
        )
        #expect(watched.data?.getTodo?.name == "Watched")

        // The watcher still hears of changes to its record.
        try store.withinReadWriteTransaction { transaction in
            try transaction.write(
                data: GetTodoQuery.Data(getTodo: .init(id: "watched", name: "Renamed")),
                forQuery: GetTodoQuery(id: "watched")
            )
        }.get()
        #expect(try await calls.next(&iterator).0?.data?.getTodo?.name == "Renamed")
    }

    @Test func recentlyReadRecordsOutliveOlderOnes() async throws {
        let directory = FileManager.default.temporaryDirectory.appending(path: "appsync-eviction-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let appSyncClient = try Self.makeClient(directory: directory, sizeLimit: 200_000)
        let store = try #require(appSyncClient.store)
        for number in 0..<2 {
            try store.withinReadWriteTransaction { transaction in
                try transaction.write(data: Self.page(number, count: 400), forQuery: ListTodosQuery(limit: number))
            }.get()
        }
        // Page 0 is read after page 1 was written: page 1 is now the least recently used.
        _ = try await appSyncClient.fetch(query: ListTodosQuery(limit: 0), cachePolicy: .returnCacheDataDontFetch)
        try store.withinReadWriteTransaction { transaction in
            try transaction.write(data: Self.page(2, count: 400), forQuery: ListTodosQuery(limit: 2))
        }.get()
        let first = try await appSyncClient.fetch(
            query: ListTodosQuery(limit: 0),
            cachePolicy: .returnCacheDataDontFetch
        )
        #expect(first.data?.listTodos?.items?.count == 400)
        await #expect(throws: AWSAppSyncClientError.self) {
            try await appSyncClient.fetch(query: ListTodosQuery(limit: 1), cachePolicy: .returnCacheDataDontFetch)
        }
        #expect(try #require(store.storedBytes) <= 200_000)
    }
}
