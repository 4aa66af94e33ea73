import Amplify
import Testing

private typealias Post = PredicateFixtures.Post
private typealias Comment = PredicateFixtures.Comment

private let p = Post.keys

private func error(evaluating predicate: any QueryPredicate, on record: JSONValue = [:]) -> QueryPredicateError? {
    #expect(throws: QueryPredicateError.self) {
        try predicate.evaluate(target: record, schema: Post.schema)
    }
}

@Test func unknownFieldsNameTheModelAndListItsFields() throws {
    let schema = ModelSchema(
        name: "Post",
        fields: [
            ModelField(name: "id", type: .string, isRequired: true),
            ModelField(name: "title", type: .string, isRequired: true),
            ModelField(name: "rating", type: .int, isRequired: true),
            ModelField(name: "status", type: .string, isRequired: true),
        ]
    )
    let error = #expect(throws: QueryPredicateError.self) {
        try (field("ratin") > 4).evaluate(target: ["rating": 5], schema: schema)
    }
    #expect(
        error?.description
            == "Post has no field 'ratin' (fields: id, title, rating, status). Use a field from Post.keys."
    )
    #expect(error?.modelName == "Post")
    #expect(error?.fieldName == "ratin")
}

@Test func unknownFieldsOfAModelListEveryField() throws {
    let error = error(evaluating: field("postID") == "p1")
    #expect(
        error?.description
            == "Post has no field 'postID' (fields: id, title, rating, score, status, tags, published, "
            + "createdAt, publishedOn, opensAt, comments). "
            + "Use a field from Post.keys."
    )
}

@Test func aSchemaWithoutFieldsSaysSo() throws {
    let error = #expect(throws: QueryPredicateError.self) {
        try (field("id") == "1").evaluate(target: [:], schema: ModelSchema(name: "Empty"))
    }
    #expect(error?.description == "Empty has no field 'id' (fields: none). Use a field from Empty.keys.")
}

@Test func foreignKeysAreMatchedExactly() throws {
    let error = #expect(throws: QueryPredicateError.self) {
        try (field("postId") == "p1").evaluate(target: [:], schema: Comment.schema)
    }
    #expect(
        error?.description
            == "Comment has no field 'postId' (fields: id, content, post). Use a field from Comment.keys."
    )
}

@Test func everyMemberOfAGroupIsChecked() throws {
    // The first member already decides the `or` and the `and`, yet the unknown field fails both.
    let record: JSONValue = ["id": "p1", "title": "banana", "rating": 4, "status": "active"]
    #expect(error(evaluating: p.rating == 4 || field("ratin") == 4, on: record)?.fieldName == "ratin")
    #expect(error(evaluating: p.rating == 5 && field("ratin") == 4, on: record)?.fieldName == "ratin")
    #expect(
        error(evaluating: !(p.rating == 5 && (p.title == "x" || field("titel") == "x")), on: record)?.fieldName
            == "titel"
    )
    #expect(throws: QueryPredicateError.self) {
        try (p.rating == 4 || field("ratin") == 4).evaluate(target: Post())
    }
}

@Test func hasManyFieldsCannotBeFiltered() throws {
    let error = error(evaluating: p.comments == "c1")
    #expect(
        error?.description
            == "Post.comments is a hasMany relation to Comment and cannot be filtered. "
            + "Query Comment where post names the Post instead."
    )
}

/// A predicate and the error message it must produce.
struct ErrorCase: Sendable, CustomTestStringConvertible {
    let predicate: any QueryPredicate
    let message: String

    init(_ predicate: any QueryPredicate, _ message: String) {
        self.predicate = predicate
        self.message = message
    }

    var testDescription: String { predicate.description }
}

private let boolOperators = "Use eq, ne or attributeExists."
private let numberOperators = "Use eq, ne, le, lt, ge, gt, between or attributeExists."
private let listOperators = "Use eq, ne, contains, notContains or attributeExists."

private let unsupportedOperatorCases: [ErrorCase] = [
    ErrorCase(p.published > true, "'gt' does not apply to Post.published (Bool). \(boolOperators)"),
    ErrorCase(p.published >= true, "'ge' does not apply to Post.published (Bool). \(boolOperators)"),
    ErrorCase(p.published < true, "'lt' does not apply to Post.published (Bool). \(boolOperators)"),
    ErrorCase(p.published <= true, "'le' does not apply to Post.published (Bool). \(boolOperators)"),
    ErrorCase(
        p.published.between(start: false, end: true),
        "'between' does not apply to Post.published (Bool). \(boolOperators)"
    ),
    ErrorCase(p.published.beginsWith("t"), "'beginsWith' does not apply to Post.published (Bool). \(boolOperators)"),
    ErrorCase(p.published.contains(true), "'contains' does not apply to Post.published (Bool). \(boolOperators)"),
    ErrorCase(p.published.notContains(true), "'notContains' does not apply to Post.published (Bool). \(boolOperators)"),
    ErrorCase(p.rating.beginsWith("4"), "'beginsWith' does not apply to Post.rating (Int). \(numberOperators)"),
    ErrorCase(p.rating.contains(4), "'contains' does not apply to Post.rating (Int). \(numberOperators)"),
    ErrorCase(p.score.notContains(4), "'notContains' does not apply to Post.score (Double). \(numberOperators)"),
    ErrorCase(p.tags > "a", "'gt' does not apply to Post.tags ([String]). \(listOperators)"),
    ErrorCase(
        p.tags.between(start: "a", end: "b"),
        "'between' does not apply to Post.tags ([String]). \(listOperators)"
    ),
    ErrorCase(p.tags.beginsWith("a"), "'beginsWith' does not apply to Post.tags ([String]). \(listOperators)"),
]

private let mismatchedValueCases: [ErrorCase] = [
    ErrorCase(p.rating == "4", #"Post.rating (Int) cannot be compared with "4", a string. Use an Int or a Double."#),
    ErrorCase(p.rating > true, "Post.rating (Int) cannot be compared with true, a boolean. Use an Int or a Double."),
    ErrorCase(
        p.rating.between(start: 1, end: "9"),
        #"Post.rating (Int) cannot be compared with "9", a string. Use an Int or a Double."#
    ),
    ErrorCase(p.title > 4, "Post.title (String) cannot be compared with 4, a number. Use a string."),
    ErrorCase(p.title.contains(4), "Post.title (String) cannot be compared with 4, a number. Use a string."),
    ErrorCase(p.status == 1, "Post.status (PostStatus) cannot be compared with 1, a number. Use a string."),
    ErrorCase(
        p.published != "true",
        #"Post.published (Bool) cannot be compared with "true", a string. Use true or false."#
    ),
    ErrorCase(p.tags.contains(4), "Post.tags ([String]) cannot be compared with 4, a number. Use a string."),
    ErrorCase(
        p.tags == "swift",
        #"Post.tags ([String]) cannot be compared with "swift", a string. Use a list of values that are each a string."#
    ),
    ErrorCase(
        QueryPredicateOperation(field: "tags", operator: .equals(["swift", 4])),
        #"Post.tags ([String]) cannot be compared with ["swift", 4], a list. "#
            + "Use a list of values that are each a string."
    ),
]

@Test(arguments: [unsupportedOperatorCases, mismatchedValueCases].joined())
func invalidPredicatesFailOnEveryRecord(_ testCase: ErrorCase) throws {
    let records: [JSONValue] = [
        [:],
        [
            "id": "p1", "title": "banana", "rating": 4, "score": 1.5, "status": "active", "tags": ["a"],
            "published": true,
        ],
    ]
    for record in records {
        let error = #expect(throws: QueryPredicateError.self) {
            try testCase.predicate.evaluate(target: record, schema: Post.schema)
        }
        #expect(error?.description == testCase.message)
    }
}
