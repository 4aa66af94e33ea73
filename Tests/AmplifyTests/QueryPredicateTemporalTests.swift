import Amplify
import Testing

private typealias Post = PredicateFixtures.Post

private let p = Post.keys

private let dated: JSONValue = [
    "id": "p1", "title": "banana", "rating": 4, "status": "active",
    "createdAt": "2024-01-02T03:04:05Z", "publishedOn": "2024-01-02", "opensAt": "09:30:00",
]

private func record(_ members: [String: JSONValue]) -> JSONValue {
    .object(dated.objectValue!.merging(members) { _, new in new })
}

// Each case marked "not as strings" would give the other answer comparing the ISO 8601 text.

private let dateTimeCases: [EvaluationCase] = [
    EvaluationCase(p.createdAt == (try! Temporal.DateTime(iso8601String: "2024-01-02T03:04:05Z")), true, on: dated),
    EvaluationCase(p.createdAt == "2024-01-02T03:04:06Z", false, on: dated),
    // Not as strings: the same instant written another way.
    EvaluationCase(p.createdAt == "2024-01-02T04:04:05+01:00", true, on: dated),
    EvaluationCase(p.createdAt == "2024-01-02T03:04:05.000Z", true, on: dated),
    EvaluationCase(p.createdAt == "2024-01-02T03:04", false, on: record(["createdAt": "2024-01-02T03:04:00Z"])),
    EvaluationCase(p.createdAt != "2024-01-02T04:04:05+01:00", false, on: dated),
    EvaluationCase(p.createdAt != "2024-01-02T03:04:06Z", true, on: dated),
    EvaluationCase(p.createdAt < "2024-01-02T03:04:06Z", true, on: dated),
    EvaluationCase(p.createdAt < "2024-01-02T03:04:05Z", false, on: dated),
    // Not as strings: 00:00-05:00 is 05:00Z, later than 03:04:05Z.
    EvaluationCase(p.createdAt < "2024-01-02T00:00:00-05:00", true, on: dated),
    EvaluationCase(p.createdAt <= "2024-01-02T04:04:05+01:00", true, on: dated),
    EvaluationCase(p.createdAt <= "2024-01-02T03:04:04Z", false, on: dated),
    // Not as strings: 04:00+01:00 is 03:00Z, earlier than 03:04:05Z.
    EvaluationCase(p.createdAt > "2024-01-02T04:00:00+01:00", true, on: dated),
    EvaluationCase(p.createdAt > "2024-01-02T03:04:05Z", false, on: dated),
    EvaluationCase(p.createdAt >= "2024-01-02T03:04:05Z", true, on: dated),
    EvaluationCase(p.createdAt >= "2024-01-02T03:04:05.000000001Z", false, on: dated),
    EvaluationCase(
        p.createdAt.between(start: "2024-01-02T04:00:00+01:00", end: "2024-01-01T23:00:00-05:00"),
        true,
        on: dated
    ),
    EvaluationCase(
        p.createdAt.between(
            start: try! Temporal.DateTime(iso8601String: "2024-01-02T03:04:05Z"),
            end: try! Temporal.DateTime(iso8601String: "2024-01-02T03:04:05Z")
        ),
        true,
        on: dated
    ),
    EvaluationCase(p.createdAt.between(start: "2024-01-03T00:00:00Z", end: "2024-01-04T00:00:00Z"), false, on: dated),
    // Operators on the text itself.
    EvaluationCase(p.createdAt.beginsWith("2024-01"), true, on: dated),
    EvaluationCase(p.createdAt.beginsWith("2023"), false, on: dated),
    EvaluationCase(p.createdAt.contains("T03"), true, on: dated),
    EvaluationCase(p.createdAt.notContains("T03"), false, on: dated),
    // Text that does not parse compares as a string.
    EvaluationCase(p.createdAt < "2024-13", true, on: dated),
    EvaluationCase(p.createdAt == "2024-01-02T03:04:05", true, on: record(["createdAt": "2024-01-02T03:04:05"])),
    EvaluationCase(p.createdAt == "2024-01-02T03:04:05", false, on: record(["createdAt": "2024-01-02T03:04:05Z"])),
    EvaluationCase(p.createdAt == "yesterday", true, on: record(["createdAt": "yesterday"])),
    EvaluationCase(p.createdAt > "x", true, on: record(["createdAt": "yesterday"])),
    // Missing.
    EvaluationCase(p.createdAt == nil, true, on: record(["createdAt": nil])),
    EvaluationCase(p.createdAt < "2999-01-01T00:00:00Z", false, on: record(["createdAt": nil])),
    EvaluationCase(p.createdAt != "2999-01-01T00:00:00Z", true, on: record(["createdAt": nil])),
]

private let dateCases: [EvaluationCase] = [
    EvaluationCase(p.publishedOn == (try! Temporal.Date(iso8601String: "2024-01-02")), true, on: dated),
    EvaluationCase(p.publishedOn == "2024-01-03", false, on: dated),
    // Not as strings: a day without an offset starts at midnight UTC.
    EvaluationCase(p.publishedOn == "2024-01-02Z", true, on: dated),
    EvaluationCase(p.publishedOn < "2024-01-03", true, on: dated),
    EvaluationCase(p.publishedOn < "2024-01-02", false, on: dated),
    EvaluationCase(p.publishedOn <= "2024-01-02", true, on: dated),
    EvaluationCase(p.publishedOn > "2024-01-01", true, on: dated),
    // Not as strings: 2024-01-02 in +01:00 starts at 2024-01-01T23:00Z.
    EvaluationCase(p.publishedOn > "2024-01-02+01:00", true, on: dated),
    EvaluationCase(p.publishedOn >= "2024-01-03", false, on: dated),
    EvaluationCase(p.publishedOn.between(start: "2024-01-01", end: "2024-01-02"), true, on: dated),
    EvaluationCase(p.publishedOn.between(start: "2024-01-03", end: "2024-12-31"), false, on: dated),
    EvaluationCase(p.publishedOn.beginsWith("2024-01"), true, on: dated),
    EvaluationCase(p.publishedOn == nil, false, on: dated),
]

private let timeCases: [EvaluationCase] = [
    EvaluationCase(p.opensAt == (try! Temporal.Time(iso8601String: "09:30:00")), true, on: dated),
    // Not as strings: the seconds and the fraction are optional.
    EvaluationCase(p.opensAt == "09:30", true, on: dated),
    EvaluationCase(p.opensAt == "09:30:00.000", true, on: dated),
    EvaluationCase(p.opensAt != "09:30", false, on: dated),
    EvaluationCase(p.opensAt < "10:00", true, on: dated),
    EvaluationCase(p.opensAt < "09:30", false, on: dated),
    EvaluationCase(p.opensAt <= "09:30", true, on: dated),
    EvaluationCase(p.opensAt > "09:29:59.999", true, on: dated),
    EvaluationCase(p.opensAt >= "09:30:00.001", false, on: dated),
    EvaluationCase(p.opensAt.between(start: "09:00", end: "09:30"), true, on: dated),
    // Not as strings: 09:30+02:00 is 07:30 UTC.
    EvaluationCase(p.opensAt < "08:00:00Z", true, on: record(["opensAt": "09:30:00+02:00"])),
    EvaluationCase(p.opensAt == "07:30Z", true, on: record(["opensAt": "09:30:00+02:00"])),
]

@Test(arguments: [dateTimeCases, dateCases, timeCases].joined())
func temporalFieldsCompareByInstant(_ testCase: EvaluationCase) throws {
    #expect(try testCase.predicate.evaluate(target: testCase.record, schema: Post.schema) == testCase.expected)
}

@Test func temporalModelFieldsEvaluateThroughTheirJSON() throws {
    let post = Post(
        createdAt: try Temporal.DateTime(iso8601String: "2024-01-02T03:04:05.678+01:00"),
        publishedOn: try Temporal.Date(iso8601String: "2024-02-29"),
        opensAt: try Temporal.Time(iso8601String: "23:59")
    )
    #expect(try (p.createdAt == "2024-01-02T02:04:05.678Z").evaluate(target: post))
    #expect(try (p.createdAt < Temporal.DateTime(iso8601String: "2024-01-02T02:04:05.679Z")).evaluate(target: post))
    #expect(try (p.publishedOn > "2024-02-28" && p.publishedOn < "2024-03-01").evaluate(target: post))
    #expect(try !(p.opensAt < "23:00").evaluate(target: post))
}

@Test func temporalFieldsTakeTemporalsOrStrings() throws {
    let error = #expect(throws: QueryPredicateError.self) {
        try (p.createdAt > 1_704_164_645).evaluate(target: dated, schema: Post.schema)
    }
    #expect(
        error?.description
            == "Post.createdAt (Temporal.DateTime) cannot be compared with 1704164645, a number. "
            + "Use a Temporal.DateTime or its ISO 8601 string."
    )
    let dateError = #expect(throws: QueryPredicateError.self) {
        try (p.publishedOn == true).evaluate(target: dated, schema: Post.schema)
    }
    #expect(
        dateError?.description
            == "Post.publishedOn (Temporal.Date) cannot be compared with true, a boolean. "
            + "Use a Temporal.Date or its ISO 8601 string."
    )
    let timeError = #expect(throws: QueryPredicateError.self) {
        try (p.opensAt.contains(930)).evaluate(target: dated, schema: Post.schema)
    }
    #expect(
        timeError?.description
            == "Post.opensAt (Temporal.Time) cannot be compared with 930, a number. Use a string."
    )
}

@Test func temporalFiltersSendTheCanonicalString() throws {
    let since = try Temporal.DateTime(iso8601String: "2024-01-02T03:04+01:00")
    #expect((p.createdAt > since).graphQLFilter == ["createdAt": ["gt": "2024-01-02T03:04:00+01:00"]])
}
