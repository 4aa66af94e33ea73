import Amplify
import AmplifyPlugins
import Foundation
import Testing

#if canImport(Combine)
    import Combine
#else
    import OpenCombine
#endif

/// The DataStore guide's snippets, from Setup to Observing relations, through `Amplify.DataStore`,
/// with the guide's imports (`import Amplify`, `import AmplifyPlugins`).
///
/// They configure the process-wide facade, so they run in a child process (see
/// ``ChildTest``) with `XDG_DATA_HOME` in a temporary directory, where the default database
/// path leads.
@Suite struct GuideSnippetTests {
    @Test(.enabled(if: ChildTest.isSupported && ChildTest.role == nil))
    func guideSnippetsRunThroughTheFacade() async throws {
        let directory = try TemporaryDirectory()
        let (status, output) = try await ChildTest.run(
            filter: "GuideSnippetsChild",
            role: "guide",
            environment: ["XDG_DATA_HOME": directory.url.path],
            directory: directory.url
        )
        #expect(status == .exited(0), "\(output)")
        let printed = output.split(separator: "\n").map(String.init).filter { $0.hasPrefix("guide: ") }
        #expect(
            printed == [
                "guide: Added post",
                "guide: Posts: 2",
                "guide: Rated above 4: My First Post",
                "guide: Rated above 4 or active: Another post, My First Post",
                "guide: Same with methods: Another post, My First Post",
                "guide: Updating the post 123",
                "guide: Post updated!",
                "guide: Subscription received mutation: update 123",
                "guide: Comment saved!",
                "guide: Comment: Optional(\"Loving Amplify DataStore\")",
                "guide: Saved user, post and postEditor!",
                "guide: Optional(\"Loving Amplify DataStore\")",
                "guide: Excited comments: [\"Wow! Amplify\"]",
                "guide: Post and comments deleted!",
                "guide: Post deleted!",
                "guide: Post deleted!",
            ],
            "\(output)"
        )
        let databases = FileManager.default.enumerator(atPath: directory.url.path)?
            .compactMap { $0 as? String }
            .filter { $0.hasSuffix("DataStore/datastore.sqlite") }
        #expect(databases?.count == 1)
    }
}

@Suite struct GuideSnippetsChild {
    /// Prints a line the parent checks.
    func say(_ text: String) {
        print("guide: \(text)")
    }

    /// Runs a snippet that ends by calling `done`.
    func step(_ snippet: (@escaping @Sendable () -> Void) -> Void) async {
        await withCheckedContinuation { continuation in
            snippet { continuation.resume() }
        }
    }

    @Test(.enabled(if: ChildTest.role == "guide"))
    func run() async throws {
        // Setup
        do {
            try Amplify.add(plugin: AWSDataStorePlugin(modelRegistration: AmplifyModels()))
            // add after all other plugins
            try Amplify.configure()
        } catch {
            print("An error occurred setting up Amplify: \(error)")
        }
        #expect(FileManager.default.fileExists(atPath: DataStoreConfiguration.defaultDatabaseURL().path))

        // Save Data
        await step { done in
            Amplify.DataStore.save(
                Post(
                    title: "My First Post",
                    rating: 10,
                    status: "active"
                )
            ) {
                switch $0 {
                case .success:
                    say("Added post")
                case .failure(let err):
                    say("Error adding post - \(err.localizedDescription)")
                }
                done()
            }
        }
        try await Amplify.DataStore.save(Post(id: "123", title: "Another post", rating: 3, status: "active"))

        // Query Data
        await step { done in
            Amplify.DataStore.query(Post.self) {
                switch $0 {
                case .success(let result):
                    say("Posts: \(result.count)")  // result will be of type [Post]
                case .failure(let err):
                    say("Error listing posts - \(err.localizedDescription)")
                }
                done()
            }
        }

        // Query with Predicates
        await step { done in
            let p = Post.keys
            Amplify.DataStore.query(Post.self, where: { p.rating > 4 }) {
                switch $0 {
                case .success(let result):
                    say("Rated above 4: \(result.map(\.title).joined(separator: ", "))")
                case .failure(let err):
                    say("Error listing posts - \(err.localizedDescription)")
                }
                done()
            }
        }
        await step { done in
            let p = Post.keys
            Amplify.DataStore.query(
                Post.self,
                where: { p.rating > 4 || p.status == "active" },
                sort: .ascending(p.title)
            ) {
                switch $0 {
                case .success(let result):
                    say("Rated above 4 or active: \(result.map(\.title).joined(separator: ", "))")
                case .failure(let err):
                    say("Error listing posts - \(err.localizedDescription)")
                }
                done()
            }
        }
        await step { done in
            let p = Post.keys
            Amplify.DataStore.query(
                Post.self,
                where: { p.rating.gt(4).or(p.status.eq("active")) },
                sort: .ascending(p.title)
            ) {
                if case .success(let result) = $0 {
                    say("Same with methods: \(result.map(\.title).joined(separator: ", "))")
                }
                done()
            }
        }

        // Observe Data
        let mutations = Recorder<String>()
        let postSubscription = Amplify
            .DataStore
            .publisher(for: Post.self)
            .sink(receiveCompletion: { completion in
                if case .failure(let err) = completion {
                    print("Subscription received error - \(err.localizedDescription)")
                }
            }) {
                mutations.append("Subscription received mutation: \($0.mutationType) \($0.modelId)")
            }

        // Update Data
        await step { done in
            Amplify.DataStore.query(Post.self, byId: "123") {
                switch $0 {
                case .success(let post):
                    say("Updating the post \(post?.id ?? "nil")")
                    if var updatedPost = post {
                        updatedPost.status = "inactive"
                        Amplify.DataStore.save(updatedPost) { res in
                            switch res {
                            case .success:
                                say("Post updated!")
                            case .failure(let err):
                                say("Failed to update post - \(err.localizedDescription)")
                            }
                            done()
                        }
                    } else {
                        done()
                    }
                case .failure(let err):
                    say("Post not found - \(err.localizedDescription)")
                    done()
                }
            }
        }
        try await waitUntil { mutations.count == 1 }
        // When finished observing
        postSubscription.cancel()
        mutations.values.forEach(say)

        // Observing relations
        let comments = Recorder<String>()
        let commentsSubscription = Amplify
            .DataStore
            .publisher(for: Comment.self)
            .tryMap { try $0.decodeModel() as? Comment }
            .compactMap { $0 }
            .sink(receiveCompletion: { completion in
                if case .failure(let err) = completion {
                    print("Subscription received error - \(err.localizedDescription)")
                }
            }) { comment in
                comments.append("Comment: \(String(describing: comment.content))")
            }

        // Saving relations
        let postWithComments = Post(
            title: "My post with comments",
            rating: 5,
            status: "active"
        )
        let comment = Comment(content: "Loving Amplify DataStore", post: postWithComments)
        await step { done in
            Amplify.DataStore.save(postWithComments) {
                switch $0 {
                case .failure(let err):
                    say("Error adding post - \(err.localizedDescription)")
                    done()
                case .success:
                    Amplify.DataStore.save(comment) {
                        switch $0 {
                        case .success:
                            say("Comment saved!")
                        case .failure(let err):
                            say("Error adding comment - \(err.localizedDescription)")
                        }
                        done()
                    }
                }
            }
        }
        try await waitUntil { comments.count == 1 }
        // When finished observing
        commentsSubscription.cancel()
        comments.values.forEach(say)

        // Many to many
        let postWithEditors = Post(title: "Post with editors", rating: 4, status: "active")
        let nadia = User(username: "nadia")
        let postEditor = PostEditor(post: postWithEditors, editor: nadia)
        await step { done in
            Amplify.DataStore.save(postWithEditors) {
                switch $0 {
                case .failure(let err):
                    say("Error adding post - \(err.localizedDescription)")
                    done()
                case .success:
                    Amplify.DataStore.save(nadia) {
                        switch $0 {
                        case .failure(let err):
                            say("Error adding user - \(err.localizedDescription)")
                            done()
                        case .success:
                            Amplify.DataStore.save(postEditor) {
                                switch $0 {
                                case .failure(let err):
                                    say("Error saving postEditor - \(err.localizedDescription)")
                                case .success:
                                    say("Saved user, post and postEditor!")
                                }
                                done()
                            }
                        }
                    }
                }
            }
        }
        let editors = try await Amplify.DataStore.query(Post.self, byId: postWithEditors.id)?.editors
        #expect(editors?.compactMap { $0.editor?.username } == ["nadia"])

        // Querying relations: the post as the store gives it back.
        try await Amplify.DataStore.save(Comment(content: "Wow! Amplify", post: postWithComments))
        do {
            let postWithComments = try #require(try await Amplify.DataStore.query(Post.self, byId: postWithComments.id))
            if let comments = postWithComments.comments {
                for comment in comments.prefix(1) {
                    say(String(describing: comment.content))
                }
            }
            let excitedComments =
                postWithComments
                .comments?
                .compactMap { $0.content }
                .filter { $0.contains("Wow!") }
            say("Excited comments: \(excitedComments ?? [])")
        }

        // Deleting relations
        await step { done in
            Amplify.DataStore.delete(postWithComments) {
                switch $0 {
                case .success:
                    say("Post and comments deleted!")
                case .failure(let err):
                    say("Error deleting post and comments - \(err.localizedDescription)")
                }
                done()
            }
        }
        #expect(try await Amplify.DataStore.query(Comment.self).isEmpty)

        // Delete Data
        let post = try #require(
            try await Amplify.DataStore.query(Post.self, where: Post.keys.title == "My First Post").first
        )
        await step { done in
            Amplify.DataStore.delete(post) {
                switch $0 {
                case .success:
                    say("Post deleted!")
                case .failure(let err):
                    say("Error deleting post - \(err.localizedDescription)")
                }
                done()
            }
        }
        await step { done in
            Amplify.DataStore.delete(Post.self, withId: "123") {
                switch $0 {
                case .success:
                    say("Post deleted!")
                case .failure(let err):
                    say("Error deleting post - \(err.localizedDescription)")
                }
                done()
            }
        }
        #expect(try await Amplify.DataStore.query(Post.self).map(\.title) == ["Post with editors"])
        await Amplify.reset()
    }
}
