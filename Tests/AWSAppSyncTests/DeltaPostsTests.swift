import DeltaPostsAPI
import Foundation
import StratusServer
import StratusTesting
import Synchronization
import Testing

@testable import AWSAppSync

/// The delta sync guide's posts app, run against the local backend serving the guide's
/// `listPosts`, `listPostsDelta(lastSync:)`, `getPost(id:)` and `onDeltaPost` with a function.
@Suite(.timeLimit(.minutes(1))) struct DeltaPostsTests {
    /// The function answering every root field: the posts are kept in `posts.json` beside it,
    /// a deleted post stays there with `aws_ds: DELETE` and the second it changed, for the
    /// delta query.
    static let function = """
        import json, os, sys, time
        event = json.load(sys.stdin)
        field, args = event["fieldName"], event["arguments"]
        posts = json.load(open("posts.json")) if os.path.exists("posts.json") else {}
        now = int(time.time())
        shown = lambda post: {k: v for k, v in post.items() if k != "changed"}
        if field == "createPost":
            posts[args["id"]] = dict(args, version=1, changed=now)
            result = shown(posts[args["id"]])
        elif field == "deletePost":
            posts[args["id"]].update(aws_ds="DELETE", changed=now)
            result = shown(posts[args["id"]])
        elif field == "getPost":
            post = posts.get(args["id"])
            result = shown(post) if post and post.get("aws_ds") != "DELETE" else None
        elif field == "listPosts":
            result = [shown(p) for p in posts.values() if p.get("aws_ds") != "DELETE"]
        else:
            result = [shown(p) for p in posts.values() if p["changed"] >= (args.get("lastSync") or 0)]
        json.dump(posts, open("posts.json", "w"))
        print(json.dumps(result))
        """

    static let schema = URL(filePath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appending(path: "Fixtures/delta-posts.graphql")

    static func withBackend(_ body: (LocalBackend, URL) async throws -> Void) async throws {
        let directory = FileManager.default.temporaryDirectory.appending(path: "delta-posts-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try Data(Self.function.utf8).write(to: directory.appending(path: "posts.py"))
        var configuration = ServerConfiguration()
        configuration.functions["posts"] = LocalFunction(
            handler: .command(["python3", "posts.py"]),
            workingDirectory: directory,
            timeout: .seconds(20)
        )
        let backend = try await LocalBackend.start(
            schema: try String(contentsOf: Self.schema, encoding: .utf8),
            configuration: configuration
        )
        do {
            try await body(backend, directory)
        } catch {
            await backend.stop()
            throw error
        }
        await backend.stop()
    }

    /// A client whose query cache and sync metadata are in `directory`; each `run` has its own
    /// offline mutation queue, as a live client keeps its queue to itself.
    static func makeClient(_ backend: LocalBackend, cache directory: URL, run: Int = 1) throws -> AWSAppSyncClient {
        let cache = directory.appending(path: "cache")
        try FileManager.default.createDirectory(at: cache, withIntermediateDirectories: true)
        let appSyncConfig = try AWSAppSyncClientConfiguration(
            appSyncServiceConfig: AWSAppSyncServiceConfig(
                endpoint: backend.endpoint,
                region: "us-east-1",
                authType: .apiKey,
                apiKey: backend.apiKey
            ),
            cacheConfiguration: AWSAppSyncCacheConfiguration(
                offlineMutations: cache.appending(path: "offlineMutations-\(run).db"),
                queries: cache.appending(path: "queries.db"),
                subscriptionMetadataCache: cache.appending(path: "subscriptionMetadataCache.db")
            )
        )
        let appSyncClient = try AWSAppSyncClient(appSyncConfig: appSyncConfig)
        // Set id as the cache key for objects, as the guide's app delegate does.
        appSyncClient.apolloClient?.cacheKeyForObject = { $0["id"] }
        return appSyncClient
    }

    static func add(_ id: String, by client: AWSAppSyncClient) async throws {
        let added = try await client.perform(
            mutation: AddPostMutation(id: id, author: "Nadia", title: "Title \(id)", content: "Content \(id)")
        )
        #expect(added.errors == nil)
    }

    static func remove(_ id: String, by client: AWSAppSyncClient) async throws {
        let removed = try await client.perform(mutation: RemovePostMutation(id: id))
        #expect(removed.errors == nil)
        #expect(removed.data?.deletePost?.awsDs == DeltaAction.delete)
    }

    @Test func thePostsAppFollowsBaseSubscriptionAndDeltaQueries() async throws {
        try await Self.withBackend { backend, directory in
            let other = try Self.makeClient(backend, cache: directory.appending(path: "other"))
            try await Self.add("p1", by: other)
            try await Self.add("p2", by: other)

            // First run: the base query (nothing cached yet), then the subscription's changes.
            let app = PostsApp(appSyncClient: try Self.makeClient(backend, cache: directory))
            app.loadPostsWithSyncFeature()
            #expect(try await app.waitForPosts(["p1", "p2"]))
            #expect(app.baseSources.first == .server)
            try await Self.add("p3", by: other)
            #expect(try await app.waitForPosts(["p1", "p2", "p3"]))
            try await Self.remove("p1", by: other)
            #expect(try await app.waitForPosts(["p2", "p3"]))
            app.deltaWatcher?.cancel()

            // Changed while the app was not running.
            try await Self.add("p4", by: other)
            try await Self.remove("p2", by: other)

            // Second run: the base query's cached result first, then the delta query's changes.
            let second = PostsApp(appSyncClient: try Self.makeClient(backend, cache: directory, run: 2))
            second.loadPostsWithSyncFeature()
            #expect(try await second.waitForPosts(["p3", "p4"]))
            #expect(second.history.first == ["p2", "p3"], "the cached list came first")
            #expect(second.baseSources == [.cache], "the delta query ran, not the base query")
            second.deltaWatcher?.cancel()
        }
    }

    /// The guide's short form with `deltaResultHandler:`, without a subscription: a change made
    /// meanwhile arrives when the app asks the client to catch up, as on foregrounding.
    @Test func syncNowRunsTheDeltaQueryOfTheShortForm() async throws {
        try await Self.withBackend { backend, directory in
            let other = try Self.makeClient(backend, cache: directory.appending(path: "other"))
            try await Self.add("p1", by: other)
            let appSyncClient = try Self.makeClient(backend, cache: directory)
            let calls = HandlerCalls<String>()
            var iterator = calls.stream.makeAsyncIterator()
            let baseQueryResultHandler: @Sendable (GraphQLResult<ListPostsQuery.Data>?, (any Error)?) -> Void = {
                result,
                error in
                calls.handler(
                    "base " + (result?.data?.listPosts ?? []).compactMap { $0?.id }.joined(separator: ","),
                    error
                )
            }
            let deltaQueryResultHandler: DeltaQueryResultHandler<ListPostsDeltaQuery> = { result, _, error in
                let changes = (result?.data?.listPostsDelta ?? []).compactMap { post in
                    post.map { $0.id + ($0.awsDs == DeltaAction.delete ? " deleted" : "") }
                }
                calls.handler("delta " + changes.joined(separator: ","), error)
            }
            let deltaWatcher = appSyncClient.sync(
                baseQuery: ListPostsQuery(),
                baseQueryResultHandler: baseQueryResultHandler,
                deltaQuery: ListPostsDeltaQuery(),
                deltaResultHandler: deltaQueryResultHandler,
                callbackQueue: calls.queue
            )
            defer { deltaWatcher.cancel() }
            #expect(try await calls.next(&iterator).0 == "base p1")
            try await Self.remove("p1", by: other)
            appSyncClient.syncNow()
            #expect(try await calls.next(&iterator).0 == "delta p1 deleted")
        }
    }
}

/// The guide's `YourAppViewController` without UIKit: `postList`'s observer records each list
/// instead of reloading a table view, and the base query handler records where its result came from.
final class PostsApp: @unchecked Sendable {
    var appSyncClient: AWSAppSyncClient?
    var deltaWatcher: Cancellable?

    private let lists = Mutex<[[String]]>([])
    private let sources = Mutex<[GraphQLResult<ListPostsQuery.Data>.Source]>([])
    var history: [[String]] { lists.withLock { $0 } }
    var baseSources: [GraphQLResult<ListPostsQuery.Data>.Source] { sources.withLock { $0 } }

    var postList: [ListPostsQuery.Data.ListPost?]? = [] {
        didSet {
            let ids = (postList ?? []).compactMap { $0?.id }.sorted()
            lists.withLock { $0.append(ids) }
        }
    }

    init(appSyncClient: AWSAppSyncClient) {
        self.appSyncClient = appSyncClient
    }

    /// Waits until `postList` holds the posts `ids`, up to 30 seconds.
    func waitForPosts(_ ids: [String]) async throws -> Bool {
        let deadline = ContinuousClock.now + .seconds(30)
        while ContinuousClock.now < deadline {
            if lists.withLock({ $0.last }) == ids { return true }
            try await Task.sleep(for: .milliseconds(10))
        }
        Issue.record("postList never became \(ids); it was \(history)")
        return false
    }

    // The guide's helpers, as written.

    func loadAllPostsFromCache() {
        appSyncClient?.fetch(query: ListPostsQuery(), cachePolicy: .returnCacheDataDontFetch) { (result, error) in
            if error != nil {
                print(error?.localizedDescription ?? "")
                return
            }
            self.postList = result?.data?.listPosts
        }
    }

    func addOrUpdatePostInQuery(id: GraphQLID, title: String, author: String, content: String) {
        // Create a new object for the desired query, where the new object content should reside
        let postToAdd = ListPostsQuery.Data.ListPost(
            id: id,
            author: author,
            title: title,
            content: content
        )
        print("App: Processing \(id) for add/ update")
        let _ = appSyncClient?.store?.withinReadWriteTransaction({ (transaction) in
            do {
                // Update the local store with the newly received data
                try transaction.update(query: ListPostsQuery()) { (data: inout ListPostsQuery.Data) in
                    guard let items = data.listPosts else {
                        return
                    }
                    var pos = -1
                    var counter = 0
                    for post in items {
                        if post?.id == id {
                            pos = counter
                            continue
                        }
                        counter += 1
                    }
                    // Post is not present in query, add it.
                    if pos == -1 {
                        print("App: Adding \(id) now.")
                        data.listPosts?.append(postToAdd)
                    } else {
                        // It was an update operation, post will be automatically updated in cache.
                    }
                }
            } catch {
                print("App: Error updating store")
            }
        })
        self.loadAllPostsFromCache()
    }

    func deletePostFromCache(uniqueId: GraphQLID) {
        // Remove local object from cache.
        print("App: Removing \(uniqueId) from cache.")
        let _ = appSyncClient?.store?.withinReadWriteTransaction({ (transaction) in
            do {
                try transaction.update(
                    query: ListPostsQuery(),
                    { (data: inout ListPostsQuery.Data) in
                        guard let items = data.listPosts else {
                            return
                        }
                        var pos = -1
                        var counter = 0
                        for post in items {
                            if post?.id == uniqueId {
                                pos = counter
                                continue
                            }
                            counter += 1
                        }
                        print("App: \(uniqueId) index: \(pos).")
                        if pos != -1 {
                            print("App: Removing now \(uniqueId)")
                            data.listPosts?.remove(at: pos)
                        }
                    }
                )
            } catch {
                print("App: Error updating store")
            }
        })
        self.loadAllPostsFromCache()
    }

    func loadPostsWithSyncFeature() {
        let allPostsBaseQuery = ListPostsQuery()
        let allPostsDeltaQuery = ListPostsDeltaQuery()
        let postsSubscription = OnDeltaPostSubscription()

        deltaWatcher = appSyncClient?.sync(
            baseQuery: allPostsBaseQuery,
            baseQueryResultHandler: { (result, error) in
                if error != nil {
                    print(error?.localizedDescription ?? "")
                    return
                }
                if let source = result?.source { self.sources.withLock { $0.append(source) } }
                self.postList = result?.data?.listPosts
            },
            subscription: postsSubscription,
            subscriptionResultHandler: { (result, transaction, error) in
                if let result = result {
                    guard result.data != nil, result.data?.onDeltaPost != nil else {
                        return
                    }
                    // If the Post is to be deleted from the cache.
                    if result.data?.onDeltaPost?.awsDs == DeltaAction.delete {
                        self.deletePostFromCache(uniqueId: result.data!.onDeltaPost!.id)
                        return
                    }
                    // Store a reference to the new object
                    let newPost = result.data!.onDeltaPost!
                    self.addOrUpdatePostInQuery(
                        id: newPost.id,
                        title: newPost.title,
                        author: newPost.author,
                        content: newPost.content
                    )
                } else if let error = error {
                    print(error.localizedDescription)
                }
            },
            deltaQuery: allPostsDeltaQuery,
            deltaQueryResultHandler: { (result, transaction, error) in
                if let result = result {
                    guard result.data != nil, result.data?.listPostsDelta != nil else {
                        return
                    }
                    // Store a reference to the new updates
                    let deltas = result.data!.listPostsDelta!

                    for deltaPost in deltas {
                        print("App: Processing update on Post ID: \(deltaPost!.id)")
                        if deltaPost?.awsDs == DeltaAction.delete {
                            self.deletePostFromCache(uniqueId: deltaPost!.id)
                            continue
                        } else {
                            self.addOrUpdatePostInQuery(
                                id: deltaPost!.id,
                                title: deltaPost!.title,
                                author: deltaPost!.author,
                                content: deltaPost!.content
                            )
                        }
                    }
                } else if let error = error {
                    print(error.localizedDescription)
                }
                // Set a sync configuration of 5 minutes.
            },
            syncConfiguration: SyncConfiguration(baseRefreshIntervalInSeconds: 300)
        )
    }
}
