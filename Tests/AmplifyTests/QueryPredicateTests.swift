import Amplify
import Testing

private typealias Post = PredicateFixtures.Post
private typealias PostStatus = PredicateFixtures.PostStatus

/// Two ways of writing one predicate, and the operation both must build.
struct PredicateForms: Sendable, CustomTestStringConvertible {
    let operatorForm: any QueryPredicate
    let methodForm: any QueryPredicate
    let expected: QueryPredicateOperation

    var testDescription: String { expected.description }
}

private let p = Post.keys

private let formCases: [PredicateForms] = [
    PredicateForms(
        operatorForm: p.title == "a",
        methodForm: p.title.eq("a"),
        expected: .init(field: "title", operator: .equals("a"))
    ),
    PredicateForms(
        operatorForm: p.title != "a",
        methodForm: p.title.ne("a"),
        expected: .init(field: "title", operator: .notEqual("a"))
    ),
    PredicateForms(
        operatorForm: p.rating < 4,
        methodForm: p.rating.lt(4),
        expected: .init(field: "rating", operator: .lessThan(4))
    ),
    PredicateForms(
        operatorForm: p.rating <= 4,
        methodForm: p.rating.le(4),
        expected: .init(field: "rating", operator: .lessOrEqual(4))
    ),
    PredicateForms(
        operatorForm: p.rating > 4,
        methodForm: p.rating.gt(4),
        expected: .init(field: "rating", operator: .greaterThan(4))
    ),
    PredicateForms(
        operatorForm: p.rating >= 4,
        methodForm: p.rating.ge(4),
        expected: .init(field: "rating", operator: .greaterOrEqual(4))
    ),
    PredicateForms(
        operatorForm: p.title ~= "an",
        methodForm: p.title.contains("an"),
        expected: .init(field: "title", operator: .contains("an"))
    ),
    PredicateForms(
        operatorForm: p.score == 2.5,
        methodForm: p.score.eq(2.5),
        expected: .init(field: "score", operator: .equals(.number(2.5)))
    ),
    PredicateForms(
        operatorForm: p.published == true,
        methodForm: p.published.eq(true),
        expected: .init(field: "published", operator: .equals(true))
    ),
    PredicateForms(
        operatorForm: p.status == PostStatus.active,
        methodForm: p.status.eq(PostStatus.active),
        expected: .init(field: "status", operator: .equals("active"))
    ),
    PredicateForms(
        operatorForm: p.score == nil,
        methodForm: p.score.eq(nil),
        expected: .init(field: "score", operator: .equals(.null))
    ),
    PredicateForms(
        operatorForm: p.score != nil,
        methodForm: p.score.ne(nil),
        expected: .init(field: "score", operator: .notEqual(.null))
    ),
    PredicateForms(
        operatorForm: p.status == nil,
        methodForm: p.status.eq(nil),
        expected: .init(field: "status", operator: .equals(.null))
    ),
    PredicateForms(
        operatorForm: p.status != nil,
        methodForm: p.status.ne(nil),
        expected: .init(field: "status", operator: .notEqual(.null))
    ),
    PredicateForms(
        operatorForm: field("rating") > 4,
        methodForm: field("rating").gt(4),
        expected: .init(field: "rating", operator: .greaterThan(4))
    ),
    PredicateForms(
        operatorForm: field("title") == nil,
        methodForm: field("title").eq(nil),
        expected: .init(field: "title", operator: .equals(.null))
    ),
    PredicateForms(
        operatorForm: field("title") != "a",
        methodForm: field("title").ne("a"),
        expected: .init(field: "title", operator: .notEqual("a"))
    ),
    PredicateForms(
        operatorForm: field("rating") < 4,
        methodForm: field("rating").lt(4),
        expected: .init(field: "rating", operator: .lessThan(4))
    ),
    PredicateForms(
        operatorForm: field("rating") <= 4,
        methodForm: field("rating").le(4),
        expected: .init(field: "rating", operator: .lessOrEqual(4))
    ),
    PredicateForms(
        operatorForm: field("rating") >= 4,
        methodForm: field("rating").ge(4),
        expected: .init(field: "rating", operator: .greaterOrEqual(4))
    ),
    PredicateForms(
        operatorForm: field("tags") ~= "aws",
        methodForm: field("tags").contains("aws"),
        expected: .init(field: "tags", operator: .contains("aws"))
    ),
]

@Test(arguments: formCases)
func operatorAndMethodFormsBuildTheSameOperation(forms: PredicateForms) {
    #expect(forms.operatorForm.isEqual(forms.expected))
    #expect(forms.methodForm.isEqual(forms.expected))
    #expect(forms.operatorForm.isEqual(forms.methodForm))
}

/// Methods without an operator form, beside the operation each must build.
private let methodOnlyCases: [(any QueryPredicate, QueryPredicateOperation)] = [
    (p.title.beginsWith("ba"), .init(field: "title", operator: .beginsWith("ba"))),
    (p.title.notContains("x"), .init(field: "title", operator: .notContains("x"))),
    (p.rating.between(start: 1, end: 5), .init(field: "rating", operator: .between(start: 1, end: 5))),
    (p.score.attributeExists(true), .init(field: "score", operator: .attributeExists(true))),
    (p.score.attributeExists(false), .init(field: "score", operator: .attributeExists(false))),
    (field("title").beginsWith("ba"), .init(field: "title", operator: .beginsWith("ba"))),
    (field("title").notContains("x"), .init(field: "title", operator: .notContains("x"))),
    (field("rating").between(start: 1, end: 5), .init(field: "rating", operator: .between(start: 1, end: 5))),
    (field("score").attributeExists(true), .init(field: "score", operator: .attributeExists(true))),
]

@Test(arguments: methodOnlyCases)
func methodsBuildTheirOperation(predicate: any QueryPredicate, expected: QueryPredicateOperation) {
    #expect(predicate.isEqual(expected))
}

@Test func operatorsTakePersistableValuesAsTheirJSON() {
    #expect(QueryOperator.equals(PostStatus.archived) == .equals("archived"))
    #expect(QueryOperator.notEqual(PostStatus.archived) == .notEqual("archived"))
    #expect(QueryOperator.equals(Int?.none) == .equals(.null))
    #expect(QueryOperator.notEqual(String?.none) == .notEqual(.null))
    #expect(QueryOperator.lessThan(2.5) == .lessThan(.number(2.5)))
    #expect(QueryOperator.lessOrEqual(3) == .lessOrEqual(.integer(3)))
    #expect(QueryOperator.greaterThan("b") == .greaterThan(.string("b")))
    #expect(QueryOperator.greaterOrEqual(true) == .greaterOrEqual(.boolean(true)))
    #expect(QueryOperator.contains("x") == .contains(.string("x")))
    #expect(QueryOperator.notContains(7) == .notContains(.integer(7)))
    #expect(QueryOperator.between(start: 1, end: 2.5) == .between(start: .integer(1), end: .number(2.5)))
}

@Test func theSeedsExampleHasEqualOperatorAndMethodForms() {
    let byOperators = p.rating > 4 || p.status == "active"
    let byMethods = p.rating.gt(4).or(p.status.eq("active"))
    let expected = QueryPredicateGroup(
        type: .or,
        predicates: [
            QueryPredicateOperation(field: "rating", operator: .greaterThan(4)),
            QueryPredicateOperation(field: "status", operator: .equals("active")),
        ]
    )
    #expect(byOperators == expected)
    #expect(byMethods == expected)
}

@Test func chainedAndsFlattenIntoOneGroup() {
    let a = p.rating > 1
    let b = p.title == "x"
    let c = p.score != nil
    let d = p.published == true
    let expected = QueryPredicateGroup(type: .and, predicates: [a, b, c, d])
    #expect((a && b && c && d) == expected)
    #expect(a.and(b).and(c).and(d) == expected)
    #expect(a.and(b.and(c.and(d))) == expected)
    #expect((a && b).and(c && d) == expected)
    #expect((a && b && c && d).predicates.count == 4)
}

@Test func chainedOrsFlattenIntoOneGroup() {
    let a = p.rating > 1
    let b = p.title == "x"
    let c = p.score != nil
    let expected = QueryPredicateGroup(type: .or, predicates: [a, b, c])
    #expect((a || b || c) == expected)
    #expect(a.or(b.or(c)) == expected)
}

@Test func groupsOfAnotherTypeStayNested() {
    let a = p.rating > 1
    let b = p.title == "x"
    let c = p.score != nil
    let expected = QueryPredicateGroup(
        type: .and,
        predicates: [QueryPredicateGroup(type: .or, predicates: [a, b]), c]
    )
    #expect(((a || b) && c) == expected)
    #expect(a.or(b).and(c) == expected)
    #expect(
        (a || b && c)
            == QueryPredicateGroup(type: .or, predicates: [a, QueryPredicateGroup(type: .and, predicates: [b, c])])
    )
}

@Test func notWrapsOnePredicateAndNeverFlattens() {
    let a = p.rating > 1
    let b = p.title == "x"
    #expect(!a == QueryPredicateGroup(type: .not, predicates: [a]))
    #expect(not(a) == !a)
    #expect(
        !(a && b) == QueryPredicateGroup(type: .not, predicates: [QueryPredicateGroup(type: .and, predicates: [a, b])])
    )
    #expect(!(!a) == QueryPredicateGroup(type: .not, predicates: [QueryPredicateGroup(type: .not, predicates: [a])]))
    #expect(
        (!a && b) == QueryPredicateGroup(type: .and, predicates: [QueryPredicateGroup(type: .not, predicates: [a]), b])
    )
}

@Test func existentialPredicatesCombineWithMethods() {
    let a: any QueryPredicate = p.rating > 1
    let b: any QueryPredicate = p.title == "x"
    #expect(a.and(b) == QueryPredicateGroup(type: .and, predicates: [a, b]))
    #expect(a.or(b) == QueryPredicateGroup(type: .or, predicates: [a, b]))
    #expect(not(a) == QueryPredicateGroup(type: .not, predicates: [a]))
}

@Test func predicatesThatDifferAreNotEqual() {
    let base = p.rating > 4
    let others: [any QueryPredicate] = [
        p.rating >= 4,
        p.rating > 5,
        p.rating > 4.0,
        p.score > 4,
        !base,
        base && base,
        QueryPredicateGroup(type: .or, predicates: [base]),
        QueryPredicateConstant.all,
    ]
    for other in others {
        #expect(!base.isEqual(other), "\(other)")
        #expect(!other.isEqual(base), "\(other)")
    }
    #expect(base.isEqual(QueryPredicateOperation(field: "rating", operator: .greaterThan(4))))
    #expect(QueryPredicateConstant.all.isEqual(QueryPredicateConstant.all))
    #expect((base && p.title == "a") != (p.title == "a" && base))
}

@Test func descriptionsReadAsTheFilter() {
    #expect((p.rating > 4).description == "rating gt 4")
    #expect((p.score == nil).description == "score eq nil")
    #expect((p.title == "a\"b").description == #"title eq "a\"b""#)
    #expect(p.rating.between(start: 1, end: 2.5).description == "rating between [1, 2.5]")
    #expect(p.score.attributeExists(false).description == "score attributeExists false")
    #expect((p.rating > 4 || p.status == "active").description == #"(rating gt 4 or status eq "active")"#)
    #expect((!(p.rating > 4 && p.title.beginsWith("b"))).description == #"not (rating gt 4 and title beginsWith "b")"#)
    #expect(
        QueryPredicateGroup(type: .not, predicates: [p.rating > 1, p.rating < 3]).description
            == "not (rating gt 1 and rating lt 3)"
    )
    #expect(QueryPredicateGroup(type: .or).description == "(or)")
    #expect(QueryPredicateConstant.all.description == "all")
}
