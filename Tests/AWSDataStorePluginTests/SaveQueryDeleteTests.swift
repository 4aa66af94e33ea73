import Amplify
import BlogModels
import Foundation
import GRDB
import Testing

@testable import AWSDataStorePlugin

@Suite struct SaveQueryDeleteTests {
    @Test func savedModelsComeBackEqual() async throws {
        let store = try TestStore()
        let blog = try await store.plugin.save(Fixtures.blog())
        var post = Fixtures.post("p1", title: "Hello", blog: blog, status: .published, rating: 5)
        post.score = 4.5
        post.published = true
        post.publishedOn = try Temporal.Date(iso8601String: "2024-03-01")
        post.publishedAt = try Temporal.DateTime(iso8601String: "2024-03-01T10:00:00.123Z")
        post.reminderTime = try Temporal.Time(iso8601String: "08:30:00")
        post.expiresAt = 1_700_000_000
        post.keywords = ["swift", "sqlite"]
        post.ratings = [1, nil, 3]
        post.statusHistory = [.draft, .inReview]
        post.locations = [GeoPoint(latitude: 1.5, longitude: -2)]
        try await store.plugin.save(post)

        let loaded = try #require(try await store.plugin.query(BlogPost.self, byId: "p1"))
        #expect(loaded.title == "Hello")
        #expect(loaded.blogID == "b1")
        #expect(loaded.status == .published)
        #expect(loaded.score == 4.5)
        #expect(loaded.published == true)
        #expect(loaded.publishedOn == post.publishedOn)
        #expect(loaded.publishedAt == post.publishedAt)
        #expect(loaded.reminderTime == post.reminderTime)
        #expect(loaded.expiresAt == 1_700_000_000)
        #expect(loaded.keywords == ["swift", "sqlite"])
        #expect(loaded.ratings == [1, nil, 3])
        #expect(loaded.statusHistory == [.draft, .inReview])
        #expect(loaded.locations == [GeoPoint(latitude: 1.5, longitude: -2)])
        #expect(try await store.plugin.query(BlogPost.self, byId: "nope") == nil)
    }

    @Test func saveUpdatesAnExistingRecordInPlace() async throws {
        let store = try TestStore()
        try await store.plugin.save(Fixtures.blog())
        try await store.plugin.save(Fixtures.post("p1", title: "First"))
        try await store.plugin.save(Fixtures.post("p2", title: "Second"))
        try await store.markAllSent()
        var first = try #require(try await store.plugin.query(BlogPost.self, byId: "p1"))
        first.title = "First, edited"
        try await store.plugin.save(first)
        let titles = try await store.plugin.query(BlogPost.self).map(\.title)
        #expect(titles == ["First, edited", "Second"])
        let types = try await store.plugin.pendingMutations().map(\.mutationType)
        #expect(types == ["create", "create", "create", "update"])
    }

    @Test func deleteByModelByIdAndByPredicate() async throws {
        let store = try TestStore()
        try await store.plugin.save(Fixtures.blog())
        for index in 1...5 {
            try await store.plugin.save(Fixtures.post("p\(index)", rating: index))
        }
        try await store.markAllSent()
        try await store.plugin.delete(Fixtures.post("p1"))
        try await store.plugin.delete(BlogPost.self, withId: "p2")
        try await store.plugin.delete(BlogPost.self, where: BlogPost.keys.rating >= 4)
        #expect(try await store.plugin.query(BlogPost.self).map(\.id) == ["p3"])
        // Deleting what is not stored does nothing.
        try await store.plugin.delete(BlogPost.self, withId: "p2")
        let deletes = try await store.plugin.pendingMutations().filter { $0.mutationType == "delete" }
        #expect(deletes.map(\.modelId) == ["p1", "p2", "p4", "p5"])
    }

    @Test func compositeKeysNameRecordsByTheirJoinedValues() async throws {
        let store = try TestStore()
        try await store.plugin.save(Author(country: "FR", handle: "ada", displayName: "Ada"))
        try await store.plugin.save(Author(country: "FR", handle: "a#b", displayName: "Hash"))
        try await store.plugin.save(Author(country: "UK", handle: "ada", displayName: "Other"))
        #expect(try await store.plugin.query(Author.self, byId: "FR#ada")?.displayName == "Ada")
        #expect(try await store.plugin.query(Author.self, byId: "FR#a#b")?.displayName == "Hash")
        #expect(try await store.plugin.query(Author.self, byId: "UK#ada")?.displayName == "Other")
        try await store.plugin.delete(Author.self, withId: "FR#a#b")
        #expect(try await store.plugin.query(Author.self).count == 2)
    }

    @Test func customPrimaryKeysReadAndDeleteByIdentifier() async throws {
        let store = try TestStore()
        try await store.plugin.save(Author(country: "FR", handle: "ada", displayName: "Ada"))
        try await store.plugin.save(Author(country: "UK", handle: "ada", displayName: "Other"))
        let author = try #require(try await store.plugin.query(Author.self, byIdentifier: "FR#ada"))
        #expect(author.displayName == "Ada")
        #expect(try await store.plugin.query(Author.self, byIdentifier: author.identifier) == author)
        #expect(try await store.plugin.query(Author.self, byIdentifier: "FR#nobody") == nil)
        try await store.plugin.delete(Author.self, withIdentifier: "UK#ada")
        #expect(try await store.plugin.query(Author.self).map(\.displayName) == ["Ada"])
    }

    /// The generated `.identifier(country:handle:)` names each key field, so that a handle with
    /// the separator in it is read and deleted as it is.
    @Test func customPrimaryKeysReadAndDeleteByTheGeneratedIdentifier() async throws {
        let store = try TestStore()
        try await store.plugin.save(Author(country: "FR", handle: "ada", displayName: "Ada"))
        try await store.plugin.save(Author(country: "FR", handle: "a#b", displayName: "Hash"))
        let author = try #require(
            try await store.plugin.query(Author.self, byIdentifier: .identifier(country: "FR", handle: "ada"))
        )
        #expect(author.displayName == "Ada")
        #expect(
            try await store.plugin.query(Author.self, byIdentifier: .identifier(country: "UK", handle: "ada")) == nil
        )
        #expect(
            try await store.plugin.query(Author.self, byIdentifier: .identifier(country: "FR", handle: "a#b"))?
                .displayName == "Hash"
        )
        try await store.plugin.delete(Author.self, withIdentifier: .identifier(country: "FR", handle: "a#b"))
        #expect(try await store.plugin.query(Author.self).map(\.displayName) == ["Ada"])
    }

    @Test func conditionalSaveChecksTheStoredRecord() async throws {
        let store = try TestStore()
        try await store.plugin.save(Fixtures.blog())
        var post = try await store.plugin.save(Fixtures.post("p1", rating: 4))
        post.title = "Edited"
        try await store.plugin.save(post, where: BlogPost.keys.rating > 3)
        post.title = "Edited again"
        await #expect(throws: DataStoreError.self) {
            try await store.plugin.save(post, where: BlogPost.keys.rating > 4)
        }
        do {
            try await store.plugin.save(post, where: BlogPost.keys.rating > 4)
        } catch let error as DataStoreError {
            #expect(error.code == .conditionalSaveFailed)
            #expect(
                error.message
                    == "The stored Post does not match the condition, so it was not saved. Query it again and retry with a condition it matches."
            )
        }
        #expect(try await store.plugin.query(BlogPost.self, byId: "p1")?.title == "Edited")
        let events = try await store.plugin.pendingMutations()
        #expect(events.last?.graphQLFilterJSON == #"{"rating":{"gt":3}}"#)
    }

    @Test func aConditionOnACreateIsAnError() async throws {
        let store = try TestStore()
        try await store.plugin.save(Fixtures.blog())
        let error = await #expect(throws: DataStoreError.self) {
            try await store.plugin.save(Fixtures.post("p1"), where: BlogPost.keys.rating > 3)
        }
        #expect(error?.code == .invalidCondition)
        #expect(
            error?.message
                == "Post 'p1' is not saved yet, and a condition applies only to updates. Save the new Post without a condition."
        )
        #expect(try await store.plugin.query(BlogPost.self).isEmpty)
    }

    @Test func conditionalDeleteChecksTheStoredRecord() async throws {
        let store = try TestStore()
        try await store.plugin.save(Fixtures.blog())
        let post = try await store.plugin.save(Fixtures.post("p1", rating: 2))
        let error = await #expect(throws: DataStoreError.self) {
            try await store.plugin.delete(post, where: BlogPost.keys.rating > 3)
        }
        #expect(error?.code == .conditionalSaveFailed)
        try await store.plugin.delete(post, where: BlogPost.keys.rating < 3)
        #expect(try await store.plugin.query(BlogPost.self).isEmpty)
    }

    @Test func missingRequiredFieldNamesTheFieldAndTheFix() async throws {
        let store = try TestStore()
        let error = await #expect(throws: DataStoreError.self) {
            try await store.plugin.save(BlogPost(title: "No blog", status: .draft))
        }
        #expect(error?.code == .invalidModel)
        #expect(
            error?.message
                == "Post.blogID is required, but the Post being saved has no value for it. Set blog (or blogID) before saving."
        )
    }

    @Test func unsavedParentIsNamed() async throws {
        let store = try TestStore()
        let error = await #expect(throws: DataStoreError.self) {
            try await store.plugin.save(Fixtures.post("p1", blog: Fixtures.blog("b9")))
        }
        #expect(
            error?.message
                == "Post 'p1' belongs to Blog 'b9' (blogID), which is not saved. Save the Blog first, or set blog to a saved one."
        )
    }

    @Test func unregisteredModelIsNamed() async throws {
        let store = try TestStore(AmplifyModels())
        let error = await #expect(throws: DataStoreError.self) {
            _ = try await store.plugin.query(Blog.self)
        }
        #expect(error?.code == .unregisteredModel)
        #expect(
            error?.message
                == "Blog is not one of the models this DataStore stores (registered: Post, Comment, PostEditor, User). Pass the AmplifyModels() that contains Blog to AWSDataStorePlugin(modelRegistration:), regenerating it with `stratus codegen models` if the schema changed."
        )
    }

    @Test func predicateOnAnUnknownFieldIsNamed() async throws {
        let store = try TestStore()
        let error = await #expect(throws: DataStoreError.self) {
            _ = try await store.plugin.query(Blog.self, where: field("nmae") == "x")
        }
        #expect(error?.code == .invalidCondition)
        #expect(
            error?.message
                == "Blog has no field 'nmae' (fields: id, name, visibility, posts, settings, address, blogSettingsId, owner, createdAt, updatedAt). Use a field from Blog.keys."
        )
    }

    @Test func wrongValueTypeNamesTheFieldAndTheValue() async throws {
        let store = try TestStore()
        let table = try store.engine.catalog.tables["Post"]!
        #expect(throws: DataStoreError.self) {
            _ = try table.record(from: ["id": "p1", "title": "t", "blogID": "b1", "status": "DRAFT", "rating": "4"])
        }
        do {
            _ = try table.record(from: ["id": "p1", "title": "t", "blogID": "b1", "status": "DRAFT", "rating": "4"])
        } catch {
            #expect(
                error.message
                    == "Post.rating is Int, but the Post being saved holds \"4\" (a string) there. Store a value of type Int in rating, or regenerate the models with `stratus codegen models` if the schema changed."
            )
        }
        do {
            _ = try table.record(from: [
                "id": "p1", "title": "t", "blogID": "b1", "status": "DRAFT", "publishedOn": "2024-13-01",
            ])
        } catch {
            #expect(
                error.message.hasPrefix(
                    "Post.publishedOn is Temporal.Date, but the Post being saved holds \"2024-13-01\" (a string) there ("
                )
            )
        }
    }

    @Test func sortAndPaginate() async throws {
        let store = try TestStore()
        try await store.plugin.save(Fixtures.blog())
        let ratings = [3, 1, 4, 1, 5, 9, 2, 6]
        for (index, rating) in ratings.enumerated() {
            try await store.plugin.save(Fixtures.post("p\(index)", title: "T\(index % 3)", rating: rating))
        }
        let p = BlogPost.keys
        let byRating = try await store.plugin.query(BlogPost.self, sort: .descending(p.rating)).map(\.rating)
        #expect(byRating == [9, 6, 5, 4, 3, 2, 1, 1])
        let byTitleThenRating = try await store.plugin.query(
            BlogPost.self,
            sort: .by(.ascending(p.title), .descending(p.rating))
        ).map(\.id)
        #expect(byTitleThenRating == ["p0", "p6", "p3", "p7", "p4", "p1", "p5", "p2"])
        let page = try await store.plugin.query(BlogPost.self, sort: .ascending(p.rating), paginate: .page(1, limit: 3))
        #expect(page.map(\.id) == ["p0", "p2", "p4"])
        // Ties keep the order records were saved in, so pages never overlap.
        let pages = try await (0..<3).asyncFlatMap { page in
            try await store.plugin.query(
                BlogPost.self,
                sort: .ascending(p.title),
                paginate: .page(UInt(page), limit: 3)
            )
        }
        #expect(pages.map(\.id) == ["p0", "p3", "p6", "p1", "p4", "p7", "p2", "p5"])
        #expect(try await store.plugin.query(BlogPost.self, paginate: .firstResult).map(\.id) == ["p0"])
        let error = await #expect(throws: DataStoreError.self) {
            _ = try await store.plugin.query(BlogPost.self, sort: .ascending(p.comments))
        }
        #expect(
            error?.message == "Post.comments is a hasMany relation and cannot be sorted by. Sort by a field of Post."
        )
    }
}

extension Sequence where Element: Sendable {
    func asyncFlatMap<T>(_ transform: (Element) async throws -> [T]) async rethrows -> [T] {
        var result: [T] = []
        for element in self { result += try await transform(element) }
        return result
    }
}

@Suite struct TemporalSortTests {
    @Test func temporalFieldsSortByInstant() async throws {
        let store = try TestStore()
        try await store.plugin.save(Fixtures.blog())
        let times = [
            "2024-01-02T04:00:00+02:00", "2024-01-02T03:00:00Z", "2024-01-02T02:30:00Z", "2024-01-01T23:00:00-05:00",
        ]
        for (index, time) in times.enumerated() {
            var post = Fixtures.post("p\(index)")
            post.publishedAt = try Temporal.DateTime(iso8601String: time)
            try await store.plugin.save(post)
        }
        let p = BlogPost.keys
        let ascending = try await store.plugin.query(BlogPost.self, sort: .ascending(p.publishedAt))
        #expect(ascending.map(\.id) == ["p0", "p2", "p1", "p3"])
        let descending = try await store.plugin.query(
            BlogPost.self,
            sort: .by(.descending(p.publishedAt), .ascending(p.id))
        )
        #expect(descending.map(\.id) == ["p3", "p1", "p2", "p0"])
    }
}

@Suite struct RegistrationErrorTests {
    struct CommentsOnly: AmplifyModelRegistration {
        let version = "comments-only"

        func registerModels(registry: ModelRegistry.Type) {
            registry.register(modelType: Comment.self)
        }
    }

    @Test func aRelationToAModelThatIsNotRegisteredIsNamed() async throws {
        let store = try TestStore(CommentsOnly())
        let error = await #expect(throws: DataStoreError.self) { try await store.plugin.start() }
        #expect(error?.code == .configuration)
        #expect(
            error?.message
                == "Comment.post relates to Post, which the model registration does not contain. Regenerate the models with `stratus codegen models` so that AmplifyModels registers Post."
        )
    }
}

extension RegistrationErrorTests {
    struct PostsWithoutComments: AmplifyModelRegistration {
        let version = "posts-only"

        func registerModels(registry: ModelRegistry.Type) {
            registry.register(modelType: Post.self)
            registry.register(modelType: PostEditor.self)
            registry.register(modelType: User.self)
        }
    }

    @Test func aHasManyToAModelThatIsNotRegisteredIsNamed() async throws {
        let store = try TestStore(PostsWithoutComments())
        let error = await #expect(throws: DataStoreError.self) { try await store.plugin.start() }
        #expect(
            error?.message
                == "Post.comments relates to Comment, which the model registration does not contain. Regenerate the models with `stratus codegen models` so that AmplifyModels registers Comment."
        )
    }
}
