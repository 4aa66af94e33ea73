import Amplify
import Testing

private typealias Post = PredicateFixtures.Post
private typealias PostStatus = PredicateFixtures.PostStatus
private typealias Comment = PredicateFixtures.Comment

/// A predicate, a record and whether the predicate holds for it.
struct EvaluationCase: Sendable, CustomTestStringConvertible {
    let predicate: any QueryPredicate
    let record: JSONValue
    let expected: Bool

    init(_ predicate: any QueryPredicate, _ expected: Bool, on record: JSONValue) {
        self.predicate = predicate
        self.record = record
        self.expected = expected
    }

    var testDescription: String { "\(predicate) → \(expected)" }
}

private let p = Post.keys

/// A post with every field set.
private let full: JSONValue = [
    "id": "p1", "title": "banana", "rating": 4, "score": 3.5, "status": "active",
    "tags": ["swift", "aws"], "published": true,
]

/// A post whose optional fields are missing.
private let sparse: JSONValue = ["id": "p2", "title": "banana", "rating": 4, "status": "draft"]

/// A post whose optional fields are null.
private let nulls: JSONValue = [
    "id": "p3", "title": "banana", "rating": 4, "score": nil, "status": "draft", "tags": nil, "published": nil,
]

private func record(_ members: [String: JSONValue]) -> JSONValue {
    .object(full.objectValue!.merging(members) { _, new in new })
}

// MARK: - Strings

private let stringCases: [EvaluationCase] = [
    EvaluationCase(p.title == "banana", true, on: full),
    EvaluationCase(p.title == "Banana", false, on: full),
    EvaluationCase(p.title != "banana", false, on: full),
    EvaluationCase(p.title != "cherry", true, on: full),
    EvaluationCase(p.title < "cherry", true, on: full),
    EvaluationCase(p.title < "banana", false, on: full),
    EvaluationCase(p.title < "apple", false, on: full),
    EvaluationCase(p.title <= "banana", true, on: full),
    EvaluationCase(p.title <= "apple", false, on: full),
    EvaluationCase(p.title > "apple", true, on: full),
    EvaluationCase(p.title > "banana", false, on: full),
    EvaluationCase(p.title >= "banana", true, on: full),
    EvaluationCase(p.title >= "cherry", false, on: full),
    EvaluationCase(p.title.between(start: "apple", end: "cherry"), true, on: full),
    EvaluationCase(p.title.between(start: "banana", end: "banana"), true, on: full),
    EvaluationCase(p.title.between(start: "bananas", end: "cherry"), false, on: full),
    EvaluationCase(p.title.between(start: "apple", end: "banan"), false, on: full),
    EvaluationCase(p.title.beginsWith("ban"), true, on: full),
    EvaluationCase(p.title.beginsWith(""), true, on: full),
    EvaluationCase(p.title.beginsWith("nan"), false, on: full),
    EvaluationCase(p.title.beginsWith("bananas"), false, on: full),
    EvaluationCase(p.title.contains("nan"), true, on: full),
    EvaluationCase(p.title ~= "ana", true, on: full),
    EvaluationCase(p.title.contains("nab"), false, on: full),
    EvaluationCase(p.title.notContains("nan"), false, on: full),
    EvaluationCase(p.title.notContains("nab"), true, on: full),
    EvaluationCase(p.title.attributeExists(true), true, on: full),
    EvaluationCase(p.title.attributeExists(false), false, on: full),
]

// Strings order by UTF-8 bytes, as SQLite's BINARY collation and DynamoDB do, and equal only
// byte for byte: Swift's String comparison would call the precomposed and decomposed "é" equal.
private let byteOrderCases: [EvaluationCase] = [
    EvaluationCase(p.title < "apple", true, on: record(["title": "Zebra"])),
    EvaluationCase(p.title > "Zebra", true, on: record(["title": "apple"])),
    EvaluationCase(p.title < "é", true, on: record(["title": "z"])),
    EvaluationCase(p.title == "\u{E9}", false, on: record(["title": "e\u{301}"])),
    EvaluationCase(p.title != "\u{E9}", true, on: record(["title": "e\u{301}"])),
    EvaluationCase(p.title < "\u{E9}", true, on: record(["title": "e\u{301}"])),
    EvaluationCase(p.title.contains("\u{301}"), true, on: record(["title": "cafe\u{301}"])),
    EvaluationCase(p.title.beginsWith("e"), true, on: record(["title": "e\u{301}"])),
    EvaluationCase(p.title < "\u{10000}", true, on: record(["title": "\u{FFFD}"])),
]

// MARK: - Numbers

private let intCases: [EvaluationCase] = [
    EvaluationCase(p.rating == 4, true, on: full),
    EvaluationCase(p.rating == 5, false, on: full),
    EvaluationCase(p.rating == 4.0, true, on: full),
    EvaluationCase(p.rating != 4, false, on: full),
    EvaluationCase(p.rating != 5, true, on: full),
    EvaluationCase(p.rating < 5, true, on: full),
    EvaluationCase(p.rating < 4, false, on: full),
    EvaluationCase(p.rating < 4.5, true, on: full),
    EvaluationCase(p.rating <= 4, true, on: full),
    EvaluationCase(p.rating <= 3, false, on: full),
    EvaluationCase(p.rating > 3, true, on: full),
    EvaluationCase(p.rating > 4, false, on: full),
    EvaluationCase(p.rating > 3.5, true, on: full),
    EvaluationCase(p.rating >= 4, true, on: full),
    EvaluationCase(p.rating >= 5, false, on: full),
    EvaluationCase(p.rating >= 4.000001, false, on: full),
    EvaluationCase(p.rating.between(start: 1, end: 4), true, on: full),
    EvaluationCase(p.rating.between(start: 4, end: 10), true, on: full),
    EvaluationCase(p.rating.between(start: 5, end: 10), false, on: full),
    EvaluationCase(p.rating.between(start: 1, end: 3), false, on: full),
    EvaluationCase(p.rating.between(start: 3.5, end: 4.5), true, on: full),
    EvaluationCase(p.rating.attributeExists(true), true, on: full),
    // Numbers are exact: a Double comparison would round 2^53 + 1 to 2^53.
    EvaluationCase(p.rating > 9_007_199_254_740_992.0, true, on: record(["rating": 9_007_199_254_740_993])),
    EvaluationCase(p.rating == 9_007_199_254_740_992.0, false, on: record(["rating": 9_007_199_254_740_993])),
    EvaluationCase(p.rating < 9_223_372_036_854_775_807.0, true, on: record(["rating": .integer(.max)])),
    EvaluationCase(p.rating > -9_223_372_036_854_775_808.0, false, on: record(["rating": .integer(.min)])),
    EvaluationCase(p.rating >= -9_223_372_036_854_775_808.0, true, on: record(["rating": .integer(.min)])),
    EvaluationCase(p.rating < Double.infinity, true, on: full),
    EvaluationCase(p.rating > -Double.infinity, true, on: full),
    EvaluationCase(p.rating == Double.nan, false, on: full),
    EvaluationCase(p.rating < Double.nan, false, on: full),
    EvaluationCase(p.rating != Double.nan, true, on: full),
    EvaluationCase(p.rating < -3, false, on: full),
    EvaluationCase(p.rating > -3.5, true, on: full),
    EvaluationCase(p.rating < -3.5, true, on: record(["rating": -4])),
    EvaluationCase(p.rating > -4.5, true, on: record(["rating": -4])),
]

private let doubleCases: [EvaluationCase] = [
    EvaluationCase(p.score == 3.5, true, on: full),
    EvaluationCase(p.score == 3, false, on: full),
    EvaluationCase(p.score != 3.5, false, on: full),
    EvaluationCase(p.score != 3, true, on: full),
    EvaluationCase(p.score < 4, true, on: full),
    EvaluationCase(p.score < 3.5, false, on: full),
    EvaluationCase(p.score <= 3.5, true, on: full),
    EvaluationCase(p.score <= 3.4, false, on: full),
    EvaluationCase(p.score > 3, true, on: full),
    EvaluationCase(p.score > 3.5, false, on: full),
    EvaluationCase(p.score >= 3.5, true, on: full),
    EvaluationCase(p.score >= 3.6, false, on: full),
    EvaluationCase(p.score.between(start: 3, end: 4), true, on: full),
    EvaluationCase(p.score.between(start: 3.5, end: 3.5), true, on: full),
    EvaluationCase(p.score.between(start: 3.6, end: 4), false, on: full),
    // A whole number stored without a fraction still compares as the Double it is.
    EvaluationCase(p.score == 3.0, true, on: record(["score": 3])),
    EvaluationCase(p.score > 2.5, true, on: record(["score": 3])),
]

// MARK: - Booleans and enums

private let boolCases: [EvaluationCase] = [
    EvaluationCase(p.published == true, true, on: full),
    EvaluationCase(p.published == false, false, on: full),
    EvaluationCase(p.published != false, true, on: full),
    EvaluationCase(p.published != true, false, on: full),
    EvaluationCase(p.published == false, true, on: record(["published": false])),
    EvaluationCase(p.published.attributeExists(true), true, on: record(["published": false])),
]

private let enumCases: [EvaluationCase] = [
    EvaluationCase(p.status == PostStatus.active, true, on: full),
    EvaluationCase(p.status == PostStatus.draft, false, on: full),
    EvaluationCase(p.status == "active", true, on: full),
    EvaluationCase(p.status != PostStatus.draft, true, on: full),
    EvaluationCase(p.status != PostStatus.active, false, on: full),
    // By raw value: "active" < "archived" < "draft".
    EvaluationCase(p.status < PostStatus.draft, true, on: full),
    EvaluationCase(p.status < PostStatus.active, false, on: full),
    EvaluationCase(p.status <= PostStatus.active, true, on: full),
    EvaluationCase(p.status > PostStatus.archived, false, on: full),
    EvaluationCase(p.status >= PostStatus.active, true, on: full),
    EvaluationCase(p.status.between(start: PostStatus.active, end: PostStatus.archived), true, on: full),
    EvaluationCase(p.status.between(start: PostStatus.archived, end: PostStatus.draft), false, on: full),
    EvaluationCase(p.status.beginsWith("act"), true, on: full),
    EvaluationCase(p.status.beginsWith("dra"), false, on: full),
    EvaluationCase(p.status.contains("tiv"), true, on: full),
    EvaluationCase(p.status.notContains("tiv"), false, on: full),
]

// MARK: - Lists

private let listCases: [EvaluationCase] = [
    EvaluationCase(p.tags.contains("swift"), true, on: full),
    EvaluationCase(p.tags ~= "aws", true, on: full),
    EvaluationCase(p.tags.contains("sw"), false, on: full),
    EvaluationCase(p.tags.contains("kotlin"), false, on: full),
    EvaluationCase(p.tags.notContains("aws"), false, on: full),
    EvaluationCase(p.tags.notContains("sw"), true, on: full),
    EvaluationCase(p.tags.contains("swift"), false, on: record(["tags": []])),
    EvaluationCase(p.tags.notContains("swift"), true, on: record(["tags": []])),
    EvaluationCase(QueryPredicateOperation(field: "tags", operator: .equals(["swift", "aws"])), true, on: full),
    EvaluationCase(QueryPredicateOperation(field: "tags", operator: .equals(["aws", "swift"])), false, on: full),
    EvaluationCase(QueryPredicateOperation(field: "tags", operator: .equals(["swift"])), false, on: full),
    EvaluationCase(QueryPredicateOperation(field: "tags", operator: .notEqual(["swift"])), true, on: full),
    EvaluationCase(QueryPredicateOperation(field: "tags", operator: .notEqual(["swift", "aws"])), false, on: full),
    EvaluationCase(p.tags.attributeExists(true), true, on: record(["tags": []])),
]

// MARK: - Missing and null fields

/// Every operator on a field that is missing or null, for each type of field.
private let nilFieldCases: [EvaluationCase] = [sparse, nulls].flatMap { post -> [EvaluationCase] in
    [
        EvaluationCase(p.score == nil, true, on: post),
        EvaluationCase(p.score != nil, false, on: post),
        EvaluationCase(p.score == 3.5, false, on: post),
        EvaluationCase(p.score != 3.5, true, on: post),
        EvaluationCase(p.score < 3.5, false, on: post),
        EvaluationCase(p.score <= 3.5, false, on: post),
        EvaluationCase(p.score > 3.5, false, on: post),
        EvaluationCase(p.score >= 3.5, false, on: post),
        EvaluationCase(p.score.between(start: -1e9, end: 1e9), false, on: post),
        EvaluationCase(p.score.attributeExists(true), false, on: post),
        EvaluationCase(p.score.attributeExists(false), true, on: post),
        EvaluationCase(p.published == nil, true, on: post),
        EvaluationCase(p.published == false, false, on: post),
        EvaluationCase(p.published != true, true, on: post),
        EvaluationCase(p.tags == nil, true, on: post),
        EvaluationCase(p.tags.contains("swift"), false, on: post),
        EvaluationCase(p.tags.notContains("swift"), true, on: post),
        EvaluationCase(p.tags.attributeExists(false), true, on: post),
    ]
}

/// String operators on a string field missing from the record or null in it.
private let nilStringCases: [EvaluationCase] = [
    ["id": "p4", "rating": 4, "status": "draft"],
    ["id": "p4", "title": nil, "rating": 4, "status": "draft"],
].flatMap { post -> [EvaluationCase] in
    [
        EvaluationCase(p.title == nil, true, on: post),
        EvaluationCase(p.title != nil, false, on: post),
        EvaluationCase(p.title == "", false, on: post),
        EvaluationCase(p.title != "", true, on: post),
        EvaluationCase(p.title < "zzz", false, on: post),
        EvaluationCase(p.title >= "", false, on: post),
        EvaluationCase(p.title.between(start: "", end: "zzz"), false, on: post),
        EvaluationCase(p.title.beginsWith(""), false, on: post),
        EvaluationCase(p.title.contains(""), false, on: post),
        EvaluationCase(p.title.notContains(""), true, on: post),
        EvaluationCase(p.status.beginsWith("d"), true, on: post),
    ]
}

/// Present values against `nil`.
private let presentAgainstNilCases: [EvaluationCase] = [
    EvaluationCase(p.score == nil, false, on: full),
    EvaluationCase(p.score != nil, true, on: full),
    EvaluationCase(p.title == nil, false, on: full),
    EvaluationCase(p.title != nil, true, on: full),
    EvaluationCase(p.published != nil, true, on: record(["published": false])),
    EvaluationCase(p.tags != nil, true, on: record(["tags": []])),
    EvaluationCase(p.rating != nil, true, on: record(["rating": 0])),
    EvaluationCase(p.title != nil, true, on: record(["title": ""])),
]

/// A record value of another type than its field equals nothing and orders against nothing.
private let mistypedRecordCases: [EvaluationCase] = [
    EvaluationCase(p.rating == 4, false, on: record(["rating": "4"])),
    EvaluationCase(p.rating != 4, true, on: record(["rating": "4"])),
    EvaluationCase(p.rating < 5, false, on: record(["rating": "4"])),
    EvaluationCase(p.rating >= 0, false, on: record(["rating": true])),
    EvaluationCase(p.title == "4", false, on: record(["title": 4])),
    EvaluationCase(p.title.beginsWith("4"), false, on: record(["title": 4])),
    EvaluationCase(p.title.contains("4"), false, on: record(["title": 4])),
    EvaluationCase(p.published == true, false, on: record(["published": "true"])),
    EvaluationCase(p.tags.contains("swift"), false, on: record(["tags": "swift"])),
    EvaluationCase(p.tags.attributeExists(true), true, on: record(["tags": "swift"])),
]

@Test(
    arguments: [
        stringCases, byteOrderCases, intCases, doubleCases, boolCases, enumCases, listCases, nilFieldCases,
        nilStringCases, presentAgainstNilCases, mistypedRecordCases,
    ]
    .joined()
)
func operatorsEvaluate(_ testCase: EvaluationCase) throws {
    #expect(try testCase.predicate.evaluate(target: testCase.record, schema: Post.schema) == testCase.expected)
}

// MARK: - Groups

private let yes = p.rating == 4
private let no = p.rating == 5

private let groupCases: [EvaluationCase] = [
    EvaluationCase(yes && yes, true, on: full),
    EvaluationCase(yes && no, false, on: full),
    EvaluationCase(no && yes, false, on: full),
    EvaluationCase(no && no, false, on: full),
    EvaluationCase(yes || yes, true, on: full),
    EvaluationCase(yes || no, true, on: full),
    EvaluationCase(no || yes, true, on: full),
    EvaluationCase(no || no, false, on: full),
    EvaluationCase(!yes, false, on: full),
    EvaluationCase(!no, true, on: full),
    EvaluationCase(not(yes && no), true, on: full),
    EvaluationCase(not(yes || no), false, on: full),
    EvaluationCase(yes && yes && yes && no, false, on: full),
    EvaluationCase(no || no || no || yes, true, on: full),
    EvaluationCase((no || yes) && !(no && yes), true, on: full),
    EvaluationCase((no || yes) && !(yes && yes), false, on: full),
    EvaluationCase(!(!yes), true, on: full),
    EvaluationCase(QueryPredicateGroup(type: .and), true, on: full),
    EvaluationCase(QueryPredicateGroup(type: .or), false, on: full),
    EvaluationCase(QueryPredicateGroup(type: .not), false, on: full),
    EvaluationCase(QueryPredicateGroup(type: .not, predicates: [yes, no]), true, on: full),
    EvaluationCase(QueryPredicateGroup(type: .not, predicates: [yes, yes]), false, on: full),
    EvaluationCase(QueryPredicateConstant.all, true, on: full),
    EvaluationCase(QueryPredicateConstant.all, true, on: [:]),
    EvaluationCase(no || QueryPredicateConstant.all, true, on: full),
    EvaluationCase(no && QueryPredicateConstant.all, false, on: full),
    EvaluationCase(not(QueryPredicateConstant.all), false, on: full),
    // The seed's example.
    EvaluationCase(p.rating > 4 || p.status == "active", true, on: record(["rating": 1])),
    EvaluationCase(p.rating > 4 || p.status == "active", true, on: record(["status": "draft", "rating": 5])),
    EvaluationCase(p.rating > 4 || p.status == "active", false, on: record(["status": "draft", "rating": 4])),
    EvaluationCase(p.rating.gt(4).or(p.status.eq("active")), false, on: record(["status": "draft", "rating": 4])),
]

@Test(arguments: groupCases)
func groupsCombineTheirMembers(_ testCase: EvaluationCase) throws {
    #expect(try testCase.predicate.evaluate(target: testCase.record, schema: Post.schema) == testCase.expected)
}

@Test func modelsEvaluateThroughTheirJSON() throws {
    let post = Post(title: "banana", rating: 4, score: nil, status: .active, tags: ["swift"], published: false)
    #expect(try (p.rating > 3 && p.status == PostStatus.active).evaluate(target: post))
    #expect(try !(p.rating > 4).evaluate(target: post))
    #expect(try (p.score == nil && p.published == false && p.tags ~= "swift").evaluate(target: post))
    #expect(try !(p.published == nil).evaluate(target: post))
    #expect(try (field("title").beginsWith("ban")).evaluate(target: post))
}

// MARK: - Associations

private let c = Comment.keys

private let associationCases: [EvaluationCase] = [
    // The foreign key held by the record.
    EvaluationCase(c.post == "p1", true, on: ["id": "c1", "content": "hi", "postID": "p1"]),
    EvaluationCase(c.post == "p2", false, on: ["id": "c1", "content": "hi", "postID": "p1"]),
    EvaluationCase(c.post != "p2", true, on: ["id": "c1", "content": "hi", "postID": "p1"]),
    EvaluationCase(c.post.beginsWith("p"), true, on: ["id": "c1", "content": "hi", "postID": "p1"]),
    EvaluationCase(c.post > "p0", true, on: ["id": "c1", "content": "hi", "postID": "p1"]),
    EvaluationCase(c.post == nil, false, on: ["id": "c1", "content": "hi", "postID": "p1"]),
    // The foreign key named directly.
    EvaluationCase(field("postID") == "p1", true, on: ["id": "c1", "content": "hi", "postID": "p1"]),
    EvaluationCase(field("postID") == "p1", false, on: ["id": "c1", "content": "hi", "postID": "p2"]),
    // The nested parent's id.
    EvaluationCase(c.post == "p1", true, on: ["id": "c1", "content": "hi", "post": full]),
    EvaluationCase(c.post == "p2", false, on: ["id": "c1", "content": "hi", "post": full]),
    EvaluationCase(c.post != nil, true, on: ["id": "c1", "content": "hi", "post": full]),
    // The foreign key wins over a nested parent.
    EvaluationCase(c.post == "p9", true, on: ["id": "c1", "content": "hi", "postID": "p9", "post": full]),
    // A parent stored as its key alone.
    EvaluationCase(c.post == "p1", true, on: ["id": "c1", "content": "hi", "post": "p1"]),
    // No parent.
    EvaluationCase(c.post == nil, true, on: ["id": "c1", "content": "hi"]),
    EvaluationCase(c.post == nil, true, on: ["id": "c1", "content": "hi", "post": nil, "postID": nil]),
    EvaluationCase(c.post == "p1", false, on: ["id": "c1", "content": "hi"]),
    EvaluationCase(c.post.attributeExists(false), true, on: ["id": "c1", "content": "hi", "post": ["title": "x"]]),
]

@Test(arguments: associationCases)
func associationsCompareByForeignKey(_ testCase: EvaluationCase) throws {
    #expect(try testCase.predicate.evaluate(target: testCase.record, schema: Comment.schema) == testCase.expected)
}

@Test func associatedModelsEvaluateByTheirParentsID() throws {
    let comment = Comment(id: "c1", content: "hi", post: Post(id: "p7"))
    #expect(try (c.post == "p7").evaluate(target: comment))
    #expect(try !(c.post == "p1").evaluate(target: comment))
    #expect(try (c.post == nil).evaluate(target: Comment(id: "c2", content: "hi", post: nil)))
}

@Test func compositeForeignKeysCompareAsTheJoinedIdentifier() throws {
    let schema = ModelSchema(
        name: "Review",
        fields: [
            ModelField(name: "id", type: .string, isRequired: true),
            ModelField(
                name: "book",
                type: .model(name: "Book"),
                association: .belongsTo(associatedFields: [], targetNames: ["bookISBN", "bookEdition"])
            ),
        ]
    )
    let review: JSONValue = ["id": "r1", "bookISBN": "978-0", "bookEdition": 2]
    #expect(try (field("book") == "978-0#2").evaluate(target: review, schema: schema))
    #expect(try !(field("book") == "978-0#3").evaluate(target: review, schema: schema))
    #expect(try (field("bookEdition") == 2).evaluate(target: review, schema: schema))
    #expect(try (field("book") == nil).evaluate(target: ["id": "r2", "bookISBN": "978-0"], schema: schema))
}

@Test func nestedParentsUseTheRegisteredPrimaryKey() throws {
    ModelRegistry.register(modelType: PredicateCompositeParent.self)
    let schema = ModelSchema(
        name: "PredicateCompositeChild",
        fields: [
            ModelField(name: "id", type: .string, isRequired: true),
            ModelField(
                name: "parent",
                type: .model(name: PredicateCompositeParent.modelName),
                association: .belongsTo(associatedFields: [], targetNames: ["parentSlug", "parentYear"])
            ),
        ]
    )
    let child: JSONValue = ["id": "c1", "parent": ["slug": "intro", "year": 2024, "id": "ignored"]]
    #expect(try (field("parent") == "intro#2024").evaluate(target: child, schema: schema))
    #expect(try !(field("parent") == "ignored").evaluate(target: child, schema: schema))
}

/// A model with a composite primary key and no `id`, registered by the test above.
private struct PredicateCompositeParent: Model {
    var slug: String
    var year: Int

    enum CodingKeys: String, ModelKey {
        case slug
        case year
    }

    static let schema = defineSchema { model in
        model.attributes(.primaryKey(fields: [CodingKeys.slug, CodingKeys.year]))
        model.fields(
            .field(CodingKeys.slug, is: .required, ofType: .string),
            .field(CodingKeys.year, is: .required, ofType: .int)
        )
    }
}
