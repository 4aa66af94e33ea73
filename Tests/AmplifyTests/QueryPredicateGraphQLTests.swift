import Amplify
import Foundation
import Testing

private typealias Post = PredicateFixtures.Post
private typealias PostStatus = PredicateFixtures.PostStatus
private typealias Comment = PredicateFixtures.Comment

private let p = Post.keys
private let c = Comment.keys

/// A predicate and the AppSync filter it must translate to.
struct FilterCase: Sendable, CustomTestStringConvertible {
    let predicate: any QueryPredicate
    let filter: JSONValue

    init(_ predicate: any QueryPredicate, _ filter: JSONValue) {
        self.predicate = predicate
        self.filter = filter
    }

    var testDescription: String { predicate.description }
}

private let operationCases: [FilterCase] = [
    FilterCase(p.title == "banana", ["title": ["eq": "banana"]]),
    FilterCase(p.title != "banana", ["title": ["ne": "banana"]]),
    FilterCase(p.rating < 4, ["rating": ["lt": 4]]),
    FilterCase(p.rating <= 4, ["rating": ["le": 4]]),
    FilterCase(p.rating > 4, ["rating": ["gt": 4]]),
    FilterCase(p.rating >= 4, ["rating": ["ge": 4]]),
    FilterCase(p.score > 2.5, ["score": ["gt": 2.5]]),
    FilterCase(p.published == true, ["published": ["eq": true]]),
    FilterCase(p.status == PostStatus.active, ["status": ["eq": "active"]]),
    FilterCase(p.title.contains("nan"), ["title": ["contains": "nan"]]),
    FilterCase(p.tags ~= "swift", ["tags": ["contains": "swift"]]),
    FilterCase(p.tags.notContains("swift"), ["tags": ["notContains": "swift"]]),
    FilterCase(p.title.beginsWith("ban"), ["title": ["beginsWith": "ban"]]),
    FilterCase(p.rating.between(start: 1, end: 5), ["rating": ["between": [1, 5]]]),
    FilterCase(p.score.between(start: 1, end: 2.5), ["score": ["between": [1, 2.5]]]),
    FilterCase(p.score.attributeExists(true), ["score": ["attributeExists": true]]),
    FilterCase(p.score.attributeExists(false), ["score": ["attributeExists": false]]),
    // `nil` covers a missing attribute and a DynamoDB NULL, as it does in memory.
    FilterCase(p.score == nil, ["or": [["score": ["attributeExists": false]], ["score": ["eq": nil]]]]),
    FilterCase(p.score != nil, ["and": [["score": ["attributeExists": true]], ["score": ["ne": nil]]]]),
    FilterCase(field("anything") > 1, ["anything": ["gt": 1]]),
]

private let groupCases: [FilterCase] = [
    FilterCase(
        p.rating > 4 || p.status == "active",
        ["or": [["rating": ["gt": 4]], ["status": ["eq": "active"]]]]
    ),
    FilterCase(
        p.rating > 4 && p.status == "active" && p.title.beginsWith("b"),
        ["and": [["rating": ["gt": 4]], ["status": ["eq": "active"]], ["title": ["beginsWith": "b"]]]]
    ),
    FilterCase(!(p.rating > 4), ["not": ["rating": ["gt": 4]]]),
    FilterCase(
        (p.rating > 4 || p.score < 1) && !(p.status == "draft"),
        [
            "and": [
                ["or": [["rating": ["gt": 4]], ["score": ["lt": 1]]]],
                ["not": ["status": ["eq": "draft"]]],
            ]
        ]
    ),
    FilterCase(
        QueryPredicateGroup(type: .not, predicates: [p.rating > 1, p.rating < 3]),
        ["not": ["and": [["rating": ["gt": 1]], ["rating": ["lt": 3]]]]]
    ),
    // `.all` filters nothing out: left out of an `and`.
    FilterCase(p.rating > 4 && QueryPredicateConstant.all, ["and": [["rating": ["gt": 4]]]]),
    FilterCase(not(QueryPredicateConstant.all), ["not": [:]]),
    FilterCase(QueryPredicateGroup(type: .or), ["or": []]),
]

@Test(arguments: [operationCases, groupCases].joined())
func predicatesTranslateToAppSyncFilters(_ testCase: FilterCase) {
    #expect(testCase.predicate.graphQLFilter(for: Post.schema) == testCase.filter)
    #expect(testCase.predicate.graphQLFilter == testCase.filter)
}

@Test(arguments: [
    QueryPredicateConstant.all as any QueryPredicate,
    QueryPredicateGroup(type: .and),
    QueryPredicateGroup(type: .and, predicates: [QueryPredicateConstant.all, QueryPredicateConstant.all]),
    p.rating > 4 || QueryPredicateConstant.all,
])
func predicatesSelectingEverythingHaveNoFilter(_ predicate: any QueryPredicate) {
    let filter = predicate.graphQLFilter(for: Post.schema)
    #expect(filter == Optional<JSONValue>.none)
}

@Test func belongsToFieldsUseTheirForeignKeyWithASchema() {
    #expect((c.post == "p1").graphQLFilter(for: Comment.schema) == ["postID": ["eq": "p1"]])
    #expect((c.post == "p1").graphQLFilter(for: nil) == ["post": ["eq": "p1"]])
    #expect((c.post == "p1").graphQLFilter == ["post": ["eq": "p1"]])
    #expect(
        (c.post == nil && c.content ~= "hi").graphQLFilter(for: Comment.schema)
            == [
                "and": [
                    ["or": [["postID": ["attributeExists": false]], ["postID": ["eq": nil]]]],
                    ["content": ["contains": "hi"]],
                ]
            ]
    )
}

@Test func compositeForeignKeysKeepTheFieldName() {
    let schema = ModelSchema(
        name: "Review",
        fields: [
            ModelField(
                name: "book",
                type: .model(name: "Book"),
                association: .belongsTo(associatedFields: [], targetNames: ["bookISBN", "bookEdition"])
            )
        ]
    )
    #expect((field("book") == "978-0#2").graphQLFilter(for: schema) == ["book": ["eq": "978-0#2"]])
}

@Test func filtersEncodeToTheAppSyncWireFormat() throws {
    let predicate = p.rating.between(start: 1, end: 5) && (p.status == PostStatus.active || p.score == nil)
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    let json = try #require(predicate.graphQLFilter(for: Post.schema))
    let text = String(decoding: try encoder.encode(json), as: UTF8.self)
    #expect(
        text
            == #"{"and":[{"rating":{"between":[1,5]}},{"or":[{"status":{"eq":"active"}},"#
            + #"{"or":[{"score":{"attributeExists":false}},{"score":{"eq":null}}]}]}]}"#
    )
}

@Test func filtersOfSeveralMembersStayInOrder() {
    let filter = (p.title == "a" || p.title == "b" || p.title == "c").graphQLFilter
    #expect(filter?.or?[0] == ["title": ["eq": "a"]])
    #expect(filter?.or?[2] == ["title": ["eq": "c"]])
}
