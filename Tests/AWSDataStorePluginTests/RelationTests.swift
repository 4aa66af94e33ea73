import Amplify
import BlogModels
import Foundation
import GRDB
import Synchronization
import Testing

@testable import AWSDataStorePlugin

/// Relations load lazily from the store, and deletes cascade to children.
@Suite struct RelationTests {
    @Test func hasManyIsALazyCollection() async throws {
        let store = try TestStore(AmplifyModels())
        let post = try await store.plugin.save(Post(title: "With comments", rating: 5, status: "active"))
        for content in ["Wow! First", "Second", "Wow! Third"] {
            try await store.plugin.save(Comment(content: content, post: post))
        }
        try await store.plugin.save(Post(title: "Other", rating: 1, status: "active"))
        let loaded = try #require(try await store.plugin.query(Post.self, byId: post.id))
        let comments = try #require(loaded.comments)
        #expect(!comments.isLoaded)
        let excited = loaded.comments?.compactMap { $0.content }.filter { $0.contains("Wow!") }
        #expect(comments.isLoaded)
        #expect(excited == ["Wow! First", "Wow! Third"])
        #expect(comments.count == 3)
        #expect(comments.map(\.content) == ["Wow! First", "Second", "Wow! Third"])
    }

    @Test func belongsToLoadsOnAccess() async throws {
        let store = try TestStore(AmplifyModels())
        let post = try await store.plugin.save(Post(title: "Parent", rating: 5, status: "active"))
        try await store.plugin.save(Comment(id: "c1", content: "Child", post: post))
        let comment = try #require(try await store.plugin.query(Comment.self, byId: "c1"))
        #expect(comment.post?.title == "Parent")
        #expect(comment.post?.comments?.map(\.id) == ["c1"])
    }

    @Test func hasOneLoadsOnAccessAndCascades() async throws {
        let store = try TestStore()
        let blog = try await store.plugin.save(Blog(id: "b1", name: "Blog"))
        let settings = try await store.plugin.save(BlogSettings(id: "s1", theme: "dark", blog: blog))
        var withSettings = blog
        withSettings.settings = settings
        try await store.plugin.save(withSettings)
        let loaded = try #require(try await store.plugin.query(Blog.self, byId: "b1"))
        #expect(loaded.blogSettingsId == "s1")
        #expect(loaded.settings?.theme == "dark")
        try await store.plugin.delete(loaded)
        #expect(try await store.plugin.query(BlogSettings.self).isEmpty)
    }

    @Test func manyToManyGoesThroughTheJoinModel() async throws {
        let store = try TestStore(AmplifyModels())
        let post = try await store.plugin.save(Post(id: "p1", title: "Edited post", rating: 3, status: "active"))
        let nadia = try await store.plugin.save(User(id: "u1", username: "nadia"))
        let tom = try await store.plugin.save(User(id: "u2", username: "tom"))
        try await store.plugin.save(PostEditor(post: post, editor: nadia))
        try await store.plugin.save(PostEditor(post: post, editor: tom))
        let loaded = try #require(try await store.plugin.query(Post.self, byId: "p1"))
        #expect(loaded.editors?.compactMap { $0.editor?.username } == ["nadia", "tom"])
        let user = try #require(try await store.plugin.query(User.self, byId: "u1"))
        #expect(user.posts?.compactMap { $0.post?.title } == ["Edited post"])
        // Deleting the post removes the join records, never the users.
        try await store.plugin.delete(loaded)
        #expect(try await store.plugin.query(PostEditor.self).isEmpty)
        #expect(try await store.plugin.query(User.self).map(\.username) == ["nadia", "tom"])
    }

    @Test func deletingAParentCascadesChildrenFirstInOneTransaction() async throws {
        let store = try TestStore()
        let blog = try await store.plugin.save(Blog(id: "b1", name: "Blog"))
        let post = try await store.plugin.save(Fixtures.post("p1", blog: blog))
        try await store.plugin.save(Fixtures.post("p2", blog: blog))
        try await store.plugin.save(BlogComment(id: "c1", content: "one", post: post))
        try await store.plugin.save(BlogComment(id: "c2", content: "two", post: post))
        let tag = try await store.plugin.save(Tag(id: "t1", label: "swift"))
        try await store.plugin.save(PostTags(id: "pt1", post: post, tag: tag))
        let otherBlog = try await store.plugin.save(Blog(id: "b2", name: "Other"))
        try await store.plugin.save(Fixtures.post("p3", blog: otherBlog))
        try await store.markAllSent()
        let outboxBefore = try await store.plugin.pendingMutations().count

        let events = Recorder<String>()
        let engine = try store.engine
        // The hub tells its observers on the writer's queue, in commit order, whatever the model.
        let published = Recorder<String>()
        let observers = ["Blog", "Post", "Comment", "PostTags", "Tag"].map { model in
            engine.hub.addObserver(
                modelName: model,
                receive: { notification in
                    if case .mutation(let event) = notification {
                        published.append("\(event.mutationType) \(event.modelName) \(event.modelId)")
                    }
                },
                finish: {}
            )
        }
        var streams: [Task<Void, any Error>] = []
        for model in ["Blog", "Post", "Comment", "PostTags", "Tag"] {
            let stream = engine.observe(modelName: model)
            streams.append(
                Task {
                    for try await event in stream {
                        events.append("\(event.mutationType) \(event.modelName) \(event.modelId)")
                    }
                }
            )
        }
        try await store.plugin.delete(blog)

        #expect(try await store.plugin.query(Blog.self).map(\.id) == ["b2"])
        #expect(try await store.plugin.query(BlogPost.self).map(\.id) == ["p3"])
        #expect(try await store.plugin.query(BlogComment.self).isEmpty)
        #expect(try await store.plugin.query(PostTags.self).isEmpty)
        #expect(try await store.plugin.query(Tag.self).map(\.id) == ["t1"])
        let deletes = try await store.plugin.pendingMutations().dropFirst(outboxBefore)
        #expect(
            deletes.map { "\($0.mutationType) \($0.modelName) \($0.modelId)" } == [
                "delete Comment c1", "delete Comment c2", "delete PostTags pt1", "delete Post p1", "delete Post p2",
                "delete Blog b1",
            ]
        )
        #expect(published.values == deletes.map { "\($0.mutationType) \($0.modelName) \($0.modelId)" })
        for observer in observers { engine.hub.removeObserver(observer) }
        try await waitUntil { events.count == 6 }
        // Each model's stream is read by its own task, so the order across streams is the
        // scheduler's; the outbox above shows the order of the deletions themselves.
        #expect(
            events.values.sorted() == [
                "delete Blog b1", "delete Comment c1", "delete Comment c2", "delete Post p1", "delete Post p2",
                "delete PostTags pt1",
            ]
        )
        let deletedMarks = try await engine.pool.read { db in
            try String.fetchAll(
                db,
                sql: #"SELECT "id" FROM "_stratus_sync_metadata" WHERE "deleted" = 1 ORDER BY "id""#
            )
        }
        #expect(deletedMarks == ["Blog|b1", "Comment|c1", "Comment|c2", "PostTags|pt1", "Post|p1", "Post|p2"])
        for stream in streams { stream.cancel() }
    }

    @Test func deletingByPredicateCascadesToo() async throws {
        let store = try TestStore(AmplifyModels())
        let kept = try await store.plugin.save(Post(id: "p1", title: "Kept", rating: 5, status: "active"))
        let gone = try await store.plugin.save(Post(id: "p2", title: "Gone", rating: 1, status: "active"))
        try await store.plugin.save(Comment(id: "c1", content: "on kept", post: kept))
        try await store.plugin.save(Comment(id: "c2", content: "on gone", post: gone))
        try await store.plugin.delete(Post.self, where: Post.keys.rating < 3)
        #expect(try await store.plugin.query(Comment.self).map(\.id) == ["c1"])
        #expect(try await store.plugin.query(Post.self).map(\.id) == ["p1"])
    }

    @Test func loadsAfterTheStoreStopsComeBackEmpty() async throws {
        let store = try TestStore(AmplifyModels())
        let post = try await store.plugin.save(Post(id: "p1", title: "Post", rating: 5, status: "active"))
        try await store.plugin.save(Comment(id: "c1", content: "x", post: post))
        let loaded = try #require(try await store.plugin.query(Post.self, byId: "p1"))
        try await store.plugin.stop()
        #expect(loaded.comments?.isEmpty == true)
    }
}

/// Waits until `condition` holds, for at most 30 seconds (it usually holds within
/// milliseconds; a loaded machine can be much slower).
func waitUntil(_ condition: @Sendable () -> Bool) async throws {
    let deadline = ContinuousClock.now + .seconds(30)
    while !condition() {
        guard ContinuousClock.now < deadline else {
            Issue.record("The condition did not hold within 30 seconds.")
            return
        }
        try await Task.sleep(for: .milliseconds(5))
    }
}

extension RelationTests {
    /// `fetch()` and `get()` load from the store; a load that fails is logged as an error, and
    /// the relation stays unloaded rather than empty.
    @Test func relationsFetchFromTheStoreAndLogFailedLoads() async throws {
        let store = try TestStore(AmplifyModels())
        let post = try await store.plugin.save(Post(id: "p1", title: "Parent", rating: 5, status: "active"))
        try await store.plugin.save(Comment(id: "c1", content: "Child", post: post))

        let loaded = try #require(try await store.plugin.query(Post.self, byId: "p1"))
        let comments = try #require(loaded.comments)
        try await comments.fetch()
        guard case .loaded(let elements) = comments.loadedState else {
            Issue.record("fetch() did not load the comments")
            return
        }
        #expect(elements.map(\.id) == ["c1"])
        let comment = try #require(try await store.plugin.query(Comment.self, byId: "c1"))
        #expect(try await comment._post.get()?.title == "Parent")

        // Once the store is closed, loads fail: reported, not cached.
        let unloaded = try #require(try await store.plugin.query(Post.self, byId: "p1"))
        let orphan = try #require(try await store.plugin.query(Comment.self, byId: "c1"))
        await store.plugin.reset()
        let lazy = try #require(unloaded.comments)
        #expect(lazy.count == 0)
        #expect(!lazy.isLoaded)
        #expect(orphan.post == nil)
        #expect(!orphan._post.isLoaded)
        await #expect(throws: DataStoreError.self) { try await lazy.fetch() }
        await #expect(throws: DataStoreError.self) { try await orphan._post.get() }
        let failures = store.logs.messages.filter { $0.hasPrefix("Loading ") }
        let closed =
            "SQLite failed on the DataStore database at '\(store.databaseURL.path)': SQLite error 21: "
            + "Connection is closed"
        let advice =
            "It reads as not there until an access loads it; call `try await list.fetch()` or "
            + "`try await reference.get()` to receive the error."
        #expect(
            failures == [
                "Loading Comment where commentPostId = p1 failed: \(closed). \(advice)",
                "Loading Post where id = p1 failed: \(closed). \(advice)",
            ]
        )
    }
}
