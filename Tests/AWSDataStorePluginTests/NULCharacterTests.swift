import Amplify
import BlogModels
import Foundation
import Testing

@testable import AWSDataStorePlugin

/// Strings holding U+0000 (NUL) are stored and read back exactly, as identifiers, as field values
/// and in predicates: `"a\u{0}one"` and `"a\u{0}two"` are two different records, not two saves of
/// `"a"`.
@Suite struct NULCharacterTests {
    static let one = "a\u{0}one"
    static let two = "a\u{0}two"

    func store() async throws -> TestStore {
        let store = try TestStore()
        try await store.plugin.save(Fixtures.blog())
        try await store.plugin.save(Fixtures.post(Self.one, title: Self.one, rating: 1))
        try await store.plugin.save(Fixtures.post(Self.two, title: Self.two, rating: 2))
        return store
    }

    @Test func identifiersAndValuesRoundTrip() async throws {
        let store = try await store()
        let posts = try await store.plugin.query(BlogPost.self)
        #expect(posts.map(\.id) == [Self.one, Self.two])
        #expect(posts.map(\.title) == [Self.one, Self.two])
        #expect(try await store.plugin.query(BlogPost.self, byId: Self.one)?.rating == 1)
        #expect(try await store.plugin.query(BlogPost.self, byId: Self.two)?.rating == 2)
        #expect(try await store.plugin.query(BlogPost.self, byId: "a") == nil)
        let events = try await store.plugin.pendingMutations()
        #expect(events.map(\.modelId) == ["b1", Self.one, Self.two])
        #expect(events.map(\.mutationType) == ["create", "create", "create"])
        let decoded = try events.dropFirst().map { try $0.decodeModel(as: BlogPost.self).title }
        #expect(decoded == [Self.one, Self.two])
        // A reopened store reads the same.
        let reopened = store.reopened()
        #expect(try await reopened.query(BlogPost.self).map(\.id) == [Self.one, Self.two])
    }

    @Test(
        arguments: [
            (BlogPost.keys.id == NULCharacterTests.one, [NULCharacterTests.one]),
            (BlogPost.keys.title == NULCharacterTests.two, [NULCharacterTests.two]),
            (BlogPost.keys.title != NULCharacterTests.one, [NULCharacterTests.two]),
            (BlogPost.keys.title == "a", []),
            (BlogPost.keys.title > NULCharacterTests.one, [NULCharacterTests.two]),
            (BlogPost.keys.title.beginsWith("a\u{0}t"), [NULCharacterTests.two]),
            (BlogPost.keys.title.beginsWith("a\u{0}"), [NULCharacterTests.one, NULCharacterTests.two]),
            (BlogPost.keys.title.contains("\u{0}o"), [NULCharacterTests.one]),
            (BlogPost.keys.title.notContains("\u{0}o"), [NULCharacterTests.two]),
        ] as [(any QueryPredicate, [String])]
    )
    func predicatesCompareExactly(predicate: any QueryPredicate, expected: [String]) async throws {
        let store = try await store()
        #expect(try await store.plugin.query(BlogPost.self, where: predicate).map(\.id) == expected)
    }

    @Test func updatesAndDeletesNameOneRecord() async throws {
        let store = try await store()
        try await store.markAllSent()
        var first = try #require(try await store.plugin.query(BlogPost.self, byId: Self.one))
        first.title = "first\u{0}edited"
        try await store.plugin.save(first)
        let titles = try await store.plugin.query(BlogPost.self).map(\.title)
        #expect(titles == ["first\u{0}edited", Self.two])
        try await store.plugin.delete(BlogPost.self, withId: Self.two)
        #expect(try await store.plugin.query(BlogPost.self).map(\.id) == [Self.one])
        let events = try await store.plugin.pendingMutations().dropFirst(3)
        #expect(events.map(\.modelId) == [Self.one, Self.two])
        #expect(events.map(\.mutationType) == ["update", "delete"])
    }

    @Test func relationsLoadByKeysHoldingNUL() async throws {
        let store = try TestStore()
        let blog = try await store.plugin.save(Fixtures.blog("b\u{0}1"))
        try await store.plugin.save(Fixtures.blog("b\u{0}2"))
        try await store.plugin.save(Fixtures.post(Self.one, blog: blog))
        let loaded = try #require(try await store.plugin.query(Blog.self, byId: "b\u{0}1"))
        let posts = try #require(loaded.posts)
        try await posts.fetch()
        #expect(posts.map(\.id) == [Self.one])
        let post = try #require(try await store.plugin.query(BlogPost.self, byId: Self.one))
        #expect(post.blogID == "b\u{0}1")
        #expect(post.blog?.id == "b\u{0}1")
        try await store.plugin.delete(Blog.self, withId: "b\u{0}1")
        #expect(try await store.plugin.query(BlogPost.self).isEmpty)
        #expect(try await store.plugin.query(Blog.self).map(\.id) == ["b\u{0}2"])
    }

    @Test func aRebuildingMigrationKeepsTextWhole() async throws {
        typealias Registration = MigrationTests.Registration
        let store = try TestStore(Registration(version: "v1", types: [MigrationTests.NoteV1.self]))
        try await store.plugin.save(MigrationTests.NoteV1(id: Self.one, title: Self.one, body: nil, count: 1))
        try await store.plugin.save(MigrationTests.NoteV1(id: Self.two, title: Self.two, body: nil, count: 2))
        try await store.plugin.stop()

        let v3 = store.reopened(Registration(version: "v3", types: [MigrationTests.NoteV3.self]))
        #expect(
            try await v3.query(MigrationTests.NoteV3.self) == [
                MigrationTests.NoteV3(id: Self.one, title: Self.one, count: "1"),
                MigrationTests.NoteV3(id: Self.two, title: Self.two, count: "2"),
            ]
        )
        #expect(store.logs.messages.last == "Rebuilt the table of Note: kept 2 record(s), discarded 0.")
    }

    @Test func listElementsHoldingNULMatchExactly() async throws {
        let store = try await store()
        try await store.markAllSent()
        var first = try #require(try await store.plugin.query(BlogPost.self, byId: Self.one))
        first.keywords = [Self.one, "b"]
        try await store.plugin.save(first)
        var second = try #require(try await store.plugin.query(BlogPost.self, byId: Self.two))
        second.keywords = ["a"]
        try await store.plugin.save(second)
        #expect(try await store.plugin.query(BlogPost.self, byId: Self.one)?.keywords == [Self.one, "b"])
        let containing = try await store.plugin.query(BlogPost.self, where: BlogPost.keys.keywords.contains(Self.one))
        #expect(containing.map(\.id) == [Self.one])
        let withA = try await store.plugin.query(BlogPost.self, where: BlogPost.keys.keywords.contains("a"))
        #expect(withA.map(\.id) == [Self.two])
    }
}
