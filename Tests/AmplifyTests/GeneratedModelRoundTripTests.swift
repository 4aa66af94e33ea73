import Amplify
import BlogModels
import Foundation
import Testing

/// Models generated from Tests/Fixtures/blog.graphql encode and decode unchanged, through JSON
/// text and through `JSONValue`.
@Suite struct GeneratedModelRoundTripTests {
    static let blog = Blog(
        id: "blog-1",
        name: "Field notes",
        visibility: .private,
        address: Address(
            street: "1 Main St",
            city: "Lyon",
            postcode: nil,
            location: GeoPoint(latitude: 45.76, longitude: 4.83)
        )
    )

    static func fullPost() throws -> Post {
        Post(
            id: "post-1",
            title: "Offsets",
            blog: blog,
            status: .inReview,
            rating: 5,
            score: 4.75,
            published: true,
            publishedOn: try Temporal.Date(iso8601String: "2024-02-29"),
            publishedAt: try Temporal.DateTime(iso8601String: "2024-02-29T23:30:15.125+05:30"),
            reminderTime: try Temporal.Time(iso8601String: "08:15:00-03:00"),
            expiresAt: 1_893_456_000,
            contactEmail: "ada@example.com",
            website: "https://example.com/a?b=c",
            phone: "+33 1 23 45 67 89",
            ip: "2001:db8::1",
            metadata: "{\"k\":[1,2]}",
            keywords: ["swift", "linux"],
            ratings: [1, nil, 3],
            statusHistory: [.draft, .published],
            locations: [GeoPoint(latitude: -33.9, longitude: 151.2)],
            comments: [],
            tags: [],
            secretNotes: nil,
            owner: "ada",
            readers: ["team-a"],
            createdAt: try Temporal.DateTime(iso8601String: "2024-01-01T00:00:00Z"),
            updatedAt: try Temporal.DateTime(iso8601String: "2024-01-02T10:20:30.5-08:00")
        )
    }

    static func throughText<M: Model & Equatable>(_ model: M) throws -> M {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return try JSONDecoder().decode(M.self, from: encoder.encode(model))
    }

    static func throughJSONValue<M: Model & Equatable>(_ model: M) throws -> M {
        try JSONValue(encoding: model).decode(as: M.self)
    }

    @Test func postWithEveryFieldTypeRoundTrips() throws {
        let post = try Self.fullPost()
        #expect(try Self.throughText(post) == post)
        #expect(try Self.throughJSONValue(post) == post)
        let decoded = try Self.throughText(post)
        #expect(decoded.publishedAt?.iso8601String == "2024-02-29T23:30:15.125+05:30")
        #expect(decoded.blog?.address?.location?.latitude == 45.76)
        #expect(decoded.blogID == "blog-1")
    }

    @Test func nilOptionalsStayNil() throws {
        let post = Post(id: "p", title: "t", status: .draft, rating: nil)
        let json = try JSONValue(encoding: post)
        #expect(json.rating == nil)
        #expect(json.blogID == nil)
        #expect(json.id == "p")
        let decoded = try Self.throughJSONValue(post)
        #expect(decoded == post)
        #expect(decoded.rating == nil)
        #expect(decoded.blog == nil)
        #expect(decoded.createdAt == nil)
    }

    @Test func defaultsFromTheSchemaApply() {
        #expect(Post(title: "t", status: .draft).rating == 3)
        #expect(Blog(name: "b").visibility == .public)
        #expect(BlogSettings().theme == "light")
        #expect(UUID(uuidString: Post(title: "t", status: .draft).id) != nil)
    }

    @Test func foreignKeyWithoutTheParentSurvives() throws {
        let json: JSONValue = ["id": "c1", "content": "hi", "postCommentsId": "post-9"]
        let comment = try json.decode(as: BlogModels.Comment.self)
        #expect(comment.post == nil)
        #expect(comment.postCommentsId == "post-9")
        let encoded = try JSONValue(encoding: comment)
        #expect(encoded == ["id": "c1", "content": "hi", "postCommentsId": "post-9"])
        #expect(try Self.throughText(comment) == comment)
    }

    @Test func partialParentKeepsItsIdentifier() throws {
        let json: JSONValue = ["id": "c1", "content": "hi", "post": ["id": "post-3", "__typename": "Post"]]
        let comment = try json.decode(as: BlogModels.Comment.self)
        #expect(comment.post == nil)
        #expect(comment.postCommentsId == "post-3")
    }

    @Test func everyGeneratedModelRoundTrips() throws {
        let post = try Self.fullPost()
        let tag = Tag(id: "tag-1", label: "swift")
        let models: [any Model] = [
            Self.blog,
            BlogSettings(id: "s", theme: "dark", blog: Self.blog, editor: "ed"),
            post,
            BlogModels.Comment(id: "c", content: "Loving Amplify DataStore", post: post),
            tag,
            PostTags(id: "pt", post: post, tag: tag),
            Author(country: "FR", handle: "ada", displayName: nil, home: Self.blog.address),
            Attachment(ownerKey: "k", fileName: "a.png", mimeType: "image/png", sizeInBytes: 10),
            Album(id: "al", title: "Summer"),
            Photo(id: "ph", caption: nil, album: Album(id: "al", title: "Summer")),
        ]
        for model in models {
            try assertRoundTrip(model)
        }
    }

    private func assertRoundTrip<M: Model>(_ model: M) throws {
        let first = try JSONValue(encoding: model)
        let again = try JSONValue(encoding: try first.decode(as: M.self))
        #expect(first == again, "\(M.modelName) changed in a round trip")
    }

    @Test func compositeKeysFormTheIdentifier() {
        let author = Author(country: "FR", handle: "ada")
        #expect(author.identifier == "FR#ada")
        #expect(Author.schema.primaryKey.fields.map(\.name) == ["country", "handle"])
        #expect(Attachment.schema.primaryKey.isComposite)
    }

    @Test func registrationRegistersEveryModel() {
        let registration = AmplifyModels()
        registration.registerModels(registry: ModelRegistry.self)
        for name in [
            "Blog", "BlogSettings", "Post", "Comment", "Tag", "PostTags", "Author", "Attachment", "Album", "Photo",
        ] {
            #expect(ModelRegistry.modelType(from: name) != nil, "\(name) is not registered")
        }
        #expect(registration.version.count == 32)
    }
}
