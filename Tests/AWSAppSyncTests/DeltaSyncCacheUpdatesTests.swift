import Amplify
import DeltaPostsAPI
import Foundation
import Testing

@testable import AWSAppSync

/// The posts API's `GetPostQuery`: this test target declares another, for the multi-auth guide.
private typealias PostQuery = DeltaPostsAPI.GetPostQuery

/// A sync operation's `cacheUpdates`: `getPost(id:)` pointed at each post the sync writes, against
/// the local backend serving the delta sync guide's posts API (see ``DeltaPostsTests``).
@Suite(.timeLimit(.minutes(1))) struct DeltaSyncCacheUpdatesTests {
    /// The guide's alternative query for each item: `getPost(id:)`.
    static let getPost: CacheUpdates = { item in
        guard let id = item["id"]?.stringValue else { return [] }
        return [PostQuery(id: id)]
    }

    /// What the cache answers for `getPost(id:)`, without reaching the server.
    static func cachedPost(_ id: String, in client: AWSAppSyncClient) async throws -> Snapshot? {
        let result = try await client.fetch(query: PostQuery(id: id), cachePolicy: .returnCacheDataDontFetch)
        #expect(result.source == .cache)
        return result.data?.getPost?.snapshot
    }

    /// A post as ``DeltaPostsTests/add(_:by:)`` and ``edit(_:title:by:)`` write it.
    static func post(_ id: String, title: String) -> Snapshot {
        [
            "__typename": "Post", "id": .string(id), "author": "Nadia", "title": .string(title),
            "content": .string("Content \(id)"),
        ]
    }

    /// Gives the post `id` another title: the backend's `createPost` replaces a post with the same id.
    static func edit(_ id: String, title: String, by client: AWSAppSyncClient) async throws {
        let edited = try await client.perform(
            mutation: AddPostMutation(id: id, author: "Nadia", title: title, content: "Content \(id)")
        )
        #expect(edited.errors == nil)
    }

    /// The ids of a list of posts, sorted and joined with commas.
    static func ids<Post: GraphQLSelectionSet>(_ posts: [Post?]?) -> String {
        (posts ?? []).compactMap { $0?.snapshot["id"]?.stringValue }.sorted().joined(separator: ",")
    }

    /// A base query handler that records `base` and the ids of the posts.
    static func recordBase(
        in calls: HandlerCalls<String>
    ) -> @Sendable (GraphQLResult<ListPostsQuery.Data>?, (any Error)?) -> Void {
        { result, error in calls.handler("base " + ids(result?.data?.listPosts), error) }
    }

    @Test func itemsOfTheBaseAndDeltaQueriesAnswerGetPostFromTheCache() async throws {
        try await DeltaPostsTests.withBackend { backend, directory in
            let other = try DeltaPostsTests.makeClient(backend, cache: directory.appending(path: "other"))
            try await DeltaPostsTests.add("p1", by: other)
            try await DeltaPostsTests.add("p2", by: other)
            let appSyncClient = try DeltaPostsTests.makeClient(backend, cache: directory)
            let calls = HandlerCalls<String>()
            var iterator = calls.stream.makeAsyncIterator()
            let deltaWatcher = appSyncClient.sync(
                baseQuery: ListPostsQuery(),
                baseQueryResultHandler: Self.recordBase(in: calls),
                deltaQuery: ListPostsDeltaQuery(),
                deltaResultHandler: { result, _, error in
                    let changes = (result?.data?.listPostsDelta ?? []).compactMap { post in
                        post.map { $0.id + ($0.awsDs == DeltaAction.delete ? " deleted" : "") }
                    }
                    calls.handler("delta " + changes.sorted().joined(separator: ","), error)
                },
                cacheUpdates: Self.getPost,
                callbackQueue: calls.queue
            )
            defer { deltaWatcher.cancel() }
            #expect(try await calls.next(&iterator).0 == "base p1,p2")
            #expect(try await Self.cachedPost("p1", in: appSyncClient) == Self.post("p1", title: "Title p1"))
            #expect(try await Self.cachedPost("p2", in: appSyncClient) == Self.post("p2", title: "Title p2"))
            let root = try appSyncClient.cache.withinReadTransaction { try $0.record(CacheRoot.query) }.get()
            #expect(root?["getPost(id:p1)"] == ["$reference": "p1"], "the entry refers to the post's record")

            // Updated by the delta query.
            try await Self.edit("p1", title: "Title p1 edited", by: other)
            appSyncClient.syncNow()
            let delta = try #require(try await calls.next(&iterator).0)
            #expect(delta.hasPrefix("delta ") && delta.contains("p1"), "\(delta)")
            #expect(try await Self.cachedPost("p1", in: appSyncClient) == Self.post("p1", title: "Title p1 edited"))

            // Updated by another query: the entry reads the record, it holds no copy of the post.
            try await Self.edit("p2", title: "Title p2 edited", by: other)
            let fetched = try await appSyncClient.fetch(query: ListPostsQuery(), cachePolicy: .fetchIgnoringCacheData)
            #expect(Self.ids(fetched.data?.listPosts) == "p1,p2")
            #expect(try await Self.cachedPost("p2", in: appSyncClient) == Self.post("p2", title: "Title p2 edited"))

            // Deleted: the entry still points at the record, which keeps the post's last fields.
            try await DeltaPostsTests.remove("p1", by: other)
            appSyncClient.syncNow()
            let deletion = try #require(try await calls.next(&iterator).0)
            #expect(deletion.contains("p1 deleted"), "\(deletion)")
            #expect(try await Self.cachedPost("p1", in: appSyncClient) == Self.post("p1", title: "Title p1 edited"))
            let server = try await appSyncClient.fetch(
                query: PostQuery(id: "p1"),
                cachePolicy: .fetchIgnoringCacheData
            )
            #expect(server.data?.getPost == nil, "the server no longer has it")
        }
    }

    @Test func itemsOfTheSubscriptionAnswerGetPostFromTheCache() async throws {
        try await DeltaPostsTests.withBackend { backend, directory in
            let other = try DeltaPostsTests.makeClient(backend, cache: directory.appending(path: "other"))
            try await DeltaPostsTests.add("p1", by: other)
            let appSyncClient = try DeltaPostsTests.makeClient(backend, cache: directory)
            let calls = HandlerCalls<String>()
            var iterator = calls.stream.makeAsyncIterator()
            let deltaWatcher = appSyncClient.sync(
                baseQuery: ListPostsQuery(),
                baseQueryResultHandler: Self.recordBase(in: calls),
                subscription: OnDeltaPostSubscription(),
                subscriptionResultHandler: { result, _, error in
                    calls.handler("subscription " + (result?.data?.onDeltaPost?.title ?? "none"), error)
                },
                // The form UsingTheClient.md shows.
                cacheUpdates: { item in item["id"]?.stringValue.map { [PostQuery(id: $0)] } ?? [] },
                callbackQueue: calls.queue
            )
            defer { deltaWatcher.cancel() }
            #expect(try await calls.next(&iterator).0 == "base p1")

            try await DeltaPostsTests.add("p3", by: other)
            #expect(try await calls.next(&iterator).0 == "subscription Title p3")
            #expect(try await Self.cachedPost("p3", in: appSyncClient) == Self.post("p3", title: "Title p3"))

            try await Self.edit("p3", title: "Title p3 edited", by: other)
            #expect(try await calls.next(&iterator).0 == "subscription Title p3 edited")
            #expect(try await Self.cachedPost("p3", in: appSyncClient) == Self.post("p3", title: "Title p3 edited"))
        }
    }

    @Test func itemsWithoutKeysAndQueriesOfListsAreRefusedWithoutWritingTheResult() async throws {
        try await DeltaPostsTests.withBackend { backend, directory in
            let other = try DeltaPostsTests.makeClient(backend, cache: directory.appending(path: "other"))
            try await DeltaPostsTests.add("p1", by: other)

            // Without cacheKeyForObject, posts are keyed by their place in the list.
            let unkeyed = try DeltaPostsTests.makeClient(backend, cache: directory.appending(path: "unkeyed"))
            unkeyed.apolloClient?.cacheKeyForObject = nil
            let calls = HandlerCalls<String>()
            var iterator = calls.stream.makeAsyncIterator()
            let unkeyedWatcher = unkeyed.sync(
                baseQuery: ListPostsQuery(),
                baseQueryResultHandler: Self.recordBase(in: calls),
                cacheUpdates: Self.getPost,
                callbackQueue: calls.queue
            )
            let (_, unkeyedError) = try await calls.next(&iterator)
            unkeyedWatcher.cancel()
            let refusal = try #require(unkeyedError as? AWSAppSyncClientError)
            #expect(refusal.code == .configuration)
            #expect(
                refusal.message
                    == "cacheUpdates gave GetPost for an item of ListPosts that cacheKeyForObject gives no key: an "
                    + "entry can only point at a record with a key of its own. Set apolloClient?.cacheKeyForObject "
                    + "(such as { $0[\"id\"] }) and select its fields in ListPosts."
            )
            await #expect(throws: AWSAppSyncClientError.self, "the base query's result was not written") {
                try await unkeyed.fetch(query: ListPostsQuery(), cachePolicy: .returnCacheDataDontFetch)
            }

            // A query whose field holds a list cannot point at one post.
            let keyed = try DeltaPostsTests.makeClient(backend, cache: directory.appending(path: "keyed"))
            let listCalls = HandlerCalls<String>()
            var listIterator = listCalls.stream.makeAsyncIterator()
            let keyedWatcher = keyed.sync(
                baseQuery: ListPostsQuery(),
                baseQueryResultHandler: Self.recordBase(in: listCalls),
                cacheUpdates: { _ in [ListPostsQuery()] },
                callbackQueue: listCalls.queue
            )
            let (_, listError) = try await listCalls.next(&listIterator)
            keyedWatcher.cancel()
            #expect(
                (listError as? AWSAppSyncClientError)?.message
                    == "ListPosts's field listPosts does not hold one object, so it cannot point at the record 'p1'. "
                    + "Give cacheUpdates queries whose fields each get one item, such as getPost(id:)."
            )
        }
    }

    @Test func theItemsOfAResultAreItsRootFieldsObjectsListsAndConnectionItems() {
        let data: Snapshot = [
            "listTodos": ["items": [["id": "1"], .null, ["id": "2"]], "nextToken": .null],
            "getTodo": ["id": "3"],
            "listNotes": [["id": "4"]],
            "countTodos": 5,
            "getNote": .null,
        ]
        #expect(SyncItems.items(of: data) == [["id": "3"], ["id": "4"], ["id": "1"], ["id": "2"]])
    }
}
