import Amplify
import BlogModels
import Testing

// Predicates on the models `stratus codegen models` generates from Tests/Fixtures/blog.graphql.

private let p = Post.keys
private let c = Comment.keys

private let post = Post(
    id: "p1",
    title: "Hello",
    blog: Blog(id: "b1", name: "News"),
    status: .inReview,
    rating: 5,
    publishedAt: try! Temporal.DateTime(iso8601String: "2024-01-02T03:04:05Z"),
    keywords: ["swift", "aws"],
    ratings: [4, nil, 5],
    statusHistory: [.draft, .inReview]
)

@Test func generatedModelsEvaluatePredicates() throws {
    #expect(try (p.rating > 4 && p.status == PostStatus.inReview).evaluate(target: post))
    #expect(try (p.status == "IN_REVIEW").evaluate(target: post))
    #expect(try !(p.status == PostStatus.published).evaluate(target: post))
    #expect(try (p.keywords ~= "aws" && p.keywords.notContains("a")).evaluate(target: post))
    #expect(try (p.ratings.contains(5) && p.ratings.notContains(3)).evaluate(target: post))
    #expect(try (p.statusHistory.contains(PostStatus.draft)).evaluate(target: post))
    #expect(try !(p.statusHistory.contains(PostStatus.published)).evaluate(target: post))
    #expect(try (p.publishedAt < "2024-01-02T04:04:06+01:00").evaluate(target: post))
    #expect(try (p.score == nil && p.expiresAt == nil).evaluate(target: post))
}

@Test func generatedBelongsToFieldsCompareByForeignKey() throws {
    #expect(try (p.blog == "b1").evaluate(target: post))
    #expect(try (p.blogID == "b1").evaluate(target: post))
    #expect(try !(p.blog == "b2").evaluate(target: post))
    let comment = Comment(id: "c1", content: "Nice", post: post)
    #expect(try (c.post == "p1" && c.postCommentsId == "p1").evaluate(target: comment))
    #expect(try (c.post == nil).evaluate(target: Comment(id: "c2", content: "Orphan")))
    #expect((c.post == "p1").graphQLFilter(for: Comment.schema) == ["postCommentsId": ["eq": "p1"]])
}

@Test func generatedModelsReportHasManyFields() throws {
    let error = #expect(throws: QueryPredicateError.self) {
        try (p.comments == "c1").evaluate(target: post)
    }
    #expect(
        error?.description
            == "Post.comments is a hasMany relation to Comment and cannot be filtered. "
            + "Query Comment where post names the Post instead."
    )
}
